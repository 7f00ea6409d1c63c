"""A real server over a real socket, on each backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.config import Settings, load_settings
from reelhouse.process.server_lock import ServerRunning
from reelhouse.server import serve
from reelhouse.storage import migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from ..conftest import migrated_copy
from ..tls import shared_tls_context

SERVER_START_TIMEOUT_S = 60.0  # migrations and the first bind, on a loaded machine too
RESTART_POLL_S = 0.05  # a restart waits this long between tries while the previous server stops
# The status's sample probe starts a probe worker per server: off unless a test asks for it.
# Changes made from the command line (rules, plugins) are looked for every quarter second, not
# every two, so that a test waits for them less.
QUIET_SETTINGS = {"scan": {"health_probe_at_start": False}, "schedule": {"reload_poll_seconds": 0.25}}


@dataclass
class RunningServer:
    base_url: str
    api_url: str
    key: str
    database_url: str
    data_dir: Path
    shutdown: trio.Event
    stopped: trio.Event  # set once serve() returned: everything it started has ended

    def client(self, key: str | None = None, **kwargs: Any) -> httpx.AsyncClient:
        """An HTTP client for the API, authenticated with ``key`` (default: the server's)."""
        token = self.key if key is None else key
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        kwargs.setdefault("verify", shared_tls_context())
        return httpx.AsyncClient(base_url=self.api_url, headers=headers, timeout=10.0, **kwargs)


async def start_server(
    nursery: trio.Nursery, database_url: str, data_dir: Path, **settings: Any
) -> RunningServer:
    await migrated_copy(database_url)
    async with open_store(database_url) as store:
        await migrate(store)
        _record, key = await create_api_key(store, "tests")
    for section, quiet in QUIET_SETTINGS.items():
        settings[section] = {**quiet, **settings.get(section, {})}
    config = load_settings(
        flags={"bind": "127.0.0.1:0", "data_dir": str(data_dir), "database_url": database_url, **settings},
        environ={},
    )
    with trio.fail_after(SERVER_START_TIMEOUT_S):
        while True:
            shutdown, stopped = trio.Event(), trio.Event()
            try:
                binds = await nursery.start(_serve_until, config, shutdown, stopped)
                break
            except* ServerRunning:
                pass  # the folder's previous server is still stopping (one server per data folder)
            await trio.sleep(RESTART_POLL_S)
    base = binds[0]
    return RunningServer(base, f"{base}/api/v1", key, database_url, data_dir, shutdown, stopped)


async def _serve_until(
    config: Settings, shutdown: trio.Event, stopped: trio.Event, task_status: trio.TaskStatus[list[str]]
) -> None:
    try:
        await serve(config, shutdown=shutdown, task_status=task_status)
    finally:
        stopped.set()


@pytest.fixture
async def own_server(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> AsyncIterator[RunningServer]:
    """A server of the test's own. Under this name too so that, in a module sharing one server
    (shared_server.py, whose ``server`` is the module's), a test can still ask for its own."""
    running = await start_server(nursery, database_url, tmp_path / "data")
    yield running
    running.shutdown.set()


@pytest.fixture
def server(own_server: RunningServer) -> RunningServer:
    return own_server


@pytest.fixture
async def own_client(own_server: RunningServer) -> AsyncIterator[httpx.AsyncClient]:
    async with own_server.client() as c:
        yield c


@pytest.fixture
async def client(server: RunningServer) -> AsyncIterator[httpx.AsyncClient]:
    async with server.client() as c:
        yield c
