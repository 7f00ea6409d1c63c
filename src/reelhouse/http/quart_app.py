"""The app's class: QuartTrio with less per-request work, the behaviour unchanged.

A request that does nothing (``GET /health``) cost about 0.9 ms of the
server's CPU, a quarter of it in Quart's request machinery (py-spy,
``benchmarks/request_cost.py``).  Two pieces of that are work repeated
for nothing:

- ``ensure_async`` asks ``inspect`` whether each hook and view is a
  coroutine function, on every call (some ten per request): the answer
  for a function never changes, so it is remembered (for a bound
  method, its function's: the method is a new object at each access).
- quart-trio's HTTP connection runs the request in a task of its own
  beside the task that reads the ASGI messages (the body, the
  disconnect), both in a nursery; here the request runs in the nursery's
  own body instead.  The same nursery, the same cancellation (the reader
  cancels it at the disconnect, the request when its response is sent),
  the same exceptions (a nursery's body raises as its tasks do), and the
  same order (one checkpoint first: the connection's reader goes first, as
  it did while the task started): one task start fewer per request.
- A body already in memory (most answers: JSON, a page, an error) goes
  as one ASGI message with the end of the response, where Quart sent it
  and then an empty message to end it: each message crosses the
  middlewares, Hypercorn's stream and the protocol.
- Quart opens a cookie session for every request, which without a
  secret key (this server has none: its sign-ins are tokens and the
  console's own cookie) is a new empty read-only session each time; here
  it is one such session, shared (it cannot be written).
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, HTTPResponseBodyEvent, HTTPResponseStartEvent
from quart import Quart
from quart.sessions import NullSession, SessionInterface
from quart.utils import encode_headers
from quart.wrappers import BaseRequestWebsocket
from quart.wrappers.response import DataBody
from quart_trio import QuartTrio
from quart_trio.asgi import TrioASGIHTTPConnection


class InlineHTTPConnection(TrioASGIHTTPConnection):
    """quart-trio's HTTP connection, the request handled in the nursery's body, and a body held in
    memory sent as one message (module doc)."""

    async def __call__(self, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        request = self._create_request_from_scope(send)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.handle_messages, nursery, request, receive)
            # The connection's reader runs first, as it did while the request waited for its task
            # to start: a body already received is parsed before the answer, so an early answer
            # (401 before the body was read) keeps the connection (http/edge/protocol.py).
            await trio.lowlevel.checkpoint()
            await self.handle_request(nursery, request, send)

    async def _send_response(self, send: ASGISendCallable, response: Any) -> None:
        body = getattr(response, "response", None)
        if not isinstance(body, DataBody):  # a stream, a file, a werkzeug response: Quart's way
            await super()._send_response(send, response)
            return
        start: HTTPResponseStartEvent = {"type": "http.response.start", "status": response.status_code,
                                         "headers": encode_headers(response.headers)}
        await send(start)
        async with body as data:
            chunks = [chunk async for chunk in data]  # one: the bytes, or the range asked of them
        end: HTTPResponseBodyEvent = {"type": "http.response.body", "body": b"".join(chunks), "more_body": False}
        await send(end)


class NoSessions(SessionInterface):
    """Every request's session is the one empty, read-only session (module doc)."""

    def __init__(self) -> None:
        self._session = NullSession()

    async def open_session(self, app: Quart, request: BaseRequestWebsocket) -> NullSession:
        return self._session

    async def make_null_session(self, app: Quart) -> NullSession:
        return self._session


class ReelhouseQuart(QuartTrio):
    """QuartTrio with :class:`InlineHTTPConnection` and coroutine functions recognised once (module doc)."""

    asgi_http_class = InlineHTTPConnection
    session_interface = NoSessions()  # type: ignore[assignment]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._coroutine_functions: set[Callable[..., Any]] = set()

    def ensure_async(self, func: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
        plain = func.__func__ if type(func) is types.MethodType else func
        if type(plain) is not types.FunctionType:  # a partial, a callable object: Quart's answer
            return super().ensure_async(func)
        if plain in self._coroutine_functions:
            return func
        made: Callable[..., Awaitable[Any]] = super().ensure_async(func)
        if made is func:
            self._coroutine_functions.add(plain)
        return made
