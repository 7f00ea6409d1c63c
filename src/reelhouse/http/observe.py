"""What each request was, once it ended: method, route template, status, duration and bytes sent.

:class:`RequestObserver` wraps the ASGI app (outermost) and hands one
:class:`RequestRecord` per request or WebSocket to its observers (the
access log, the metrics) after the last byte left, so a stream's duration
and size are the whole body's. Quart names the route (the rule template,
``/api/v1/items/<item_id>``: never an id, a query or a token) and the
request id into the ASGI scope from a before-request hook
(:func:`name_request`); a request no rule matched is ``unmatched``. They
are written into an object the observer put in the scope, not the scope
itself: a middleware inside may pass on a copy (the Jellyfin surface's
path spelling does), and the copy holds the same object.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from quart import request, websocket
from werkzeug.routing import Rule

from reelhouse.log_origin import set_origin

OBSERVED_KEY = "reelhouse.observed"
UNMATCHED = "unmatched"
# The client went away before an answer began (nginx's convention).
CLIENT_CLOSED = 499

ASGIApp = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class RequestRecord:
    method: str  # GET, ..., or WEBSOCKET
    route: str
    status: int
    seconds: float
    bytes_sent: int
    request_id: str | None


def name_request(request_id: str) -> None:
    """In a before-request hook: the route and id go into the scope, the id names the task's log lines."""
    _name(cast(dict[str, Any], request.scope), request.url_rule, request_id)


def name_websocket(request_id: str) -> None:
    _name(cast(dict[str, Any], websocket.scope), websocket.url_rule, request_id)


def _name(scope: dict[str, Any], rule: Rule | None, request_id: str) -> None:
    set_origin(f"request:{request_id}")
    seen = scope.get(OBSERVED_KEY)
    if isinstance(seen, _Seen):
        seen.route = rule.rule if rule is not None else UNMATCHED
        seen.request_id = request_id


class RequestObserver:
    """ASGI middleware: one :class:`RequestRecord` per request to each observer."""

    def __init__(self, app: ASGIApp, observers: Sequence[Callable[[RequestRecord], None]]) -> None:
        self.app = app
        self.observers = tuple(observers)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        seen = _Seen()
        scope = {**scope, OBSERVED_KEY: seen}

        async def observed_send(message: dict[str, Any]) -> None:
            seen.note(message)
            await send(message)

        try:
            await self.app(scope, receive, observed_send)
        finally:
            self._report(scope, seen, time.perf_counter() - started)

    def _report(self, scope: dict[str, Any], seen: _Seen, seconds: float) -> None:
        method = scope.get("method", "GET") if scope["type"] == "http" else "WEBSOCKET"
        record = RequestRecord(method, seen.route, seen.status or CLIENT_CLOSED, seconds, seen.bytes_sent,
                               seen.request_id)
        for observe in self.observers:
            observe(record)


class _Seen:
    """The route and id the app named, and the status and body bytes of the messages it sent."""

    __slots__ = ("bytes_sent", "request_id", "route", "status")

    def __init__(self) -> None:
        self.route = UNMATCHED
        self.request_id: str | None = None
        self.status = 0
        self.bytes_sent = 0

    def note(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in ("http.response.body", "websocket.http.response.body"):
            self.bytes_sent += len(message.get("body", b""))
        elif kind in ("http.response.start", "websocket.http.response.start"):
            self.status = message["status"]
        elif kind == "websocket.accept":
            self.status = 101
        elif kind == "websocket.send":
            self.bytes_sent += len(message.get("bytes") or b"") + len(message.get("text") or "")
        elif kind == "websocket.close" and not self.status:
            self.status = 403  # closed before it was accepted: refused
