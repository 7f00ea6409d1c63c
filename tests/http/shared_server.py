"""One in-process server per test module and backend, for tests that only read.

Starting a server (a database, its migrations, the actor tree) costs more
than most tests that talk to it; a module whose tests change nothing a
neighbour could see (refused requests, reads) shares one. The server runs
in a thread of its own with its own Trio run, since every test has its
own; tests reach it over its socket, as clients do. Import ``backend``,
``shared_server`` and ``client`` into the module: the module's tests then
take ``client`` (or ``shared_server``) as they would the per-test ones. A
module whose other tests still need a server each imports
``shared_client`` instead of ``client``. A module whose tests take
``server`` imports ``server`` too (the shared one under that name); its
tests that would reach their neighbours (a sign-in limit they trip, rows
they count) take ``own_server`` (and ``own_client``), conftest.py's
server of the test's own, which its ``server`` is elsewhere.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import trio

from ..conftest import BACKENDS
from .conftest import RunningServer, start_server
from .live_server import module_database

T = TypeVar("T")

START_CAP_S = 60.0  # the server's own start is capped at SERVER_START_TIMEOUT_S inside
STOP_CAP_S = 30.0


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The module's backend (module-scoped, so its tests share one server per backend)."""
    return str(request.param)


@pytest.fixture(scope="module")
def shared_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    root = tmp_path_factory.mktemp(f"shared-{backend}")
    with module_database(backend, root) as url, server_in_thread(url, root / "data") as server:
        yield server


@pytest.fixture
def server(shared_server: RunningServer) -> RunningServer:
    """The module's shared server under the per-test fixture's name (``client`` then talks to it too)."""
    return shared_server


@pytest.fixture
async def client(shared_server: RunningServer) -> AsyncIterator[httpx.AsyncClient]:
    async with shared_server.client() as c:
        yield c


@pytest.fixture
async def shared_client(shared_server: RunningServer) -> AsyncIterator[httpx.AsyncClient]:
    async with shared_server.client() as c:
        yield c


@contextmanager
def server_in_thread(database_url: str, data_dir: Path, **settings: Any) -> Iterator[RunningServer]:
    """``start_server`` in a thread's own Trio run until the block ends; start-up failures are raised here."""
    with started_in_thread(
        lambda nursery: start_server(nursery, database_url, data_dir, **settings), lambda running: running.shutdown
    ) as running:
        yield running


@contextmanager
def started_in_thread(
    start: Callable[[trio.Nursery], Awaitable[T]], shutdown_of: Callable[[T], trio.Event],
    *, start_cap_s: float = START_CAP_S,
) -> Iterator[T]:
    """What ``start`` starts in ``nursery``, run in a thread's own Trio run until the block ends.

    ``shutdown_of(started)`` is the event that stops it; start-up failures are raised here.
    """
    started = threading.Event()
    outcome: dict[str, Any] = {}

    async def serve_until_stopped() -> None:
        async with trio.open_nursery() as nursery:
            running = await start(nursery)
            outcome["server"], outcome["token"] = running, trio.lowlevel.current_trio_token()
            started.set()

    def run() -> None:
        try:
            trio.run(serve_until_stopped)
        except BaseException as exc:  # handed to the test thread, which reports it
            outcome["error"] = exc
        finally:
            started.set()

    thread = threading.Thread(target=run, name="shared-server", daemon=True)
    thread.start()
    if not started.wait(start_cap_s):
        raise AssertionError(f"the shared server did not start within {start_cap_s} s")
    if "server" not in outcome:
        raise AssertionError("the shared server failed to start") from outcome.get("error")
    running: T = outcome["server"]
    try:
        yield running
    finally:
        trio.from_thread.run_sync(shutdown_of(running).set, trio_token=outcome["token"])
        thread.join(STOP_CAP_S)
        if thread.is_alive():
            raise AssertionError(f"the shared server did not stop within {STOP_CAP_S} s")
        if "error" in outcome:
            raise AssertionError("the shared server failed while stopping") from outcome["error"]
