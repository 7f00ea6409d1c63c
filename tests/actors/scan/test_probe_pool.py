"""ProbePool: long-lived probe workers, replaced when they hang or die, never outliving the server."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from reelhouse.actors.scan.probe_pool import open_probe_pool
from reelhouse.media.probe import ProbeFailure

from ...server_process import ServerProcess, clean_environ
from .probe_workers import probe_worker_pids, worker_command

IO_LIMIT_S = 30
pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pool") / "a.mkv"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=5", "-t", "0.4",
         "-c:v", "mpeg4", str(out)],
        check=True, timeout=IO_LIMIT_S,
    )  # fmt: skip
    return out


async def test_workers_are_started_once_and_kept_across_probes(video: Path) -> None:
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(2, timeout=10) as pool:
            for _ in range(3):
                answers = await pool.probe([str(video)] * 20)
                assert all(a.result is not None and a.result.container == "mkv" for a in answers)
            assert pool.started == 1 and len(pool.pids) == 1
            assert pool.versions["av"]
    assert probe_worker_pids() == []


async def test_warmed_workers_are_the_ones_probes_use_and_never_more_than_the_slots(video: Path) -> None:
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(2, timeout=10) as pool:
            pool.warm(5)
            pool.warm(2)  # already warming: nothing more
            async with trio.open_nursery() as nursery:
                for _ in range(4):
                    nursery.start_soon(pool.probe, [str(video)] * 3)
            assert pool.started == 2 and len(pool.pids) == 2
    assert probe_worker_pids() == []


async def test_a_fifo_that_never_answers_times_out_and_the_worker_is_replaced(video: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "hung.mkv"
    os.mkfifo(fifo)  # opening it for reading blocks until a writer comes: a hung mount's read
    seen: list[int] = []
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(1, timeout=0.5) as pool:
            answers = await pool.probe([str(video), str(fifo), str(video)], lambda i, _: seen.append(i))
            assert [a.failure for a in answers] == [None, ProbeFailure.TIMEOUT, None]
            assert seen == [0, 1, 2] and pool.started == 2
    assert probe_worker_pids() == []


async def test_a_worker_that_aborts_costs_one_invalid_file_and_is_replaced(video: Path, tmp_path: Path) -> None:
    crash = tmp_path / "crash.mkv"
    shutil.copyfile(video, crash)
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(1, timeout=10, command=worker_command(abort_on="crash")) as pool:
            answers = await pool.probe([str(video), str(crash), str(video), str(crash)])
    assert [a.failure for a in answers] == [None, ProbeFailure.INVALID, None, ProbeFailure.INVALID]
    assert "SIGABRT" in answers[1].message
    assert probe_worker_pids() == []


async def test_a_crash_in_the_middle_of_a_long_batch_costs_that_file_only(video: Path, tmp_path: Path) -> None:
    crash = tmp_path / "crash.mkv"
    shutil.copyfile(video, crash)
    paths = [str(video)] * 50
    paths[21] = str(crash)  # in the second request, while the third is queued
    seen: list[int] = []
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(1, timeout=10, command=worker_command(abort_on="crash")) as pool:
            answers = await pool.probe(paths, lambda i, _: seen.append(i))
    assert seen == list(range(50))
    assert [i for i, a in enumerate(answers) if a.failure is not None] == [21]
    assert all(a.result is not None for i, a in enumerate(answers) if i != 21)
    assert pool.started == 2 and probe_worker_pids() == []


def _pickling_worker(marker: Path) -> tuple[str, ...]:
    """A subverted worker: it answers with pickles that would run a command in the server."""
    code = f"""
import os, pickle, sys
from reelhouse.media.probe_worker import encode_answer, frame
out, requests = sys.stdout.buffer, sys.stdin.buffer
out.write(encode_answer(("ready", {{"av": "0"}}))); out.flush()
class Boom:
    def __reduce__(self):
        return (os.system, ("touch {marker}",))
while len(header := requests.read(4)) == 4:
    for _ in pickle.loads(requests.read(int.from_bytes(header, "big"))):
        out.write(frame(pickle.dumps(("ok", Boom())))); out.flush()
"""
    return (sys.executable, "-c", code)


async def test_a_subverted_worker_cannot_run_code_in_the_server(video: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(1, timeout=10, command=_pickling_worker(marker)) as pool:
            answers = await pool.probe([str(video), str(video)])
    assert [a.failure for a in answers] == [ProbeFailure.UNKNOWN, ProbeFailure.UNKNOWN]
    assert not marker.exists()
    assert probe_worker_pids() == []


async def test_a_worker_that_never_gets_ready_fails_the_batch_as_unknown(video: Path, autojump_clock: object) -> None:
    async with open_probe_pool(1, timeout=10, command=worker_command(hang_at_start=True)) as pool:
        answers = await pool.probe([str(video), str(video)])
    assert [a.failure for a in answers] == [ProbeFailure.UNKNOWN, ProbeFailure.UNKNOWN]
    assert probe_worker_pids() == []


async def test_a_cancelled_probe_kills_its_worker_and_the_pool_goes_on(video: Path, tmp_path: Path) -> None:
    hang = tmp_path / "hang.mkv"
    shutil.copyfile(video, hang)
    hanging = tmp_path / "hanging"
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(1, timeout=60, command=worker_command(hang_on="hang", hanging=hanging)) as pool:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(pool.probe, [str(hang)])
                while not hanging.exists():  # cancelled once the worker hangs, however long its start took
                    await trio.sleep(0.02)
                nursery.cancel_scope.cancel()
            # Killed, not left hanging: SIGKILL is sent at the cancel, the process dies when the
            # kernel next runs it (on a loaded machine, not at once; it failed CI so).
            while probe_worker_pids():
                await trio.sleep(0.02)  # a worker left hanging ends the test at its cap instead
            (answer,) = await pool.probe([str(video)])
            assert answer.result is not None and pool.started == 2
    assert probe_worker_pids() == []


async def test_idle_workers_are_let_go(video: Path) -> None:
    with trio.fail_after(IO_LIMIT_S):
        async with open_probe_pool(1, timeout=10, idle_seconds=0.4) as pool:
            await pool.probe([str(video)])
            assert len(probe_worker_pids()) == 1
            while probe_worker_pids():
                await trio.sleep(0.05)
            assert pool.pids == []
            (answer,) = await pool.probe([str(video)])  # a fresh worker when needed again
            assert answer.result is not None and pool.started == 2


# -- the server's workers --------------------------------------------------------


def _hanging_server(nursery: trio.Nursery, tmp_path: Path) -> ServerProcess:
    """A server whose probe workers hang on every file (the status check's sample too)."""
    config = tmp_path / "hang.toml"
    command = ", ".join(f"'''{part}'''" for part in worker_command(hang_on="/"))
    config.write_text(f"[scan]\nprobe_worker_command = [{command}]\nprobe_timeout_seconds = 600\n")
    database = f"sqlite:///{tmp_path / 'reelhouse.db'}"
    # The start-up probe is what starts a worker here (servers in tests skip it otherwise).
    env = clean_environ(REELHOUSE_SCAN__HEALTH_PROBE_AT_START="true")
    return ServerProcess(tmp_path / "data", database, "--config", str(config), env=env)


async def _workers_of(server: ServerProcess) -> list[int]:
    assert server.process is not None
    with trio.fail_after(IO_LIMIT_S):
        while not (pids := probe_worker_pids(server.process.pid)):
            await trio.sleep(0.05)
    return pids


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
async def test_probe_workers_never_outlive_the_server(nursery: trio.Nursery, tmp_path: Path, signum: int) -> None:
    """Even a worker stuck in a read: SIGTERM stops it with the server; after a
    SIGKILL of the server it notices it was orphaned and exits."""
    server = _hanging_server(nursery, tmp_path)
    try:
        await server.start(nursery)
        workers = await _workers_of(server)
        server.send_signal(signum)
        with trio.fail_after(IO_LIMIT_S):
            await server.wait()
            while _alive(workers):
                await trio.sleep(0.05)
    finally:
        server.kill()
        for pid in _alive(locals().get("workers", [])):
            os.kill(pid, signal.SIGKILL)
