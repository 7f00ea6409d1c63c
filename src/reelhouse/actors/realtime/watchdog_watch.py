"""The RootMonitor's watcher: watchdog's inotify observer, as batches of changes.

watchfiles (Rust ``notify``) will not watch a tree that holds one name that
is not UTF-8 ("Unable to decode path"): that one name switched realtime
monitoring off for its whole root. watchdog watches by bytes and reports
such a name the way ``os.fsdecode`` does (undecodable bytes as surrogates),
which the library turns into path text (``media.file_names``).

:func:`watchdog_factory` is a :data:`~reelhouse.actors.realtime.monitor.WatchFactory`:
it adds the watches before it returns (raising OSError with ``ENOSPC`` or
``EMFILE`` at an inotify limit, which the monitor reports as ``limit``),
then yields an empty batch at once (the watches are established), and
afterwards a batch of the changes gathered within :data:`GROUP_SECONDS` of
the first one, or an empty batch every :data:`TICK_SECONDS` while nothing
changes. A change is a :class:`Change` and the path as ``os`` gives it; a
move is a deletion and an addition; opening, reading and a directory's own
"modified" (an entry added or removed, reported for that entry) are not
changes.
"""

from __future__ import annotations

import enum
import errno
import os
import queue
import threading
import time
import warnings
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers.inotify import InotifyObserver

FileChange = tuple[object, str]
"""One change: (:class:`Change`, the path as ``os`` gives it)."""


class Change(enum.IntEnum):
    """What happened to a path (the values watchfiles used)."""

    added = 1
    modified = 2
    deleted = 3


# watchdog warns when a directory moved back into a watched tree is watched
# again (it replaces its own callback): expected here, and not worth a line
# on the operator's console each time.
warnings.filterwarnings("ignore", message="Callback with id .* already exists", category=RuntimeWarning)

GROUP_SECONDS = 0.2  # changes this close together are handed over as one batch
TICK_SECONDS = 0.1  # an empty batch at least this often, so the caller checks its stop flag and root
STOP_SECONDS = 2.0  # how long closing waits for the observer's threads


def watchdog_factory(
    root: Path, stop: threading.Event, *, exhausted: Callable[[Path], bool]
) -> Iterator[Collection[FileChange]]:
    """Watch ``root`` recursively (blocking: call it from a worker thread).

    ``exhausted(root)`` tells whether no inotify watch is left: watchdog
    skips a subdirectory it cannot watch without a word, so a tree bigger
    than the limit would otherwise pass for watched.
    """
    changes: queue.SimpleQueue[FileChange] = queue.SimpleQueue()
    observer = InotifyObserver(timeout=TICK_SECONDS)
    observer.schedule(_Forward(changes), os.fspath(root), recursive=True)
    observer.start()  # adds every watch here, in this thread; raises at a limit on the root
    if exhausted(root):
        observer.stop()
        observer.join(STOP_SECONDS)
        raise OSError(errno.ENOSPC, "inotify watch limit reached")
    return _batches(observer, changes, stop)


def _batches(
    observer: InotifyObserver, changes: queue.SimpleQueue[FileChange], stop: threading.Event
) -> Iterator[Collection[FileChange]]:
    try:
        yield ()
        while not stop.is_set():
            if not all(emitter.is_alive() for emitter in observer.emitters):
                raise RuntimeError("the inotify watcher stopped")
            yield _gather(changes)
    finally:
        observer.stop()
        observer.join(STOP_SECONDS)


def _gather(changes: queue.SimpleQueue[FileChange]) -> set[FileChange]:
    """The changes of one batch: waits a tick for the first, then a group window."""
    batch: set[FileChange] = set()
    try:
        batch.add(changes.get(timeout=TICK_SECONDS))
    except queue.Empty:
        return batch
    deadline = time.monotonic() + GROUP_SECONDS
    while (left := deadline - time.monotonic()) > 0:
        try:
            batch.add(changes.get(timeout=left))
        except queue.Empty:
            break
    return batch


class _Forward(FileSystemEventHandler):
    """Runs on watchdog's dispatcher thread: events in, changes queued."""

    def __init__(self, changes: queue.SimpleQueue[FileChange]) -> None:
        self._changes = changes

    def on_any_event(self, event: FileSystemEvent) -> None:
        for change in changes_of(event):
            self._changes.put(change)


def changes_of(event: FileSystemEvent) -> list[FileChange]:
    """What one watchdog event means for the monitor."""
    source = os.fsdecode(event.src_path)
    match event.event_type:
        case "created":
            return [(Change.added, source)]
        case "deleted":
            return [(Change.deleted, source)]
        case "moved":
            return [(Change.deleted, source), (Change.added, os.fsdecode(event.dest_path))]
        case "modified" if not event.is_directory:
            return [(Change.modified, source)]
        case "closed":  # closed after writing
            return [(Change.modified, source)]
    return []
