"""The OpenAPI description (GET /api/v1/openapi.json): every route, every status it can send.

quart-schema builds each operation from the route's decorators
(``document_querystring``, ``document_headers``, ``validate_request`` or
``document_request``, ``validate_response`` or ``document_response``).
:class:`ApiOpenAPIProvider` completes it mechanically, so a new route is
documented as soon as it declares its success:

- the error responses every route can send, each with the reference's
  error body (:class:`ErrorBody`): 400 (any query value holding NUL is
  refused, see :mod:`.request_input`), 401 (every route but the public
  ones), 404 (a route with a path parameter: an unknown id), 413 (a route
  with a request body: over ``MAX_CONTENT_LENGTH``), 500 (an unhandled
  failure) and 503 (a busy or stopping server, with ``Retry-After``);
- the statuses a route declares with :func:`may_answer` (409, a 404 for an
  id in the query, ...), also with the error body unless given a body of
  their own (an image's 304);
- success responses that are not JSON (:func:`raw_response`: an image, an
  event stream, no content);
- query parameters: required when the model requires them, and without the
  ``null`` alternative of an optional field (absent is how a client says
  "none").

A route with no documented success response is caught by
``tests/http/test_openapi.py``, which walks every route the app registers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, TypeVar

import orjson
import trio
from pydantic import TypeAdapter
from quart import Quart, Response
from quart_schema import OpenAPIProvider, hide
from werkzeug.routing.rules import Rule

from .auth import PUBLIC_PATHS
from .openapi_names import OPERATIONS, TAGS
from .schema import ErrorBody

F = TypeVar("F", bound=Callable[..., Any])

ERROR_SCHEMA_NAME = "ErrorBody"
ERROR_REF = {"$ref": f"#/components/schemas/{ERROR_SCHEMA_NAME}"}
_EXTRA_ATTRIBUTE = "_reelhouse_responses"

# Why each status is sent when the route does not say more.
ERROR_REASONS: dict[int, str] = {
    400: "The request or one of its fields is invalid; params.field names it.",
    401: "No API key, or an invalid or revoked one.",
    404: "No such resource.",
    409: "The request conflicts with the current state.",
    413: "The request body is too large; params.maxBytes gives the limit.",
    500: "The server failed; params.requestId names the request in the log.",
    503: "The server is busy or stopping; retry after the Retry-After seconds.",
}
BINARY: dict[str, Any] = {"type": "string", "format": "binary"}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}}


@dataclass(frozen=True, slots=True)
class RawResponse:
    """A documented response whose body is not the route's JSON model."""

    status: int
    media_type: str | tuple[str, ...] | None  # None: no body; a tuple: any of them
    description: str
    schema: dict[str, Any] | None = None


def may_answer(*statuses: int | tuple[int, str]) -> Callable[[F], F]:
    """Document error statuses the route sends besides the automatic ones (module doc).

    Each is a status, or a status and what it means for this route:
    ``@may_answer((409, "A scan already runs for this library."))``.
    """

    def decorate(func: F) -> F:
        for entry in statuses:
            status, reason = entry if isinstance(entry, tuple) else (entry, None)
            reason = reason or ERROR_REASONS.get(status, HTTPStatus(status).phrase)
            _extras(func).append(RawResponse(status, "application/json", reason, ERROR_REF))
        return func

    return decorate


def raw_response(
    status: int, media_type: str | tuple[str, ...] | None, description: str, schema: dict[str, Any] | None = None
) -> Callable[[F], F]:
    """Document a response that is not JSON, or has no body (``media_type`` None).

    A binary body names its concrete media types (a tuple for several) with
    :data:`BINARY`: client generators skip wildcards such as ``image/*``.
    """

    def decorate(func: F) -> F:
        _extras(func).append(RawResponse(status, media_type, description, schema))
        return func

    return decorate


def _extras(func: Callable[..., Any]) -> list[RawResponse]:
    extras: list[RawResponse] | None = getattr(func, _EXTRA_ATTRIBUTE, None)
    if extras is None:
        extras = []
        setattr(func, _EXTRA_ATTRIBUTE, extras)
    return extras


class ApiOpenAPIProvider(OpenAPIProvider):
    """quart-schema's provider, completing every operation (module doc)."""

    def schema(self) -> dict[str, Any]:
        document = super().schema()
        document["components"]["schemas"][ERROR_SCHEMA_NAME] = _error_body_schema()
        document["tags"] = [{"name": name, "description": text} for name, text in TAGS.items()]
        return document

    def generate_rules(self) -> Iterable[Rule]:
        """quart-schema's rules plus the WebSocket ones (GET /sessions/socket): OpenAPI has no
        WebSocket object, so each is a GET answered 101 (``raw_response``), like its upgrade."""
        yield from super().generate_rules()
        for rule in self._app.url_map.iter_rules():
            if rule.websocket and not getattr(self._app.view_functions[rule.endpoint], "_quart_schema_hidden", False):
                yield rule

    def build_paths(self, rule: Rule) -> tuple[dict[str, Any], dict[str, Any]]:
        paths, components = super().build_paths(rule)
        func = self._app.view_functions[rule.endpoint]
        extras: list[RawResponse] = getattr(func, _EXTRA_ATTRIBUTE, [])
        for operations in paths.values():
            for method, operation in operations.items():
                # quart-schema shares one responses dict between the methods of a rule.
                operation["responses"] = dict(operation["responses"])
                _complete(operation, rule, method, extras)
                _name(operation, rule)
        return paths, components

    def build_querystring_parameters(self, model: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        parameters, definitions = super().build_querystring_parameters(model)
        required = set(TypeAdapter(model).json_schema().get("required", ()))
        for parameter in parameters:
            parameter["schema"] = _without_null(parameter["schema"])
            parameter["schema"].pop("default", None)
            if parameter["name"] in required:
                parameter["required"] = True
        return parameters, definitions

    def build_headers_parameters(self, model: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        parameters, definitions = super().build_headers_parameters(model)
        for parameter in parameters:
            parameter["schema"] = _without_null(parameter["schema"])
            parameter["schema"].pop("default", None)
        return parameters, definitions

    def build_request_body(self, model: Any, source: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        body, definitions = super().build_request_body(model, source)
        # A body with a required field is itself required; one without may be left out.
        if TypeAdapter(model).json_schema().get("required"):
            body["required"] = True
        return body, definitions

    def build_response_object(self, model: Any, headers_model: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        response, definitions = super().build_response_object(model, headers_model)
        if not isinstance(model, type) or not model.__doc__ or model.__doc__ is list.__doc__:
            response["description"] = "The answer."  # a list[...] would take list's own docstring
        return response, definitions


def _complete(operation: dict[str, Any], rule: Rule, method: str, extras: Iterable[RawResponse]) -> None:
    responses: dict[Any, Any] = operation["responses"]
    # quart-schema keys by int; JSON object keys are strings either way.
    for status in list(responses):
        responses[str(status)] = responses.pop(status)
    for extra in extras:
        responses[str(extra.status)] = _raw(extra)
    automatic = [400, 500, 503]
    if rule.rule not in PUBLIC_PATHS:
        automatic.append(401)
    if rule.arguments:
        automatic.append(404)
    if "requestBody" in operation:
        automatic.append(413)
    for status in automatic:
        error = RawResponse(status, "application/json", ERROR_REASONS[status], ERROR_REF)
        responses.setdefault(str(status), _raw(error))
    operation["responses"] = dict(sorted(responses.items()))
    if "summary" not in operation:
        operation["summary"] = f"{method.upper()} {rule.rule}"


def _name(operation: dict[str, Any], rule: Rule) -> None:
    """The route's tag and stable operation id (:mod:`.openapi_names`); unnamed routes keep quart-schema's."""
    named = OPERATIONS.get(rule.endpoint)
    if named is not None:
        operation["tags"] = [named.tag]
        operation["operationId"] = named.operation_id


def _raw(extra: RawResponse) -> dict[str, Any]:
    response: dict[str, Any] = {"description": extra.description}
    if extra.media_type is not None:
        types = (extra.media_type,) if isinstance(extra.media_type, str) else extra.media_type
        response["content"] = {media_type: {"schema": extra.schema or {}} for media_type in types}
    if extra.status == 503:
        response["headers"] = RETRY_AFTER
    return response


def _error_body_schema() -> dict[str, Any]:
    schema = ErrorBody.model_json_schema(mode="serialization")
    schema["properties"]["params"] = {
        "type": "object",
        "description": "Details such as field, limit, libraryId, retryAfterSeconds, maxBytes; absent when none.",
    }
    return schema


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """``X | None`` as plain ``X``: an optional parameter is absent, never null."""
    alternatives = schema.get("anyOf")
    if not alternatives:
        return schema
    kept = [a for a in alternatives if a != {"type": "null"}]
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    if len(kept) == 1:
        return {**kept[0], **rest}
    return {**rest, "anyOf": kept}


def serve_document_once_built(app: Quart) -> None:
    """GET /api/v1/openapi.json: the document built once, in a worker thread, then served from memory.

    quart-schema builds it anew for every request, on the event loop: the
    JSON Schemas of every model, 100-300 ms of CPU (measured: 819 ms on a
    busy machine, every other request waiting). The routes do not change
    while the app serves, so neither does the document.
    """
    built: list[bytes] = []

    @hide
    async def openapi() -> Response:
        if not built:
            document = await trio.to_thread.run_sync(app.extensions["QUART_SCHEMA"].openapi_provider.schema)
            built[:] = [orjson.dumps(document)]
        return Response(built[0], content_type="application/json")

    app.view_functions["openapi"] = openapi
