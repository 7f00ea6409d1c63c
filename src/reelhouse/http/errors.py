"""Every error becomes the reference's body ``{code, message, params}``: here, once.

Domain errors raised by handlers or replied by actors map to a status by
their class; framework errors (unknown route, wrong method, malformed JSON,
schema validation) and unhandled exceptions are translated to the same body.
An unhandled exception is logged with its request id and answered 500
``internal_error`` without any detail of the failure.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import ValidationError
from quart import Quart, Response, current_app, g, jsonify
from quart_schema import RequestSchemaValidationError
from werkzeug.exceptions import HTTPException

from reelhouse import errors
from reelhouse.runtime import NestedAskFailed
from reelhouse.storage import StoreFull, StoreUnavailable

from .schema import ErrorBody

log = logging.getLogger(__name__)

STATUS_BY_CLASS: tuple[tuple[type[errors.DomainError], int], ...] = (
    (errors.Invalid, 400),
    (errors.Unauthorized, 401),
    (errors.Forbidden, 403),
    (errors.NotFound, 404),
    (errors.Conflict, 409),
    (errors.TooLarge, 413),
    (errors.TooManyRequests, 429),
    (errors.Unavailable, 503),
)

STORE_RETRY_AFTER_SECONDS = 5  # a database restarting, or a disk being freed
PART_RETRY_AFTER_SECONDS = 5  # an actor a request needed, busy or restarting (the runtime's NestedAskFailed)

# Codes for framework errors, by HTTP status; all from the reference's
# ErrorCode list (it has no code of its own for 405, so that is bad_request).
CODE_BY_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    413: "too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
    503: "service_unavailable",
}


def error_response(
    status: int,
    code: str,
    message: str,
    params: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body = ErrorBody(code=code, message=message, params=params or None).to_json()
    response = jsonify(body)
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def error_body_bytes(code: str, message: str, params: dict[str, Any] | None = None) -> bytes:
    """The same body as :func:`error_response`, as bytes: for the connection
    layer, which answers some errors (malformed HTTP, too many connections)
    before any request reaches the app."""
    body = ErrorBody(code=code, message=message, params=params or None).to_json()
    return json.dumps(body, separators=(",", ":")).encode() + b"\n"


def part_unavailable(error: NestedAskFailed) -> errors.Unavailable:
    """What a client is told when an actor could not answer because a part it asked failed."""
    unavailable = errors.Unavailable(
        "A part of the server this request needs is busy or restarting; try again shortly.",
        params={"retryAfterSeconds": PART_RETRY_AFTER_SECONDS},
    )
    unavailable.__cause__ = error
    return unavailable


def status_of(error: errors.DomainError) -> int:
    for cls, status in STATUS_BY_CLASS:
        if isinstance(error, cls):
            return status
    return 400


def register_error_handlers(app: Quart) -> None:
    app.register_error_handler(errors.DomainError, _domain_error)
    app.register_error_handler(NestedAskFailed, _part_unavailable)
    app.register_error_handler(RequestSchemaValidationError, _validation_error)
    app.register_error_handler(HTTPException, _http_exception)
    app.register_error_handler(StoreUnavailable, _store_down)
    app.register_error_handler(StoreFull, _store_down)
    app.register_error_handler(Exception, _unhandled)


async def _domain_error(error: errors.DomainError) -> Response:
    headers = {}
    if "retryAfterSeconds" in error.params:
        headers["Retry-After"] = str(error.params["retryAfterSeconds"])
    return error_response(status_of(error), error.code, error.message, error.params, headers)


async def _part_unavailable(error: NestedAskFailed) -> Response:
    return await _domain_error(part_unavailable(error))


async def _store_down(error: StoreUnavailable | StoreFull) -> Response:
    # Passing: 503, no traceback (a lost database is logged once by the store).
    if isinstance(error, StoreFull):
        log.warning("request %s failed: %s", getattr(g, "request_id", "-"), error.summary)
    return error_response(
        503, CODE_BY_STATUS[503], f"The request failed: {error.summary}.",
        {"retryAfterSeconds": STORE_RETRY_AFTER_SECONDS}, {"Retry-After": str(STORE_RETRY_AFTER_SECONDS)},
    )  # fmt: skip


async def _validation_error(error: RequestSchemaValidationError) -> Response:
    cause = error.validation_error
    if not isinstance(cause, ValidationError) or not cause.errors():
        return error_response(400, "bad_request", "The request body is not valid JSON of the expected shape.")
    first = cause.errors()[0]
    field = _field_name(first.get("loc", ()))
    if not field:  # the body as a whole: absent, or not an object
        return error_response(400, "bad_request", "The request body must be a JSON object of the expected shape.")
    if first.get("type") == "missing":
        return error_response(400, "field_required", f"{field} is required.", {"field": field})
    message = f"{field}: {first.get('msg', 'invalid value')}." if field else "The request body is invalid."
    params = {"field": field} if field else None
    return error_response(400, "field_invalid", message, params)


def _field_name(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if not isinstance(p, int)]
    return ".".join(parts)


async def _http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    if status >= 500:
        return await _unhandled(error)
    code = CODE_BY_STATUS.get(status, "bad_request")
    message = {
        400: "The request is malformed.",
        404: "No such resource.",
        405: "This method is not allowed on this resource.",
        413: "The request body is too large.",
    }.get(status, error.description or "The request failed.")
    params = None
    if status == 413:  # the body is over the app's limit, which the client needs to know
        params = {"maxBytes": current_app.config["MAX_CONTENT_LENGTH"]}
    response = error_response(status, code, message, params)
    if status == 405 and (allowed := getattr(error, "valid_methods", None)):
        response.headers["Allow"] = ", ".join(allowed)
    return response


async def _unhandled(error: BaseException) -> Response:
    request_id = getattr(g, "request_id", "-")
    log.error("unhandled error in request %s", request_id, exc_info=error)
    return error_response(
        500,
        "internal_error",
        "The server failed to handle the request.",
        {"requestId": request_id},
    )
