"""The plugin launcher as a program: ``launcher.py LIFELINE -- PROGRAM ARG...``, run here without the
host's ``-I -S`` (no site, so no coverage): `make coverage` measures it. The host's own runs are in
test_descendants.py.

It exits with the plugin's exit code, 127 when the plugin cannot be run, and 128 + 9 when it killed
the plugin: for the lifeline's hang-up (the server's end) or a stop signal.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

from reelhouse.actors.plugins import launcher

from ...server_process import children

CAP_S = 60  # a cold interpreter's start on a busy machine; bounds a hang, measures nothing
KILLED = 128 + signal.SIGKILL


def _argv(lifeline: int, *command: str) -> list[str]:
    return [sys.executable, launcher.__file__, str(lifeline), "--", *command]


async def _run(*command: str) -> subprocess.CompletedProcess[bytes]:
    read, write = os.pipe()
    try:
        with trio.fail_after(CAP_S):
            return await trio.run_process(_argv(read, *command), pass_fds=(read,), stdin=subprocess.DEVNULL,
                                          capture_stdout=True, capture_stderr=True, check=False)
    finally:
        os.close(read)
        os.close(write)


@asynccontextmanager
async def _sleeping_plugin() -> AsyncIterator[tuple[trio.Process, int]]:
    """The launcher running ``sleep`` (exec'd: the launcher's child is sleep itself), and the lifeline's write end."""
    read, write = os.pipe()
    sleep = shutil.which("sleep")
    assert sleep is not None
    process = await trio.lowlevel.open_process(_argv(read, sleep, "600"), pass_fds=(read,), stdin=subprocess.DEVNULL,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(read)
    try:
        with trio.fail_after(CAP_S):
            while not any(_is_sleep(pid) for pid in children(process.pid)):
                await trio.sleep(0.05)
        yield process, write
    finally:
        process.kill()
        await process.wait()
        try:
            os.close(write)
        except OSError:
            pass  # the test closed it


def _is_sleep(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "sleep"
    except OSError:
        return False


async def test_the_launcher_exits_with_the_plugins_exit_code() -> None:
    done = await _run("/bin/sh", "-c", "exit 3")
    assert done.returncode == 3, done.stderr


async def test_a_plugin_that_cannot_be_run_is_exit_127_and_one_line_naming_it() -> None:
    done = await _run("/nonexistent/plugin")
    assert done.returncode == launcher.EXEC_FAILED
    assert done.stderr.decode().splitlines() == ["plugin launcher: cannot run /nonexistent/plugin: No such file or directory"]


async def test_the_lifelines_hang_up_kills_the_plugin() -> None:
    async with _sleeping_plugin() as (process, lifeline):
        [plugin] = children(process.pid)
        os.close(lifeline)  # as when the server ends, however it ends
        with trio.fail_after(CAP_S):
            assert await process.wait() == KILLED
    assert not Path(f"/proc/{plugin}").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
async def test_a_stop_signal_to_the_launcher_kills_the_plugin(signum: int) -> None:
    async with _sleeping_plugin() as (process, _lifeline):
        [plugin] = children(process.pid)
        process.send_signal(signum)
        with trio.fail_after(CAP_S):
            assert await process.wait() == KILLED
    assert not Path(f"/proc/{plugin}").exists()
