"""Running as PID 1 (a container's first process): a minimal init.

The first process of a PID namespace gets no signal it has no handler for,
and every orphan in the namespace becomes its child, to be reaped by it or
to stay a zombie. Trio installs its SIGTERM/SIGINT handlers only once it
runs, and it waits only for the children it started. So as PID 1 the
server forks: the first process stays a small init (it forwards the
shutdown signals to the server, reaps every child that ends, and exits with
the server's exit code), and the server runs as its child, with the usual
signal semantics. When the init exits, the kernel ends whatever is left in
the namespace.
"""

from __future__ import annotations

import os
import signal

FORWARDED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def fork_under_init() -> int | None:
    """As PID 1: fork; in the init, the server's exit code once it ended.

    ``None`` means "go on and run the server": this process is not PID 1,
    or it is the server's child side of the fork.
    """
    if os.getpid() != 1:
        return None
    child = os.fork()
    if child == 0:
        return None
    return _supervise(child)


def _supervise(child: int) -> int:
    for signum in FORWARDED_SIGNALS:
        signal.signal(signum, lambda received, _frame: _forward(child, received))
    while True:
        try:
            pid, status = os.wait()  # retried after a signal handler ran (PEP 475)
        except ChildProcessError:
            return 1  # cannot happen while the server runs; be safe
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            return code if code >= 0 else 128 - code


def _forward(child: int, signum: int) -> None:
    try:
        os.kill(child, signum)
    except ProcessLookupError:
        pass  # the server already ended; its status is on its way
