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

JSON_MIMETYPE = "application/json"

Made = TypeVar("Made")


def install_json_bodies(app: Quart) -> None:
    """Render dict and list return values with orjson (after QuartSchema is set up)."""
    app.make_response = _rendering(app.make_response)  # type: ignore[method-assign,assignment]


def json_response(value: Any, status: int = 200) -> Response:
    """``value`` as a JSON response; raises TypeError when orjson cannot encode it."""
    return Response(orjson.dumps(value), status=status, mimetype=JSON_MIMETYPE)


def _rendering(
    make_response: Callable[[Any], Coroutine[Any, Any, Made]],
) -> Callable[[Any], Coroutine[Any, Any, Made]]:
    @wraps(make_response)
    async def render(result: Any) -> Made:
        body, rest = (result[0], result[1:]) if isinstance(result, tuple) and result else (result, ())
        if isinstance(body, (dict, list)):
            try:
                rendered = json_response(body)
            except TypeError:
                pass  # not plain data: the framework's conversion handles it
            else:
                result = (rendered, *rest) if rest else rendered
        return await make_response(result)

    return render
