"""The Jellyfin surface's errors, in one table: the same domain errors, Jellyfin's body.

Jellyfin answers errors as ASP.NET's problem details (``{type, title,
status, detail}``, ``application/problem+json``); its clients read the
status, and some show ``detail``.  The status of each domain error is the
native table's (``http/errors.py``), so a refusal means the same thing on
both surfaces; only the body differs.  Registered on every blueprint of the
surface (:func:`register`), so the native API's error body is untouched.
"""

from __future__ import annotations

import orjson
from quart import Blueprint, Response
from quart_schema import RequestSchemaValidationError

from reelhouse import errors
from reelhouse.runtime import NestedAskFailed
from reelhouse.storage import StoreFull, StoreUnavailable

from ..errors import STORE_RETRY_AFTER_SECONDS, part_unavailable, status_of

TITLES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    413: "Payload Too Large",
    429: "Too Many Requests",
    503: "Service Unavailable",
}
_TYPE = "https://tools.ietf.org/html/rfc9110#section-15"


def problem(status: int, detail: str, retry_after: object = None) -> Response:
    body = {"type": _TYPE, "title": TITLES.get(status, "Error"), "status": status, "detail": detail}
    response = Response(orjson.dumps(body), status=status, content_type="application/problem+json")
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


def register(blueprint: Blueprint) -> None:
    blueprint.register_error_handler(errors.DomainError, _domain_error)
    blueprint.register_error_handler(NestedAskFailed, _part_unavailable)
    blueprint.register_error_handler(RequestSchemaValidationError, _invalid_body)
    blueprint.register_error_handler(StoreUnavailable, _store_down)
    blueprint.register_error_handler(StoreFull, _store_down)


async def _domain_error(error: errors.DomainError) -> Response:
    return problem(status_of(error), error.message, error.params.get("retryAfterSeconds"))


async def _part_unavailable(error: NestedAskFailed) -> Response:
    return await _domain_error(part_unavailable(error))


async def _invalid_body(_error: RequestSchemaValidationError) -> Response:
    return problem(400, "The request body is not valid JSON of the expected shape.")


async def _store_down(error: StoreUnavailable | StoreFull) -> Response:
    return problem(503, f"The request failed: {error.summary}.", STORE_RETRY_AFTER_SECONDS)
