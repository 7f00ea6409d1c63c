"""One run of a plugin's process: spawn, handshake, serve, end.

:func:`run_session` is started in the PluginActor's nursery with
``nursery.start``: it returns (to ``start``) the :class:`PluginConnection`
once the handshake succeeded, then runs until the process ends, and
reports how it ended to ``on_end``. However it ends, the process is dead
and reaped when the task returns (no zombie).

The process the server starts is the plugin's launcher (``launcher.py``),
in a session and process group of its own, which starts the plugin and
sees to it that nothing the plugin starts outlives it, and that the plugin
does not outlive the server (a SIGKILL of the server included: the
launcher watches the lifeline pipe whose write end only the server holds).
Stopping is polite first (stdin closes: the plugin exits), then SIGTERM
to the launcher, which SIGKILLs the plugin and all its descendants; a
launcher that does not exit in :data:`LAUNCHER_GRACE_S` (stopped by a
hostile plugin) gets its whole process group SIGKILLed, and the plugin,
whose parent-death signal is SIGKILL, dies with it.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import trio

from reelhouse.media.log_text import loggable
from reelhouse.media.plugin_manifest import MIN_PROTOCOL_VERSION, PROTOCOL_VERSION
from reelhouse.shutdown import bounded_shield

from .connection import Fault, PluginCallError, PluginConnection, PluginNotRunning
from .stats import PluginStats

HANDSHAKE_TIMEOUT_S: Final = 10.0
STOP_GRACE_S: Final = 2.0  # after stdin closes, before the launcher is told to kill
LAUNCHER_GRACE_S: Final = 3.0  # after SIGTERM to the launcher, before its process group is SIGKILLed
LAUNCHER: Final = Path(__file__).with_name("launcher.py")
STDERR_LINE_CHARS: Final = 1000
STDERR_LINES_PER_MINUTE: Final = 120  # beyond it, stderr is read and dropped (counted)

_log = logging.getLogger("reelhouse.plugins")


class IncompatiblePlugin(Exception):
    """The plugin answered the handshake with an older protocol."""


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    plugin_id: str
    argv: tuple[str, ...]
    cwd: Path
    settings: Mapping[str, str]
    data_dir: Path  # the plugin's own writable directory
    concurrency: int
    server_version: str
    timeout_seconds: float = 30.0


@dataclass(frozen=True, slots=True)
class SessionEnd:
    reason: str  # stopped, crashed, timeout, garbage, flood
    detail: str


class Session:
    """The actor's handle on a running session: its connection and how to stop it."""

    def __init__(self, spec: LaunchSpec, process: trio.Process, stats: PluginStats) -> None:
        assert process.stdin is not None
        self.connection = PluginConnection(
            spec.plugin_id, process.stdin, concurrency=spec.concurrency, stats=stats,
            default_timeout=spec.timeout_seconds, on_fault=self.kill,
        )
        self._process = process
        self.stopping = False
        self.stop_requested = trio.Event()
        self.kill_requested = trio.Event()
        self.fault: Fault | None = None

    def stop(self) -> None:
        """Politely: close stdin (the plugin exits), SIGKILL after a grace."""
        self.stopping = True
        self.connection.closed = True
        self.stop_requested.set()
        if isinstance(self._process.stdin, trio.lowlevel.FdStream):
            self._process.stdin.close()  # a pipe closes synchronously

    def kill(self, fault: Fault) -> None:
        """At once: the launcher SIGKILLs the plugin and everything it started."""
        if self.fault is None:
            self.fault = fault
        self.connection.closed = True
        self.kill_requested.set()
        if self._process.poll() is None:
            self._process.terminate()


def resolve_argv(entry: tuple[str, ...], directory: Path) -> tuple[str, ...]:
    """``python``/``python3`` run with the server's interpreter; a relative
    program is inside the plugin directory (and must stay inside it)."""
    program, *rest = entry
    if program in ("python", "python3"):
        return (sys.executable, *rest)
    path = Path(program)
    if not path.is_absolute():
        path = (directory / path).resolve()
        if not path.is_relative_to(directory.resolve()):
            raise OSError(f"entry {program!r} is outside the plugin directory")
    if not os.access(path, os.X_OK) or path.is_dir():  # said here: the launcher could only exit 127
        raise OSError(f"entry {program!r} is not an executable file")
    return (str(path), *rest)


async def run_session(
    spec: LaunchSpec,
    stats: PluginStats,
    on_end: Callable[[SessionEnd], Any],
    *,
    task_status: trio.TaskStatus[Session] = trio.TASK_STATUS_IGNORED,
) -> None:
    lifeline = _lifeline()
    process = await trio.lowlevel.open_process(
        [sys.executable, "-I", "-S", str(LAUNCHER), str(lifeline), "--", *spec.argv],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=str(spec.cwd), env=_child_env(spec), start_new_session=True, pass_fds=(lifeline,),
    )
    session: Session | None = None
    try:
        assert process.stdout is not None and process.stderr is not None
        session = Session(spec, process, stats)
        failure: Exception | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_read_answers, session, process.stdout)
            nursery.start_soon(_pump_stderr, spec.plugin_id, process.stderr)
            nursery.start_soon(_kill_after_grace, session)
            nursery.start_soon(_kill_group_after_grace, session, process)
            nursery.start_soon(_close_on_exit, session, process)
            try:
                await _handshake(spec, session)
            except (IncompatiblePlugin, PluginCallError, PluginNotRunning) as exc:
                failure = exc
                if not session.stopping:
                    session.kill(Fault("crashed", "the handshake failed"))
            else:
                task_status.started(session)
            await process.wait()
            nursery.cancel_scope.cancel()
        if failure is not None:
            raise failure  # to nursery.start: as itself, not in a group
        _close_on_end(session, process)  # whichever of this and _close_on_exit comes first
        await on_end(_how_it_ended(session, process))
    finally:
        if session is not None:
            session.connection.closed = True
        await _end_process_tree(process)


@functools.cache
def _lifeline() -> int:
    """The read end of a pipe whose write end this server process alone holds, never closed.

    Both ends are close-on-exec, so no other child inherits the write
    end; the kernel closes it when the server ends, however it ends.
    """
    read_end, _write_end = os.pipe()
    return read_end


async def _end_process_tree(process: trio.Process) -> None:
    """The launcher kills the plugin and its descendants; its group is SIGKILLed if it does not exit.

    Shielded, each wait bounded by its grace and the shutdown deadline.
    """
    with bounded_shield(LAUNCHER_GRACE_S):
        if process.poll() is None:
            process.terminate()
            await process.wait()
    _kill_group(process)  # also when the shutdown deadline cut the grace short
    with bounded_shield(LAUNCHER_GRACE_S):
        await process.wait()


def _kill_group(process: trio.Process) -> None:
    # Unreaped (poll() is None), the launcher's pid is still its group's id: no stranger's group is hit.
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


async def _kill_group_after_grace(session: Session, process: trio.Process) -> None:
    await session.kill_requested.wait()
    await trio.sleep(LAUNCHER_GRACE_S)
    _kill_group(process)


async def _close_on_exit(session: Session, process: trio.Process) -> None:
    """Pending calls (the handshake's too) fail as soon as the process is gone."""
    await process.wait()
    _close_on_end(session, process)


def _close_on_end(session: Session, process: trio.Process) -> None:
    end = _how_it_ended(session, process)
    session.connection.close(end.reason if end.reason != "stopped" else "crashed", end.detail)


async def _kill_after_grace(session: Session) -> None:
    await session.stop_requested.wait()
    await trio.sleep(STOP_GRACE_S)
    session.kill(Fault("stopped", "did not exit when its stdin closed"))


async def _read_answers(session: Session, stdout: trio.abc.ReceiveStream) -> None:
    try:
        await session.connection.read_answers(stdout)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _handshake(spec: LaunchSpec, session: Session) -> None:
    params = {
        "protocol": PROTOCOL_VERSION,
        "pluginId": spec.plugin_id,
        "settings": dict(spec.settings),
        "dataDir": str(spec.data_dir),
        "serverVersion": spec.server_version,
    }
    try:
        answer = await session.connection.call("initialize", params, timeout=HANDSHAKE_TIMEOUT_S, counted=False)
    except PluginCallError as exc:
        if session.fault is None:
            session.kill(Fault("crashed" if exc.reason != "timeout" else "timeout", exc.message))
        raise
    protocol = answer.get("protocol") if isinstance(answer, dict) else None
    if isinstance(protocol, bool) or not isinstance(protocol, int) or protocol < MIN_PROTOCOL_VERSION:
        session.stop()
        raise IncompatiblePlugin(f"the plugin speaks protocol {protocol!r}; this server needs {MIN_PROTOCOL_VERSION}")


def _how_it_ended(session: Session, process: trio.Process) -> SessionEnd:
    if session.fault is not None:
        return SessionEnd(session.fault.kind, session.fault.detail)
    if session.stopping:
        return SessionEnd("stopped", "stopped")
    return SessionEnd("crashed", f"the process exited unexpectedly (exit code {process.returncode})")


async def _pump_stderr(plugin_id: str, stderr: trio.abc.ReceiveStream) -> None:
    """The plugin's stderr to the server log, line by line, bounded in rate and length."""
    buffer = bytearray()
    window_start, logged, dropped = trio.current_time(), 0, 0
    try:
        while chunk := await stderr.receive_some(65536):
            buffer += chunk
            lines = buffer.split(b"\n")
            buffer = bytearray(lines.pop()[-STDERR_LINE_CHARS:])
            for line in lines:
                now = trio.current_time()
                if now - window_start >= 60:
                    if dropped:
                        _log.warning("plugin %s: %d stderr lines dropped", plugin_id, dropped)
                    window_start, logged, dropped = now, 0, 0
                if logged >= STDERR_LINES_PER_MINUTE:
                    dropped += 1
                    continue
                logged += 1
                text = line[:STDERR_LINE_CHARS].decode("utf-8", "replace").rstrip()
                _log.warning("plugin %s: %s", plugin_id, loggable(text))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


def _child_env(spec: LaunchSpec) -> dict[str, str]:
    # Only what a program needs to run: the server's environment may hold secrets.
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env["REELHOUSE_PLUGIN_ID"] = spec.plugin_id
    env["PYTHONUNBUFFERED"] = "1"
    return env
