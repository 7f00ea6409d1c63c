"""Run ``reelhouse`` as a real process for end-to-end tests."""

from __future__ import annotations

import atexit
import json
import os
import re
import signal
import socket
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


def measured() -> bool:
    """`make coverage`: the processes this one starts measure themselves (pyproject's patch = subprocess)."""
    return "COVERAGE_PROCESS_CONFIG" in os.environ


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
                  timeout: float = CLI_TIMEOUT_S, cold: bool = False) -> subprocess.CompletedProcess[bytes]:
    """One ``reelhouse`` command, capped by ``timeout``: past it the process is killed and the test says which.

    A real process either way: forked by this test process's launcher
    (tests/cli_launcher.py, imports done once), or with ``cold`` (and with
    REELHOUSE_TEST_COLD_CLI=1) ``python -m reelhouse``.
    """
    environ = env or clean_environ()
    with trio.move_on_after(timeout):
        if cold or _all_cold():
            return await trio.run_process(
                reelhouse_argv(*args), stdin=stdin, capture_stdout=True, capture_stderr=True,
                check=False, env=environ,
            )
        return await _LAUNCHER.run(list(args), stdin, environ)
    raise AssertionError(f"`reelhouse {' '.join(args)}` did not end within {timeout} s")


def _all_cold() -> bool:
    return os.environ.get("REELHOUSE_TEST_COLD_CLI") == "1"


class _Launcher:
    """This test process's tests/cli_launcher.py: started at its first run, gone when this process ends."""

    def __init__(self) -> None:
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def _started(self) -> socket.socket:
        if self._control is None or self._process is None or self._process.poll() is not None:
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            with theirs:
                self._process = subprocess.Popen(
                    # -P: tests/ (whose http package would hide the standard one) is not on sys.path.
                    [sys.executable, "-P", str(Path(__file__).with_name("cli_launcher.py")), str(theirs.fileno())],
                    pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                )
            self._control = mine
            atexit.register(self._stop)
        return self._control

    @property
    def pid(self) -> int:
        """The launcher's pid (its children are the runs in flight)."""
        self._started()
        assert self._process is not None
        return self._process.pid

    def _stop(self) -> None:
        if self._control is not None:
            self._control.close()  # the launcher's signal to kill its children and exit
        if self._process is not None:
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()

    async def fork_server(self, args: list[str], env: dict[str, str]) -> ForkedServer:
        """``reelhouse serve`` forked: stdin and stdout /dev/null, stderr a pipe (as ServerProcess's cold one)."""
        err, child_err = os.pipe()
        answers, theirs = socket.socketpair()
        request = json.dumps({"argv": args, "env": env, "cwd": os.getcwd()}).encode()
        null = os.open(os.devnull, os.O_RDWR)
        try:
            socket.send_fds(self._started(), [request], [null, null, child_err, theirs.fileno()])
        finally:
            for fd in (null, child_err):
                os.close(fd)
            theirs.close()
        try:  # the first serve run waits for the launcher to import the server's stack
            await trio.lowlevel.wait_readable(answers)
            return ForkedServer(answers, err)
        except BaseException:
            answers.close()  # the launcher kills the child, if any
            os.close(err)
            raise

    async def run(self, args: list[str], stdin: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
        child_in, feed = os.pipe()
        out, child_out = os.pipe()
        err, child_err = os.pipe()
        answers, theirs = socket.socketpair()
        request = json.dumps({"argv": args, "env": env, "cwd": os.getcwd()}).encode()
        try:  # one record on a local socket: it does not block
            socket.send_fds(self._started(), [request], [child_in, child_out, child_err, theirs.fileno()])
        finally:
            for fd in (child_in, child_out, child_err):
                os.close(fd)
            theirs.close()
        output: dict[int, bytes] = {}
        with trio.socket.from_stdlib_socket(answers) as answer:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_feed, trio.lowlevel.FdStream(feed), stdin)
                nursery.start_soon(_drain, trio.lowlevel.FdStream(out), output, 1)
                nursery.start_soon(_drain, trio.lowlevel.FdStream(err), output, 2)
                lines = b""
                while lines.count(b"\n") < 2:  # the child's pid, then its exit code
                    if not (chunk := await answer.recv(64)):
                        raise AssertionError(f"the CLI launcher ended during `reelhouse {' '.join(args)}`")
                    lines += chunk
        returncode = int(lines.split()[1])
        return subprocess.CompletedProcess(reelhouse_argv(*args), returncode, output[1], output[2])


async def _feed(stream: trio.lowlevel.FdStream, data: bytes) -> None:
    async with stream:
        try:
            await stream.send_all(data)
        except trio.BrokenResourceError:
            pass  # the command did not read its stdin (a cold run's pipe is the same)


async def _drain(stream: trio.lowlevel.FdStream, into: dict[int, bytes], key: int) -> None:
    chunks = []
    async with stream:
        while chunk := await stream.receive_some():
            chunks.append(chunk)
    into[key] = b"".join(chunks)


_LAUNCHER = _Launcher()


def stop_launcher() -> None:
    """This process's launcher ended now, not at interpreter exit (a later run starts another)."""
    _LAUNCHER._stop()


class ForkedServer:
    """A server forked by the launcher, with what ServerProcess uses of ``trio.Process``.

    Not this process's child: its pid and a pidfd come from the launcher (a
    signal sent by pidfd reaches this process or none, never one that reused
    the pid after the launcher reaped it), its exit code too (``-N`` for
    signal N, as ``trio.Process``). Closing ``answers`` makes the launcher
    kill it.
    """

    def __init__(self, answers: socket.socket, stderr_fd: int) -> None:
        self._answers = answers
        self._lines = b""
        self.stderr = trio.lowlevel.FdStream(stderr_fd)
        message, fds, _flags, _address = socket.recv_fds(answers, 64, 1)  # readable: the pid line (or the end)
        if not message or not fds:
            raise AssertionError("the CLI launcher did not fork the server (its stderr says why)")
        self._lines = message
        self._pidfd = fds[0]
        self.pid = int(message.split(b"\n")[0])
        self.returncode: int | None = None
        answers.setblocking(False)

    def _read(self) -> None:
        while self.returncode is None:
            if self._lines.count(b"\n") >= 2:  # the pid, then the exit code (one read may bring both)
                self.returncode = int(self._lines.split()[1])
                os.close(self._pidfd)
                self._answers.close()
                return
            try:
                chunk = self._answers.recv(64)
            except BlockingIOError:
                return
            if not chunk:
                raise AssertionError(f"the CLI launcher ended while server {self.pid} ran")
            self._lines += chunk

    def poll(self) -> int | None:
        self._read()
        return self.returncode

    async def wait(self) -> int:
        while self.poll() is None:
            await trio.lowlevel.wait_readable(self._answers)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            try:
                signal.pidfd_send_signal(self._pidfd, signum)
            except ProcessLookupError:
                pass  # ended and reaped meanwhile: its exit code is on its way

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class ServerProcess:
    """``reelhouse serve`` on a free port; its stderr is collected.

    Forked by the tests' launcher (tests/cli_launcher.py: the server's
    imports done once per test process), or cold (``python -m reelhouse``)
    under a ``prefix``, with ``cold``, or with REELHOUSE_TEST_COLD_CLI=1.
    """

    def __init__(self, data_dir: Path, database_url: str, *extra: str, prefix: Sequence[str] = (),
                 env: dict[str, str] | None = None, cold: bool = False) -> None:
        """``prefix`` runs the server under another command (``unshare ...``), cold."""
        self.serve_args = ["serve", "--bind", "127.0.0.1:0", "--data-dir", str(data_dir), "--database", database_url,
                           *extra]
        self.args = [*prefix, *reelhouse_argv(*self.serve_args)]
        self.cold = cold or bool(prefix) or _all_cold()
        self.env = env
        self.log = b""
        self.log_ended = trio.Event()
        self.process: trio.Process | ForkedServer | None = None
        self.base_url = ""

    async def spawn(self, nursery: trio.Nursery) -> None:
        """The process started and its stderr being collected; not yet serving."""
        env = self.env or clean_environ()
        if self.cold:
            self.process = await trio.lowlevel.open_process(
                self.args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env
            )
        else:
            self.process = await _LAUNCHER.fork_server(self.serve_args, env)
        nursery.start_soon(self._collect)

    async def start(self, nursery: trio.Nursery, *, timeout: float = START_TIMEOUT_S) -> str:
        await self.spawn(nursery)
        assert self.process is not None
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
