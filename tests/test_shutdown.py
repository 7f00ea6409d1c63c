"""Structured shutdown of a real ``reelhouse serve`` process on real signals."""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import trio

from .conftest import migrated_copy
from .http.edge.rawhttp import Reader, connect, request
from .server_process import ServerProcess as _ServerProcess
from .server_process import descendants, is_running, run_cli
from .tls import shared_tls_context


@pytest.fixture
async def database_url(database_url: str) -> str:
    """Migrated already (a copy, tests/conftest.py): the commands open it as after `reelhouse migrate`."""
    await migrated_copy(database_url)
    return database_url

GRACE_S = 10.0
# A test that proves a stop does not wait out its grace gives the server this
# one and allows half of it: a stop that waited would take all 60 s, a loaded
# machine's slow stop a few (a 10 s grace measured against wall time failed
# at load 16-19 by 0.6 s, and a 1 s bound by 13 ms).
LONG_GRACE_S = 60.0
_started: list[_ServerProcess] = []


def ServerProcess(*args: object, **kwargs: object) -> _ServerProcess:
    process = _ServerProcess(*args, **kwargs)  # type: ignore[arg-type]
    _started.append(process)
    return process


@pytest.fixture(autouse=True)
def _no_orphan_servers() -> Iterator[None]:
    """Whatever a test does, its server processes end with it."""
    yield
    while _started:
        _started.pop().kill()


def long_grace_config(directory: Path, text: str = "") -> Path:
    """A config file giving the server :data:`LONG_GRACE_S` (after ``text``)."""
    config = directory / "long-grace.toml"
    config.write_text(f"shutdown_grace_seconds = {LONG_GRACE_S}\n{text}")
    return config


async def create_key(data_dir: Path, database_url: str) -> str:
    done = await run_cli(["--data-dir", str(data_dir), "--database", database_url, "apikey", "create", "t"], cold=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip().splitlines()[-1]


# SIGTERM to a server forked by the tests' launcher (tests/server_process.py), SIGINT
# to a cold ``python -m reelhouse``: the signals a cold process gets stay tested.
@pytest.mark.parametrize(("signum", "cold"), [(signal.SIGTERM, False), (signal.SIGINT, True)])
async def test_signal_stops_the_server_with_exit_code_0_within_the_grace(
    nursery: trio.Nursery, tmp_path: Path, database_url: str, signum: int, cold: bool
) -> None:
    server = ServerProcess(tmp_path / "data", database_url, "--config", str(long_grace_config(tmp_path)), cold=cold)
    base = await server.start(nursery)
    key = await create_key(tmp_path / "data", database_url)
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {key}"}) as client:
        with trio.fail_after(20):
            assert (await client.get("/system/status")).status_code == 200
    server.send_signal(signum)
    with trio.fail_after(LONG_GRACE_S / 2):  # TooSlowError: the stop waited out its grace
        code = await server.wait()
    assert code == 0, server.log.decode(errors="replace")
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
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {key}"}) as client:
        with trio.fail_after(20):
            assert (await client.get("/system/status")).status_code == 200
        # Each command is a cold process (seconds apiece on a loaded machine): run_cli
        # caps each one and names it; one cap of 20 s over both broke under load.
        cli = ["--data-dir", str(tmp_path / "data"), "--database", database_url, "apikey"]
        listed = await run_cli([*cli, "list"], cold=True)
        assert listed.returncode == 0, listed.stderr
        key_id = listed.stdout.decode().split("\t")[0]
        revoked = await run_cli([*cli, "revoke", key_id], cold=True)
        assert revoked.returncode == 0, revoked.stderr
        with trio.fail_after(20):
            assert (await client.get("/system/status")).status_code == 401
    server.send_signal(signal.SIGTERM)
    with trio.fail_after(GRACE_S + 5):
        assert await server.wait() == 0


async def test_a_slow_request_in_flight_completes_during_the_grace(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    """A client still uploading its body when SIGTERM arrives gets its full answer."""
    server = ServerProcess(tmp_path / "data", database_url, "--config", str(long_grace_config(tmp_path)))
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
    with trio.fail_after(LONG_GRACE_S / 2):  # TooSlowError: the stop waited out its grace
        stream = await trio.open_tcp_stream(address.hostname, address.port)
        await stream.send_all(head + body[:10])
        await trio.sleep(0.3)  # the request is in flight: headers read, body incomplete
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


async def _idle_keep_alive_client(base: str, key: str) -> trio.SocketStream:
    stream = await connect(base)
    await stream.send_all(request("GET", "/api/v1/system/status", f"Authorization: Bearer {key}"))
    assert (await Reader(stream).response()).status == 200
    return stream


async def _open_event_stream(base: str, key: str) -> trio.SocketStream:
    stream = await connect(base)
    await stream.send_all(request("GET", "/api/v1/scans/events", f"Authorization: Bearer {key}"))
    seen = b""
    while b": stream open" not in seen:
        chunk = await stream.receive_some(65536)
        assert chunk, seen
        seen += chunk
    return stream


async def _read_to_eof(stream: trio.SocketStream) -> None:
    try:
        while await stream.receive_some(65536):
            pass
    except trio.BrokenResourceError:
        pass


async def test_sigterm_with_idle_keep_alive_clients_and_event_streams_open_exits_0_without_waiting_out_the_grace(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    """Nothing in flight: idle connections and SSE streams close at once (they
    used to hold the shutdown for the whole grace)."""
    server = ServerProcess(tmp_path / "data", database_url, "--config", str(long_grace_config(tmp_path)))
    base = await server.start(nursery)
    key = await create_key(tmp_path / "data", database_url)
    with trio.fail_after(30):
        idle = [await _idle_keep_alive_client(base, key) for _ in range(20)]
        silent = await connect(base)  # connected, never sent a byte
        partial = await connect(base)
        await partial.send_all(b"GET /api/v1/system/status HTTP/1.1\r\nHo")
        streams = [await _open_event_stream(base, key) for _ in range(2)]
    started = trio.current_time()
    server.send_signal(signal.SIGTERM)
    with trio.fail_after(LONG_GRACE_S / 2):  # TooSlowError: the idle ones held the stop for its grace
        code = await server.wait()
    print(f"SIGTERM to exit with 20 idle keep-alive clients and 2 event streams open: {trio.current_time() - started:.3f} s")
    assert code == 0, server.log.decode(errors="replace")
    with trio.fail_after(5):
        for stream in [*idle, silent, partial, *streams]:
            await _read_to_eof(stream)


def _pid_namespace_problem() -> str | None:
    if os.geteuid() != 0:
        return "needs root for a PID namespace (unshare --pid)"
    if shutil.which("unshare") is None:
        return "needs unshare(1) from util-linux"
    return None


def _write_films(root: Path, count: int) -> None:
    for i in range(count):
        folder = root / f"Film {i} ({2000 + i})"
        folder.mkdir(parents=True)
        (folder / f"Film {i} ({2000 + i}).mkv").write_bytes(b"\x1a\x45\xdf\xa3" + b"\0" * 4096)


@pytest.mark.skipif(_pid_namespace_problem() is not None, reason=str(_pid_namespace_problem()))
@pytest.mark.long
async def test_as_pid_1_of_its_own_pid_namespace_sigterm_exits_0_answering_the_request_in_flight_and_leaving_no_child(
    nursery: trio.Nursery, tmp_path: Path, database_url: str
) -> None:
    config = _orphaning_probe_config(tmp_path)
    server = ServerProcess(
        tmp_path / "data", database_url, "--config", str(config), prefix=["unshare", "--pid", "--kill-child"]
    )
    base = await server.start(nursery)
    key = await create_key(tmp_path / "data", database_url)
    pid_1 = _only(descendants(server.pid)[:1])  # unshare's child: PID 1 inside
    _write_films(tmp_path / "films", 4)
    (tmp_path / "more").mkdir()
    auth = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{base}/api/v1", headers=auth) as client:
        with trio.fail_after(30):
            created = await client.post("/libraries", json={
                "name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies"})
            assert created.status_code == 201, created.text
            while len(children := descendants(pid_1)) < 2:  # the server, and a probe under it
                await trio.sleep(0.05)
            # The probe's orphan ended at once: PID 1 must reap it.
            await trio.sleep(0.5)
            while [pid for pid in descendants(pid_1) if _is_zombie(pid)]:
                await trio.sleep(0.05)
    body = json.dumps({"name": "More", "paths": [str(tmp_path / "more")], "collectionType": "movies",
                       "options": {"remoteAllowedHosts": [], "scansSuspended": True}}).encode()
    whole = request("POST", "/api/v1/libraries", f"Authorization: Bearer {key}",
                    "Content-Type: application/json", body=body)
    with trio.fail_after(LONG_GRACE_S / 2):  # TooSlowError: the stop waited out its grace
        stream = await connect(base)
        await stream.send_all(whole[:-10])
        await trio.sleep(0.3)  # in flight: the head read, the body not complete
        os.kill(pid_1, signal.SIGTERM)
        await trio.sleep(0.5)
        await stream.send_all(whole[-10:])
        answer = await Reader(stream).response()
        code = await server.wait()
    assert answer.status == 201, answer.body
    assert code == 0, server.log.decode(errors="replace")
    assert not [pid for pid in [pid_1, *children] if is_running(pid)]


def _orphaning_probe_config(directory: Path) -> Path:
    """Probe workers that never answer and leave an orphan behind, which
    ends at once: in a container, PID 1 inherits it and must reap it."""
    return long_grace_config(directory,
        '[scan]\nprobe_timeout_seconds = 120\n'
        'probe_worker_command = ["/bin/sh", "-c", "(sleep 0.01 &); exec sleep 120"]\n'
    )


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return False


def _only(pids: list[int]) -> int:
    assert len(pids) == 1, pids
    return pids[0]
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
        server.send_signal(signal.SIGTERM)
        # The lock is held until the server has exited: a shield that waited on it
        # would never end, so exiting here proves every shield ended at the deadline
        # (no wall-time bound, which a loaded machine breaks by itself).
        with trio.fail_after(SHORT_GRACE_S + 30):
            code = await server.wait()
    assert code == 0, server.log.decode(errors="replace")
