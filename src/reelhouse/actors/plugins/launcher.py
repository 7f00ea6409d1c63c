"""The parent of one plugin process: a tiny supervisor, run as its own program.

    python -I -S launcher.py LIFELINE_FD -- PROGRAM ARG...

(stdin, stdout, stderr, working directory and environment are the
plugin's; ``session.py`` starts it in a session and process group of its
own.) It promises that nothing the plugin starts outlives the plugin, and
that the plugin does not outlive the server, whatever the plugin does:

- Its descendants may leave its process group and session (``setsid``)
  and ignore SIGTERM. The launcher is a child subreaper
  (``PR_SET_CHILD_SUBREAPER``): every orphaned descendant becomes its
  child rather than init's, so walking its descendants finds them all, and
  it kills them all (SIGKILL) once the plugin has ended, however it ended.
- The plugin may ignore the end of its stdin and SIGTERM. It gets
  ``PR_SET_PDEATHSIG`` = SIGKILL from this single-threaded launcher, so it
  dies when the launcher does, even by SIGKILL. (The server cannot set it
  itself: trio spawns from worker threads, and the signal fires when the
  spawning *thread* ends, which an idle worker does after seconds.)
- The server's death, even by SIGKILL: the server alone holds the write
  end of the lifeline pipe; when it is gone the kernel closes it, the
  launcher sees the pipe hang up, and kills the plugin and its
  descendants.
- SIGTERM, SIGINT or SIGHUP (the host's kill, after its polite stop by
  closing stdin had its chance): the same, at once.

Why a launcher and not the server as subreaper: a subreaper server would
inherit every orphan of every child it runs (ffprobe, workers), to reap
in the event loop; the launcher confines that to one plugin. It costs one
small interpreter per running plugin: measured here (2 cores, load 17),
10.5 MB resident and 73 ms more before the plugin's exec (median of 11;
2 ms without it), most of it the interpreter's start and ``ctypes``;
standard library only, no site. It exits with the plugin's exit code, or
128 + the signal that ended it.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
from collections.abc import Sequence

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
EXEC_FAILED = 127

_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)


def main(argv: Sequence[str]) -> int:
    lifeline, command = int(argv[1]), list(argv[3:])
    os.set_inheritable(lifeline, False)  # inherited to reach us; the plugin gets none of our pipes
    if not _set(PR_SET_CHILD_SUBREAPER, 1):
        print("plugin launcher: no child subreaper here; descendants that detach may survive", file=sys.stderr)
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)  # the handlers do nothing: the signal's number arrives here
    for signum in (*STOP_SIGNALS, signal.SIGCHLD):
        signal.signal(signum, lambda _signum, _frame: None)
    try:
        plugin = _spawn(command)
    except OSError as exc:
        print(f"plugin launcher: cannot run {command[0]}: {exc.strerror}", file=sys.stderr)
        return EXEC_FAILED
    _let_go_of_stdio()
    status = _wait(plugin, lifeline, wake_read)
    _kill_descendants()
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def _set(option: int, value: int) -> bool:
    return _prctl is not None and _prctl(option, value, 0, 0, 0) == 0


def _spawn(command: list[str]) -> int:
    """Fork and exec the plugin; raises OSError when it cannot be run.

    Not ``subprocess``: importing it doubles this program's start-up, and
    a collected Popen polls (so reaps) the plugin behind our back. The
    exec's error comes back through a close-on-exec pipe, as Popen's does.
    """
    launcher = os.getpid()
    errors_read, errors_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            _set(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != launcher:  # it ended before the line above
                os._exit(EXEC_FAILED)
            signal.set_wakeup_fd(-1)
            for signum in (*STOP_SIGNALS, signal.SIGCHLD, signal.SIGPIPE):  # SIGPIPE: Python ignores it
                signal.signal(signum, signal.SIG_DFL)
            os.execv(command[0], command)
        except OSError as exc:
            os.write(errors_write, str(exc.errno).encode())
        finally:
            os._exit(EXEC_FAILED)
    os.close(errors_write)
    with open(errors_read, "rb") as errors:
        failed = errors.read()
    if failed:
        os.waitpid(pid, 0)
        raise OSError(int(failed), os.strerror(int(failed)))
    return pid


def _let_go_of_stdio() -> None:
    """Only the plugin holds its stdin and stdout: their ends close with it."""
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)


def _wait(plugin: int, lifeline: int, wake: int) -> int:
    """The plugin's wait status, once it ended or was killed for the server's end or a stop signal."""
    poller = select.poll()
    poller.register(lifeline, select.POLLIN)  # a hang-up is always reported
    poller.register(wake, select.POLLIN)
    while True:
        status = _reap(plugin, block=False)
        if status is not None:
            return status
        for fd, _events in poller.poll():
            if fd == lifeline or STOP_SIGNALS.intersection(_drain(wake)):
                os.kill(plugin, signal.SIGKILL)  # not reaped yet: the pid is still the plugin's
                status = _reap(plugin, block=True)
                return signal.SIGKILL if status is None else status


def _drain(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except BlockingIOError:
        return b""


def _reap(plugin: int, *, block: bool) -> int | None:
    """Reap ended children (orphans of the plugin too); the plugin's wait status once it is among them."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return None
        if pid == plugin:
            return status
        if pid == 0:
            return None


def _kill_descendants() -> None:
    """SIGKILL every descendant until none is left: a child dying hands its own children to us."""
    me = os.getpid()
    while True:
        for pid in _descendants(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


if __name__ == "__main__":
    sys.exit(main(sys.argv))
