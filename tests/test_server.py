"""``reelhouse serve`` start-up, run as a real process."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage.activity import list_activity
from reelhouse.storage.scans import get_scan_run, insert_scan_run

from .http.edge.rawhttp import Reader, connect, request
from .server_process import ServerProcess, clean_environ, run_cli


async def test_start_on_a_busy_port_exits_2_with_one_line_and_writes_nothing(tmp_path: Path, database_url: str) -> None:
    async with open_store(database_url) as store:  # an installation whose last run was killed mid-scan
        await migrate(store)
        await store.execute(
            "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            ("l1", "Films", "movies", 1, 1),
        )
        run = await insert_scan_run(store, "l1", "full")
        activity_before = await list_activity(store, 100)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with trio.fail_after(60):
            done = await run_cli(["serve", "--bind", f"127.0.0.1:{port}", "--data-dir", str(tmp_path / "data"),
                                  "--database", database_url])
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "in use" in lines[0], lines
    async with open_store(database_url) as store:
        still = await get_scan_run(store, run.id)
        assert still is not None and still.state == "running"  # not failed: start-up never began
        assert await list_activity(store, 100) == activity_before  # no server.start


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_a_forked_servers_database_readers_are_named_by_its_own_pid(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    """Regression: the readers' name was taken at import, so a server forked after the import (by
    the tests' launcher, tests/server_process.py) showed its parent's pid in pg_stat_activity."""
    server = ServerProcess(tmp_path / "data", database_url)
    try:
        await server.start(nursery)
        async with open_store(database_url) as store:
            found = await store.execute("SELECT application_name FROM pg_stat_activity WHERE application_name = ?",
                                        (f"reelhouse-reader-{server.pid}",))
    finally:
        server.kill()
    assert found.rows, f"no reader of server {server.pid} in pg_stat_activity"


@pytest.fixture
async def limited_server(nursery: trio.Nursery, tmp_path: Path, database_url: str) -> AsyncIterator[tuple[str, str, ServerProcess]]:
    """A server with 200 descriptors at most (soft and hard) and a 1 s keep-alive."""
    env = clean_environ(REELHOUSE_HTTP__KEEP_ALIVE_SECONDS="1")
    server = ServerProcess(tmp_path / "data", database_url, prefix=["prlimit", "--nofile=200:200", "--"], env=env)
    try:
        base = await server.start(nursery)
        done = await run_cli(["--data-dir", str(tmp_path / "data"), "--database", database_url, "apikey", "create", "t"])
        yield base, done.stdout.decode().strip().splitlines()[-1], server
    finally:
        server.kill()


async def _status(base: str, key: str) -> int | str | None:
    """The status code, the error code of a refusal, or None if reset."""
    stream = await connect(base)
    try:
        await stream.send_all(request("GET", "/api/v1/system/status", f"Authorization: Bearer {key}"))
        response = await Reader(stream).response()
    except (trio.BrokenResourceError, EOFError):
        return None  # refused by closing: many refusals were under way
    finally:
        await stream.aclose()
    return response.status if response.status == 200 else response.json()["code"]


async def test_idle_connections_cannot_exhaust_the_descriptors(limited_server: tuple[str, str, ServerProcess]) -> None:
    """175 idle connections on a 200-descriptor limit used to leave every
    other client waiting for ever (EMFILE in accept)."""
    base, key, server = limited_server
    with trio.fail_after(30):
        idle = [await connect(base) for _ in range(175)]
    with trio.fail_after(5):  # answered at once: served, refused with 503, or (many refused at once) reset
        assert await _status(base, key) in (200, "service_unavailable", None)
    with trio.fail_after(20):  # the idle ones are closed after the keep-alive: served again
        while await _status(base, key) != 200:
            await trio.sleep(0.2)
    for stream in idle:
        await stream.aclose()
    assert b"cannot accept" not in server.log
    assert b"lowered to 100" in server.log  # max_connections fitted to the limit
