"""The server's sendfile process (http/edge/file_send.py), stopped and continued with signals.

A stand-in for a network mount that stopped answering mid-body: the
process's threads (the only ones that read a file being sent) stop where
they are, and nothing answers the server's hand-overs until it continues.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
from collections.abc import Iterator

import pytest

from reelhouse.http.edge import file_send

KILL_WAIT_S = 10.0


class SendfileProcess:
    def __init__(self) -> None:
        self._stopped: list[int] = []

    def stop(self) -> None:
        """Stop every sendfile process of the servers running in this process."""
        pids = sendfile_processes()
        assert pids, "no sendfile process is running"
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
            self._stopped.append(pid)

    def kill(self) -> None:
        """Kill every sendfile process of the servers running in this process (SIGKILL)."""
        pids = sendfile_processes()
        assert pids, "no sendfile process is running"
        exits = [os.pidfd_open(pid) for pid in pids]
        try:
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
            # Gone when the kernel next runs it: until its descriptors are closed the server could
            # still hand it a body, which is then cut. Its pidfd becomes readable once it has exited
            # (descriptors closed), as an operator's kill lands long before the next request.
            for exit_fd in exits:
                ready, _, _ = select.select([exit_fd], [], [], KILL_WAIT_S)
                assert ready, f"a killed sendfile process still ran after {KILL_WAIT_S} s"
        finally:
            for exit_fd in exits:
                os.close(exit_fd)

    def resume(self) -> None:
        for pid in self._stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._stopped.clear()


def sendfile_processes() -> list[int]:
    pids = []
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(FileNotFoundError):
            for child in open(f"/proc/self/task/{task}/children").read().split():
                with contextlib.suppress(FileNotFoundError), open(f"/proc/{child}/cmdline", "rb") as cmdline:
                    if file_send.WORKER.name.encode() in cmdline.read():
                        pids.append(int(child))
    return pids


@pytest.fixture
def sendfile_process() -> Iterator[SendfileProcess]:
    process = SendfileProcess()
    yield process
    process.resume()
