"""Shared by the realtime monitor's tests: the ``on_changes`` recorder, fake
mount tables, a running monitor, and a tree of files.

Tests with real watchers use real time (inotify is real) with a short
debounce, and every wait is capped with ``trio.fail_after``.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from reelhouse.actors.realtime import RootMonitor, WatchStatus

DEBOUNCE = 0.1
CAP = 5.0  # seconds any single real-time wait may take before the test fails
LOCAL_MOUNTS = "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"


def local_mounts() -> str:
    return LOCAL_MOUNTS


def nfs_at(path: Path) -> str:
    return LOCAL_MOUNTS + f"41 22 0:44 / {path} rw,relatime - nfs4 nas:/media rw,vers=4.2\n"


class Changes:
    """The ``on_changes`` callback: records every call and lets a test await the next."""

    def __init__(self) -> None:
        self.calls: list[frozenset[Path]] = []
        self._send, self._receive = trio.open_memory_channel[frozenset[Path]](100)

    async def __call__(self, directories: frozenset[Path]) -> None:
        self.calls.append(directories)
        self._send.send_nowait(directories)

    async def next(self) -> frozenset[Path]:
        with trio.fail_after(CAP):
            return await self._receive.receive()

    async def until(self, predicate: Callable[[frozenset[Path]], bool]) -> frozenset[Path]:
        """The first call from now on that satisfies ``predicate``."""
        with trio.fail_after(CAP):
            while not predicate(batch := await self._receive.receive()):
                pass
        return batch


async def seen_after_touching(changes: Changes, directory: Path) -> None:
    """Write files in ``directory`` until a window reports exactly it.

    For a watcher that is being re-established: writes made before it is in
    place are not seen, and the whole-root rescan pushed when it comes back
    may swallow one of them.
    """
    with trio.fail_after(CAP):
        for attempt in itertools.count():
            (directory / f"touch-{attempt}.mkv").write_text("x")
            with trio.move_on_after(4 * DEBOUNCE):
                while await changes.next() != {directory}:
                    pass
                return


@asynccontextmanager
async def running(monitor: RootMonitor) -> AsyncIterator[trio.Nursery]:
    async with trio.open_nursery() as nursery:
        with trio.fail_after(CAP):
            await nursery.start(monitor.run)
        yield nursery
        nursery.cancel_scope.cancel()


async def wait_for_status(monitor: RootMonitor, predicate: object) -> WatchStatus:
    assert callable(predicate)
    with trio.fail_after(CAP):
        while not predicate(monitor.status):
            await trio.sleep(0.02)
    return monitor.status


def make_tree(root: Path, *relative: str) -> None:
    for path in relative:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x")



def monitor_for(roots: Iterable[Path], changes: Changes, **kwargs: object) -> RootMonitor:
    kwargs.setdefault("mountinfo_reader", local_mounts)
    return RootMonitor(
        list(roots), debounce_seconds=DEBOUNCE, on_changes=changes, **kwargs  # type: ignore[arg-type]
    )

