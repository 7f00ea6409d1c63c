"""The server's sendfile process (http/edge/file_send.py), stopped and continued with signals.

A stand-in for a network mount that stopped answering mid-body: the
process's threads (the only ones that read a file being sent) stop where
they are, and nothing answers the server's hand-overs until it continues.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
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
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        # Gone when the kernel next runs it: until its descriptors are closed the server could still
        # hand it a body, which is then cut. Waited for here (a zombie has closed them), as an
        # operator's kill lands long before the next request.
        deadline = time.monotonic() + KILL_WAIT_S
        while not all(_ended(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert all(_ended(pid) for pid in pids), f"a killed sendfile process still ran after {KILL_WAIT_S} s"

    def resume(self) -> None:
        for pid in self._stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._stopped.clear()


def _ended(pid: int) -> bool:
    """The process has exited (a zombie, or reaped): its descriptors are closed."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return True


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
