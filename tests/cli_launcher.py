"""A pre-imported ``reelhouse`` that forks one real process per command-line run (``run_cli``).

Why: a cold ``python -m reelhouse apikey list`` spends most of its CPU
importing (pydantic, trio, the store), and the suite runs a few hundred of
them. This launcher imports the command line's modules once per test
process, then forks a child per run: the child is a real process (its own
pid, stdin/stdout/stderr, environment, working directory, exit code and
signals) that runs ``reelhouse.cli.main`` to an ordinary interpreter exit.

Protocol: the test process holds one end of a SOCK_SEQPACKET pair, the
launcher the other. A run sends one record: JSON ``{argv, env, cwd}`` and
four descriptors (SCM_RIGHTS): the child's stdin, stdout and stderr, and
one end of a fresh socket pair on which the launcher answers the child's
pid, then its exit code (``-N`` for signal N, as subprocess). Closing that
socket before the exit code kills the child (a run's timeout). The
launcher exits, killing its children, when the test process's end closes:
the test process ended, however it ended.

The fork is safe because the launcher never starts trio or a thread
(checked after the imports: it refuses to serve otherwise). Servers fork
from it too (``ServerProcess``, ``run_cli(["serve", ...])``): their stack
(Quart, Hypercorn, psycopg...) is imported at the first ``serve`` run, not
before, so a test process that starts no server does not pay for it; the
server installs its signal handlers (trio's) in the child, as it does cold.
The pid line carries a pidfd (SCM_RIGHTS) for a caller that signals the
child: the pid alone could be reused once the launcher reaped it. Servers
under a ``prefix`` (``unshare``, ``prlimit``) and the tests that prove the
cold start keep ``python -m reelhouse``; REELHOUSE_TEST_COLD_CLI=1 sends
every run there.
"""

from __future__ import annotations

import gc
import json
import os
import random
import selectors
import signal
import socket
import sys
import threading
from typing import Any

MAX_RECORD = 1 << 20  # one run's argv and environment: a few kilobytes
FDS_PER_RUN = 4

# What the commands import when they run.
PRELOAD = ("reelhouse.cli._main", "reelhouse.cli._run", "reelhouse.cli._accounts", "reelhouse.cli._schedule",
           "reelhouse.cli._plugins", "reelhouse.cli._peer_import", "reelhouse.storage._postgres",
           "reelhouse.storage.backup_restore", "reelhouse.actors.maintenance.backup")
# What ``serve`` imports up to its "serving on" line (python -X importtime): imported at the first serve run.
SERVER_PRELOAD = ("reelhouse.server", "importlib.readers", "httpcore", "croniter")


class Child:
    """What a forked child runs: ``argv`` (after the program name)."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv


def serve(control: socket.socket) -> Child | None:
    """Fork a child per run received on ``control`` until it closes; in a child, return what it runs."""
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ, None)
    running: dict[int, tuple[socket.socket, int]] = {}  # pid -> (answer socket, pidfd)
    while True:
        for key, _ in selector.select():
            if key.data is None:
                run = _receive(control)
                # The test process is gone (so are its runs), or the server's imports started a
                # thread: nothing may fork any more, and the runs read "the launcher ended".
                if run is None or (run[0]["argv"][:1] == ["serve"] and not _preload(SERVER_PRELOAD)):
                    for pid in running:
                        os.kill(pid, signal.SIGKILL)
                    return None
                request, fds = run
                pid = os.fork()
                if pid == 0:
                    for other in list(selector.get_map().values()):
                        _close(other.fileobj)
                    selector.close()
                    return _become(request, fds)
                for fd in fds[:3]:
                    os.close(fd)
                answer = socket.socket(fileno=fds[3])
                pidfd = os.pidfd_open(pid)
                running[pid] = (answer, pidfd)
                _send_line(answer, pid, pidfd)
                selector.register(pidfd, selectors.EVENT_READ, ("exited", pid))
                selector.register(answer, selectors.EVENT_READ, ("hung up", pid))
            elif key.data[0] == "exited":
                pid = key.data[1]
                answer, pidfd = running.pop(pid)
                _, status = os.waitpid(pid, 0)
                _send_line(answer, os.waitstatus_to_exitcode(status))
                selector.unregister(pidfd)
                if answer.fileno() in selector.get_map():  # not if the run gave up
                    selector.unregister(answer)
                os.close(pidfd)
                answer.close()
            elif key.data[1] in running:  # the run gave up (its timeout): kill its child, answered when it has exited
                # (not when its child exited in this same round: that answer went out above)
                answer, pidfd = running[key.data[1]]
                selector.unregister(answer)
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)


def _receive(control: socket.socket) -> tuple[dict[str, Any], list[int]] | None:
    data, fds, _flags, _address = socket.recv_fds(control, MAX_RECORD, FDS_PER_RUN)
    if not data:
        return None
    if len(fds) != FDS_PER_RUN:
        raise RuntimeError(f"a run came with {len(fds)} descriptors, not {FDS_PER_RUN}")
    return json.loads(data), fds


def _become(request: dict[str, Any], fds: list[int]) -> Child:
    """In the forked child: the run's descriptors, environment and directory become this process's."""
    for fd, standard in zip(fds[:3], (0, 1, 2), strict=True):
        os.dup2(fd, standard)
        os.close(fd)
    os.close(fds[3])
    # CPython reseeds the random module's generator in a forked child; trio's scheduler shuffles
    # with a Random of its own made at import, which would repeat the launcher's sequence in
    # every child. (The str hash seed stays the launcher's: it cannot change after start-up.)
    trio_run = sys.modules.get("trio._core._run")
    if isinstance(scheduler_random := getattr(trio_run, "_r", None), random.Random):
        scheduler_random.seed()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [sys.argv[0], *request["argv"]]
    return Child(request["argv"])


def _send_line(answer: socket.socket, value: int, fd: int | None = None) -> None:
    # A reader that takes no descriptors (plain recv) has the kernel close the pidfd it was sent.
    try:
        if fd is None:
            answer.sendall(f"{value}\n".encode())
        else:
            socket.send_fds(answer, [f"{value}\n".encode()], [fd])
    except OSError:
        pass  # the run gave up meanwhile: nobody to tell


def _close(fileobj: Any) -> None:
    if isinstance(fileobj, int):
        os.close(fileobj)
    else:
        fileobj.close()


def _preload(names: tuple[str, ...]) -> bool:
    """Import ``names``; False (said on stderr) if that started a thread: then nothing may fork."""
    import importlib

    for name in names:
        importlib.import_module(name)
    if threading.active_count() != 1:  # a fork would copy a thread's locks, not the thread
        print(f"cli_launcher: the imports started threads: {threading.enumerate()}", file=sys.stderr)
        return False
    # The imported objects move to the collector's permanent generation: a child's collections
    # and exit then leave their pages shared, not copied (measured: 0.23 -> 0.06 CPU-s a run).
    gc.freeze()
    return True


def main() -> int:
    control = socket.socket(fileno=int(sys.argv[1]))
    if not _preload(PRELOAD):
        return 1
    child = serve(control)
    if child is None:
        return 0
    from reelhouse.cli import main as reelhouse_main

    return reelhouse_main(child.argv)


if __name__ == "__main__":
    sys.exit(main())
