"""What every blueprint of the Jellyfin surface shares: its credentials check, its error body,
and staying out of the native OpenAPI document (these routes are Jellyfin's, described by Jellyfin)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from quart import Blueprint, Response
from quart_schema import hide

from ..auth import OWN_AUTHENTICATION_PREFIX
from . import errors
from .access import authenticate_request, authenticate_websocket


def new_blueprint(name: str) -> Blueprint:
    blueprint = Blueprint(f"{OWN_AUTHENTICATION_PREFIX}_{name}", __name__)
    blueprint.before_request(authenticate_request)
    blueprint.before_websocket(authenticate_websocket)
    errors.register(blueprint)
    return blueprint


def route(blueprint: Blueprint, rule: str, methods: tuple[str, ...] = ("GET",)) -> Callable[[Any], Any]:
    """``blueprint.route`` for a lower-case ``rule`` (paths reach the app lower-cased: :mod:`.paths`), hidden."""

    def register(view: Any) -> Any:
        return blueprint.route(rule.lower(), methods=list(methods))(hide(view))

    return register


def json(body: Any, status: int = 200) -> Response:
    """A JSON answer (orjson, as the native routes'), in Jellyfin's content type."""
    return Response(orjson.dumps(body), status=status, content_type="application/json; charset=utf-8")


def no_content() -> Response:
    return Response(b"", status=204)
