"""What the edge accepts of a request's text: JSON bodies, query values, path parameters.

Everything a client sends reaches the store as text, and neither backend
takes every string: PostgreSQL refuses NUL in text, SQLite's FTS ``MATCH``
fails on it, and a lone surrogate cannot be encoded at all. Here, once,
before any handler runs:

- a JSON body is decoded by orjson (strict UTF-8, no lone surrogates) and
  must nest at most :data:`MAX_JSON_DEPTH` levels; anything else is 400
  ``bad_request``. A string (or key) holding NUL is 400 ``field_invalid``
  naming the field. Python's decoder raised UnicodeDecodeError or
  RecursionError (500) on such bodies.
- a query value holding NUL is 400 ``field_invalid`` naming the parameter
  (percent-decoding already replaced bytes that are not UTF-8 with U+FFFD);
- a path parameter holding NUL names nothing: 404 ``not_found``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
from quart import Quart, request
from quart_trio.wrappers.request import TrioRequest

from reelhouse import errors

MAX_JSON_DEPTH = 32
"""Nesting levels a body may have; no request of the API needs more than a few."""
NUL = "\x00"


class ApiRequest(TrioRequest):
    """The app's request: JSON bodies parsed by :func:`parse_json_body`."""

    async def get_json(self, force: bool = False, silent: bool = False, cache: bool = True) -> Any:
        # Quart's own get_json, cache included, but reading bytes: it decodes
        # the body as text first, which raised UnicodeDecodeError.
        if cache and self._cached_json[silent] is not Ellipsis:
            return self._cached_json[silent]
        if not (force or self.is_json):
            return None
        raw = await self.get_data(cache=cache, as_text=False)
        try:
            result = parse_json_body(raw)
        except errors.Invalid:
            if not silent:
                raise
            result = None
        if cache:
            self._cached_json[silent] = result
        return result


def install_request_input(app: Quart) -> None:
    """Use :class:`ApiRequest` and refuse NUL in query values and path parameters."""
    app.request_class = ApiRequest
    app.before_request(_check_request_text)


def parse_json_body(raw: bytes | str) -> Any:
    """The body as JSON; :class:`errors.Invalid` when it is not acceptable (module doc)."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        # orjson's message says what is wrong (not UTF-8, a lone surrogate,
        # too deep, a syntax error) and never echoes more than a position.
        raise errors.Invalid(f"The request body is not valid JSON: {exc}.", code="bad_request") from None
    for path, item, depth in _walk(value):
        if depth > MAX_JSON_DEPTH:
            raise errors.Invalid(
                f"The request body nests deeper than {MAX_JSON_DEPTH} levels.",
                code="bad_request",
                params={"limit": MAX_JSON_DEPTH},
            )
        if isinstance(item, str) and NUL in item:
            field = ".".join(path)
            raise errors.Invalid(f"{field or 'The body'} must not contain NUL characters.", field=field or None)
    return value


def _walk(value: Any) -> Iterator[tuple[tuple[str, ...], Any, int]]:
    """Every value and key of a JSON document with its field path and depth, without recursion."""
    stack: list[tuple[tuple[str, ...], Any, int]] = [((), value, 0)]
    while stack:
        path, item, depth = stack.pop()
        yield path, item, depth
        if isinstance(item, dict):
            for key, child in item.items():
                yield path, key, depth + 1
                stack.append(((*path, key), child, depth + 1))
        elif isinstance(item, list):
            # Field names leave list positions out, as validation errors do.
            stack.extend((path, child, depth + 1) for child in item)


async def _check_request_text() -> None:
    for name, value in request.args.items(multi=True):
        if NUL in value:
            raise errors.Invalid(f"{name} must not contain NUL characters.", field=name)
    for value in (request.view_args or {}).values():
        if isinstance(value, str) and NUL in value:
            raise errors.NotFound("No such resource.")
