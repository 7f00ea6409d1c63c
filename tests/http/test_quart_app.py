"""The app's class (http/quart_app.py) behaves as QuartTrio: its views, hooks, session and
cancellation at a client's disconnect, served over a real socket by the edge."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
from hypercorn.config import Config
from quart import session

from reelhouse.http.edge import EdgeServer, bind_sockets
from reelhouse.http.quart_app import ReelhouseQuart

from .edge.rawhttp import Reader, connect, request

LIMIT_S = 30


class _Seen:
    cancelled = trio.Event()
    started = trio.Event()
    view_thread = ""


def _app() -> ReelhouseQuart:
    app = ReelhouseQuart(__name__)

    @app.get("/async")
    async def asynchronous() -> str:
        return "async"

    @app.get("/sync")
    def synchronous() -> str:  # Quart runs a plain function in a worker thread
        _Seen.view_thread = threading.current_thread().name
        return "sync"

    @app.get("/session")
    async def read_session() -> str:
        try:
            session["written"] = True
        except RuntimeError:
            return f"refused {dict(session)}"
        return "written"

    @app.get("/forever")
    async def forever() -> str:
        _Seen.started.set()
        try:
            await trio.sleep_forever()
        finally:
            _Seen.cancelled.set()
        return "never"

    return app


@asynccontextmanager
async def _served() -> AsyncIterator[str]:
    config = Config()
    config.bind = ["127.0.0.1:0"]
    shutdown = trio.Event()
    with trio.fail_after(LIMIT_S):
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(EdgeServer(_app(), config, 10).serve, bind_sockets(config), shutdown)
            yield binds[0]
            shutdown.set()


async def test_async_and_sync_views_answer_and_a_sync_one_runs_off_the_loop() -> None:
    async with _served() as url:
        stream = await connect(url)
        reader = Reader(stream)
        for path in ("/async", "/sync", "/async", "/sync"):  # the second time: the remembered answer
            await stream.send_all(request("GET", path))
            response = await reader.response()
            assert (response.status, response.body) == (200, path[1:].encode())
    assert _Seen.view_thread not in ("", threading.main_thread().name)


async def test_every_request_gets_an_empty_session_that_cannot_be_written() -> None:
    async with _served() as url:
        stream = await connect(url)
        reader = Reader(stream)
        for _ in range(2):
            await stream.send_all(request("GET", "/session"))
            assert (await reader.response()).body == b"refused {}"


async def test_a_client_that_goes_away_cancels_its_request() -> None:
    _Seen.started, _Seen.cancelled = trio.Event(), trio.Event()
    async with _served() as url:
        stream = await connect(url)
        await stream.send_all(request("GET", "/forever"))
        await _Seen.started.wait()
        await stream.aclose()
        await _Seen.cancelled.wait()  # within the cap: the handler was cancelled at the disconnect
