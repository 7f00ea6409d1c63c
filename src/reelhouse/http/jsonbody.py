"""JSON bodies rendered once, by orjson.

Routes return plain dicts and lists (the storage layer and ``ApiModel.to_json``
render them already). Left to the framework, each would be copied through a
new pydantic ``TypeAdapter`` by quart-schema and then encoded, keys sorted,
by the standard library's encoder: on a page of 40 items that was more
work than reading the page. Pydantic models and anything orjson cannot
encode still take the framework's way.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from functools import wraps
from typing import Any, TypeVar

import orjson
from quart import Quart, Response
from werkzeug.wrappers import Response as WerkzeugResponse

JSON_MIMETYPE = "application/json"

Made = TypeVar("Made")


def install_json_bodies(app: Quart) -> None:
    """Render dict and list return values with orjson (after QuartSchema is set up)."""
    app.make_response = _rendering(app.make_response)  # type: ignore[method-assign,assignment]


def _rendering(
    make_response: Callable[[Any], Coroutine[Any, Any, Made]],
) -> Callable[[Any], Coroutine[Any, Any, Made]]:
    @wraps(make_response)
    async def render(result: Any) -> Made:
        if isinstance(result, (dict, list)):
            try:
                result = json_response(result)
            except TypeError:
                return await make_response(result)  # not plain data: the framework's conversion handles it
        if isinstance(result, (Response, WerkzeugResponse)):
            # A response alone, as quart-schema and Quart would pass it on (they convert models and
            # tuples; Quart returns a response as it is): without their checks on every request.
            return result  # type: ignore[return-value]
        return await make_response(_rendered_tuple(result))

    return render


def _rendered_tuple(result: Any) -> Any:
    """A ``(dict or list, status[, headers])`` with its body rendered by orjson (else as it was)."""
    if not (isinstance(result, tuple) and result and isinstance(result[0], (dict, list))):
        return result
    try:
        return (json_response(result[0]), *result[1:])
    except TypeError:
        return result


def json_response(value: Any, status: int = 200) -> Response:
    """``value`` as a JSON response; raises TypeError when orjson cannot encode it."""
    return Response(orjson.dumps(value), status=status, mimetype=JSON_MIMETYPE)
