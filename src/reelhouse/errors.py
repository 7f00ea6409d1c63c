"""Domain errors: the failures a caller caused, with the reference's error codes.

An actor that raises a :class:`DomainError` while handling an ask replies
with it and lives on; any other exception crashes the actor. The HTTP edge
renders every DomainError as the reference's error body ``{code, message,
params}``; the status comes from the error's class (one table, in
``reelhouse.http.errors``), never from the code that raised it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class DomainError(Exception):
    """A failure the caller can act on. ``code`` is the reference's ErrorCode."""

    code: str = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = dict(params or {})


class Invalid(DomainError):
    """400: the request or one of its fields is invalid (``params.field``)."""

    code = "field_invalid"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        merged = dict(params or {})
        if field is not None:
            merged.setdefault("field", field)
        super().__init__(message, code=code, params=merged)


class Unauthorized(DomainError):
    """401: no key, or an invalid or revoked one."""

    code = "unauthorized"


class Forbidden(DomainError):
    """403: the caller may not do this."""

    code = "forbidden"


class NotFound(DomainError):
    """404: the resource does not exist."""

    code = "not_found"


class Conflict(DomainError):
    """409: the request conflicts with the current state."""

    code = "conflict"


class TooLarge(DomainError):
    """413: the body is too large (``params.maxBytes``)."""

    code = "too_large"


class TooManyRequests(DomainError):
    """429: past a limit; ``params.retryAfterSeconds`` says when to try again."""

    code = "too_many_requests"


class Unavailable(DomainError):
    """503: the feature or a dependency is not available now."""

    code = "service_unavailable"
