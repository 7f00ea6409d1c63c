"""Run ``reelhouse`` as a real process for end-to-end tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import trio

SERVING_LINE = re.compile(r"serving on (http://[\d.]+:\d+)/api/v1")
# A server or command-line process starts as a cold interpreter: its imports
# alone took 8-14 s with the machine's load at 17 on 2 cores, and PostgreSQL
# servers took more than 30 s to serve. The caps bound a hang (which still
# fails with the process's log); they measure nothing.
START_TIMEOUT_S = 120.0
CLI_TIMEOUT_S = 60.0


def reelhouse_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "reelhouse", *args]


def clean_environ(**extra: str) -> dict[str, str]:
    """This environment without REELHOUSE_ settings, plus ``extra``.

    A server started with it runs no start-up media probe (a probe worker
    process per server, as the in-process test servers) and looks for
    changes made from the command line every quarter second, not every two
    (tests/http/conftest.py's QUIET_SETTINGS): ``extra`` may say otherwise.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("REELHOUSE_")}
    env["REELHOUSE_SCAN__HEALTH_PROBE_AT_START"] = "false"
    env["REELHOUSE_SCHEDULE__RELOAD_POLL_SECONDS"] = "0.25"
    env.update(extra)
    return env


async def run_cli(args: Sequence[str], *, stdin: bytes = b"", env: dict[str, str] | None = None,
                  timeout: float = CLI_TIMEOUT_S) -> subprocess.CompletedProcess[bytes]:
    """One ``reelhouse`` command, capped by ``timeout``: past it the process is killed and the test says which."""
    with trio.move_on_after(timeout):
        return await trio.run_process(
            reelhouse_argv(*args), stdin=stdin, capture_stdout=True, capture_stderr=True,
            check=False, env=env or clean_environ(),
        )
    raise AssertionError(f"`reelhouse {' '.join(args)}` did not end within {timeout} s")


class ServerProcess:
    """``reelhouse serve`` on a free port; its stderr is collected."""

    def __init__(self, data_dir: Path, database_url: str, *extra: str, prefix: Sequence[str] = (),
                 env: dict[str, str] | None = None) -> None:
        """``prefix`` runs the server under another command (``unshare ...``)."""
        self.args = [*prefix, *reelhouse_argv(
            "serve", "--bind", "127.0.0.1:0", "--data-dir", str(data_dir), "--database", database_url, *extra
        )]
        self.env = env
        self.log = b""
        self.log_ended = trio.Event()
        self.process: trio.Process | None = None
        self.base_url = ""

    async def start(self, nursery: trio.Nursery, *, timeout: float = START_TIMEOUT_S) -> str:
        self.process = await trio.lowlevel.open_process(
            self.args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=self.env or clean_environ()
        )
        assert self.process.stderr is not None
        nursery.start_soon(self._collect)
        match = None
        with trio.move_on_after(timeout):
            while not (match := SERVING_LINE.search(self.log.decode(errors="replace"))):
                if self.process.poll() is not None:
                    raise RuntimeError(f"server exited early:\n{self.log.decode(errors='replace')}")
                await trio.sleep(0.05)
        if match is None:  # said why, within the test's own cap
            raise AssertionError(f"the server did not serve within {timeout} s; its log so far:\n"
                                 f"{self.log.decode(errors='replace')[-2000:]}")
        self.base_url = match.group(1)
        return self.base_url

    async def _collect(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        try:
            async for chunk in self.process.stderr:
                self.log += chunk
        finally:
            self.log_ended.set()  # the process closed its stderr: the log is whole

    def kill(self) -> None:
        """Make sure the process is gone (a failed test must not leave it running)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def send_signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    async def wait(self) -> int:
        assert self.process is not None
        return await self.process.wait()


def children(pid: int) -> list[int]:
    """The direct children of a process (Linux /proc)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found.extend(int(p) for p in f.read().split())
    except (FileNotFoundError, ProcessLookupError):
        pass
    return found


def descendants(pid: int) -> list[int]:
    found = []
    pending = children(pid)
    while pending:
        child = pending.pop()
        found.append(child)
        pending.extend(children(child))
    return found


def is_running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
