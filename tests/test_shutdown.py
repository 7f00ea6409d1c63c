"""Structured shutdown of a real ``reelhouse serve`` process on real signals."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio

from .process import ServerProcess as _ServerProcess
from .process import run_cli

GRACE_S = 10.0
_started: list[_ServerProcess] = []


def ServerProcess(*args: object) -> _ServerProcess:  # noqa: N802 - stands in for the class
    process = _ServerProcess(*args)  # type: ignore[arg-type]
    _started.append(process)
    return process


@pytest.fixture(autouse=True)
def _no_orphan_servers() -> Iterator[None]:
    """Whatever a test does, its server processes end with it."""
    yield
    while _started:
        _started.pop().kill()


async def create_key(data_dir: Path, database_url: str) -> str:
    done = await run_cli(["--data-dir", str(data_dir), "--database", database_url, "apikey", "create", "t"])
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip().splitlines()[-1]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_signal_stops_the_server_with_exit_code_0_within_the_grace(
    nursery: trio.Nursery, tmp_path: Path, database_url: str, signum: int
) -> None:
    server = ServerProcess(tmp_path / "data", database_url)
    base = await server.start(nursery)
    key = await create_key(tmp_path / "data", database_url)
    async with httpx.AsyncClient(base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {key}"}) as client:
        with trio.fail_after(20):
            assert (await client.get("/system/status")).status_code == 200
    started = trio.current_time()
    server.send_signal(signum)
    with trio.fail_after(GRACE_S + 5):
        code = await server.wait()
    assert code == 0, server.log.decode(errors="replace")
    assert trio.current_time() - started < GRACE_S
    assert b"Traceback" not in server.log


async def test_second_signal_exits_at_once(nursery: trio.Nursery, tmp_path: Path, database_url: str) -> None:
    server = ServerProcess(tmp_path / "data", database_url)
    await server.start(nursery)
    server.send_signal(signal.SIGTERM)
    server.send_signal(signal.SIGTERM)
    with trio.fail_after(GRACE_S):
        code = await server.wait()
    # Either the first signal already finished the shutdown (0) or the
    # second cut it short (128 + SIGTERM); never a hang.
    assert code in (0, 128 + signal.SIGTERM)


async def test_admin_commands_work_while_the_server_runs(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    server = ServerProcess(tmp_path / "data", database_url)
    base = await server.start(nursery)
    key = await create_key(tmp_path / "data", database_url)
    async with httpx.AsyncClient(base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {key}"}) as client:
        with trio.fail_after(20):
            assert (await client.get("/system/status")).status_code == 200
            listed = await run_cli(["--data-dir", str(tmp_path / "data"), "--database", database_url, "apikey", "list"])
            key_id = listed.stdout.decode().split("\t")[0]
            revoked = await run_cli(["--data-dir", str(tmp_path / "data"), "--database", database_url, "apikey", "revoke", key_id])
            assert revoked.returncode == 0, revoked.stderr
            assert (await client.get("/system/status")).status_code == 401
    server.send_signal(signal.SIGTERM)
    with trio.fail_after(GRACE_S + 5):
        assert await server.wait() == 0


async def test_a_slow_request_in_flight_completes_during_the_grace(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    """A client still uploading its body when SIGTERM arrives gets its full answer."""
    import json
    from urllib.parse import urlsplit

    server = ServerProcess(tmp_path / "data", database_url)
    base = await server.start(nursery)
    key = await create_key(tmp_path / "data", database_url)
    (tmp_path / "films").mkdir()
    body = json.dumps(
        {"name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies",
         "options": {"remoteAllowedHosts": [], "scansSuspended": True}}
    ).encode()
    address = urlsplit(base)
    head = (
        f"POST /api/v1/libraries HTTP/1.1\r\nHost: {address.netloc}\r\nAuthorization: Bearer {key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with trio.fail_after(GRACE_S + 10):
        stream = await trio.open_tcp_stream(address.hostname, address.port)
        await stream.send_all(head + body[:10])
        await trio.sleep(0.3)  # the request is in flight: headers read, body incomplete
        started = trio.current_time()
        server.send_signal(signal.SIGTERM)
        await trio.sleep(1.0)
        await stream.send_all(body[10:])
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = await stream.receive_some(65536)
            if not chunk:
                break
            answer += chunk
        code = await server.wait()
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]
    assert b'"name":"Films"' in answer
    assert code == 0
    assert trio.current_time() - started < GRACE_S


SHORT_GRACE_S = 3.0


async def test_sigterm_with_the_database_locked_by_another_client_ends_within_the_grace(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    """The store's last writes wait on a lock another client holds: every shield on the
    way (the server's own record, the writer's flush, the close) ends at the one
    shutdown deadline, so the whole SIGTERM still fits the grace and exits 0."""
    from .database_lock import database_write_lock

    config = tmp_path / "reelhouse.toml"
    config.write_text(f"shutdown_grace_seconds = {SHORT_GRACE_S}\n")
    server = ServerProcess(tmp_path / "data", database_url, "--config", str(config))
    await server.start(nursery)
    async with database_write_lock(database_url, "activity"):
        started = trio.current_time()
        server.send_signal(signal.SIGTERM)
        with trio.fail_after(SHORT_GRACE_S + 30):
            code = await server.wait()
        elapsed = trio.current_time() - started
    assert code == 0, server.log.decode(errors="replace")
    assert elapsed < SHORT_GRACE_S, server.log.decode(errors="replace")
