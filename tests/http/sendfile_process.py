"""The server's sendfile process (http/edge/file_send.py), stopped and continued with signals.

A stand-in for a network mount that stopped answering mid-body: the
process's threads (the only ones that read a file being sent) stop where
they are, and nothing answers the server's hand-overs until it continues.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

import pytest

from reelhouse.http.edge import file_send


class SendfileProcess:
    def __init__(self) -> None:
        self._stopped: list[int] = []

    def stop(self) -> None:
        """Stop every sendfile process of the servers running in this process."""
        pids = _sendfile_processes()
        assert pids, "no sendfile process is running"
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
            self._stopped.append(pid)

    def kill(self) -> None:
        """Kill every sendfile process of the servers running in this process (SIGKILL)."""
        pids = _sendfile_processes()
        assert pids, "no sendfile process is running"
        for pid in pids:
            os.kill(pid, signal.SIGKILL)

    def resume(self) -> None:
        for pid in self._stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        self._stopped.clear()


def _sendfile_processes() -> list[int]:
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
