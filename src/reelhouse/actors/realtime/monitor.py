"""RootMonitor: realtime watching of a library's roots, debounced into rescans.

While a library's ``realtimeMonitor`` is on, its actor runs one
:class:`RootMonitor`. Each root on a file system inotify can watch (see
:mod:`.mount_table`) gets a watcher; changes from all roots are merged
until ``debounce_seconds`` pass quietly (or ``max_wait_seconds`` after the
first, so a tree that never stops changing is still rescanned: see
:mod:`.debounce`), then ``on_changes`` gets the directories to rescan
(:func:`reelhouse.media.changed_dirs.rescan_directories`).
:attr:`RootMonitor.status` is the :class:`~.status.WatchStatus` the library
reports (see :mod:`.status`).

Failed roots are retried: a missing, unreadable, deleted, replaced or
unmounted root every ``retry_seconds``; one that hit the watch limit every
``limit_retry_seconds`` (each attempt walks the whole tree, and the limit
only moves when an administrator raises it). A root watched again after a
failure is rescanned whole: changes made in the gap were not seen.

Each watcher is a blocking iterator of change batches (by default
watchdog's inotify observer, :mod:`.watchdog_watch`) driven by a worker
thread on this monitor's own CapacityLimiter, never a token of Trio's shared
default thread limiter; a stop flag set on cancellation ends it within a
tick. (watchfiles was the watcher until a name that is not UTF-8 turned out
to stop it watching the whole root.)
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path

import trio

from reelhouse.media.changed_dirs import rescan_directories
from reelhouse.media.mounts import WatchSupport

from .debounce import debounce_changes
from .inotify import LIMIT_MESSAGES, inotify_watches_exhausted, watch_limit_kind
from .mount_table import read_mountinfo, root_watch_support
from .status import REASON_WATCH_LIMIT, ROOT_PENDING, ROOT_WATCHING, RootState, WatchStatus, combine
from .watchdog_watch import Change, FileChange, watchdog_factory

log = logging.getLogger(__name__)

MAX_WAIT_FACTOR = 10  # default cap on one debounce window, in debounce periods
ROOT_RETRY_SECONDS = 60.0
LIMIT_RETRY_SECONDS = 600.0
CHANGE_BATCHES_BUFFERED = 64  # beyond this the watcher threads wait; the watcher keeps queueing

WatchFactory = Callable[[Path, threading.Event], Iterator[Collection[FileChange]]]
"""Starts watching a root; called in a worker thread.

Returns a blocking iterator of change batches. Its first item (possibly
empty) means the watches are established, and it should yield an empty
batch at least every few hundred milliseconds while nothing changes. It ends
once the event is set, and raises what the watcher raises (OSError,
RuntimeError). ``close()`` is called on it, if it has one, when watching ends.
"""


def default_watch_factory(root: Path, stop: threading.Event) -> Iterator[Collection[FileChange]]:
    """The default :data:`WatchFactory`: watchdog's inotify observer (see
    :mod:`.watchdog_watch`: unlike watchfiles, it watches trees holding names
    that are not UTF-8)."""
    return watchdog_factory(root, stop, exhausted=inotify_watches_exhausted)


class _Settling:
    """Done once every root has been watched or has failed at least once."""

    def __init__(self, roots: Iterable[Path]) -> None:
        self._waiting = set(roots)
        self._done = trio.Event()
        if not self._waiting:
            self._done.set()

    def settle(self, root: Path) -> None:
        self._waiting.discard(root)
        if not self._waiting:
            self._done.set()

    async def wait(self) -> None:
        await self._done.wait()


class RootMonitor:
    """Watches a library's roots and hands debounced directory sets to ``on_changes``.

    ``roots`` must be absolute (ValueError otherwise, or when empty);
    duplicates are dropped. ``debounce_seconds`` must be positive;
    ``max_wait_seconds`` defaults to :data:`MAX_WAIT_FACTOR` times it.
    ``mountinfo_reader``, ``watch_factory`` and ``limit_probe`` (called after
    batches with additions: True when the watch limit is used up) are
    blocking, run in worker threads, and are replaceable for tests.
    """

    def __init__(
        self,
        roots: Sequence[Path],
        *,
        debounce_seconds: float,
        on_changes: Callable[[frozenset[Path]], Awaitable[None]],
        mountinfo_reader: Callable[[], str] = read_mountinfo,
        watch_factory: WatchFactory = default_watch_factory,
        limit_probe: Callable[[Path], bool] = inotify_watches_exhausted,
        max_wait_seconds: float | None = None,
        retry_seconds: float = ROOT_RETRY_SECONDS,
        limit_retry_seconds: float = LIMIT_RETRY_SECONDS,
    ) -> None:
        normalised = tuple(dict.fromkeys(Path(os.path.normpath(root)) for root in roots))
        if not normalised or not all(root.is_absolute() for root in normalised):
            raise ValueError("a monitor needs one or more absolute roots")
        if debounce_seconds <= 0:
            raise ValueError("debounce_seconds must be positive")
        self._roots = normalised
        self._debounce_seconds = debounce_seconds
        self._max_wait_seconds = max_wait_seconds or debounce_seconds * MAX_WAIT_FACTOR
        self._on_changes = on_changes
        self._mountinfo_reader = mountinfo_reader
        self._watch_factory = watch_factory
        self._limit_probe = limit_probe
        self._retry_seconds = retry_seconds
        self._limit_retry_seconds = limit_retry_seconds
        self._states: dict[Path, RootState] = dict.fromkeys(normalised, ROOT_PENDING)
        # A long-lived thread per watched root, plus one for short jobs.
        self._limiter = trio.CapacityLimiter(len(normalised) + 1)

    @property
    def roots(self) -> tuple[Path, ...]:
        return self._roots

    @property
    def status(self) -> WatchStatus:
        """The current status; ``pending`` until :meth:`run` has started.

        After :meth:`run` has been cancelled it keeps its last value; the
        caller then reports ``disabled``.
        """
        return combine(list(self._states.items()))

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Watch until cancelled; for ``nursery.start``.

        Reports started once every root is watched, found unsupported, or has
        failed once (then :attr:`status` says why). Returns by itself only
        when no root can ever be watched (all unsupported). Watcher failures,
        including the watch limit, are reported in :attr:`status` and logged,
        never raised; exceptions from ``on_changes`` propagate (in an
        ExceptionGroup). Cancellation stops every watcher thread within about
        :data:`.watchdog_watch.TICK_SECONDS`, or, for a watcher still adding watches on a
        large tree, as soon as that is done.
        """
        send, receive = trio.open_memory_channel[frozenset[Path]](CHANGE_BATCHES_BUFFERED)
        settling = _Settling(self._roots)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._debounce, receive)
            async with send:
                for root in self._roots:
                    nursery.start_soon(self._supervise_root, root, send.clone(), settling)
            await settling.wait()
            task_status.started()

    async def _debounce(self, receive: trio.MemoryReceiveChannel[frozenset[Path]]) -> None:
        await debounce_changes(
            receive,
            debounce_seconds=self._debounce_seconds,
            max_wait_seconds=self._max_wait_seconds,
            on_batch=self._deliver,
        )

    async def _deliver(self, changed: frozenset[Path]) -> None:
        # A bulk copy reports every file: fold them off the event loop.
        directories = await trio.to_thread.run_sync(
            rescan_directories, changed, self._roots, limiter=self._limiter
        )
        if directories:
            await self._on_changes(directories)

    async def _supervise_root(
        self, root: Path, send: trio.MemorySendChannel[frozenset[Path]], settling: _Settling
    ) -> None:
        """Watch ``root``, retrying after failures; returns if it is unsupported."""
        async with send:
            first = True
            while True:
                support = await self._support_for(root)
                if not support.supported:
                    self._set_unsupported(root, support)
                    settling.settle(root)
                    return
                delay = await self._watch_root(root, send, settling, rescan_on_start=not first)
                settling.settle(root)
                first = False
                await trio.sleep(delay)

    async def _support_for(self, root: Path) -> WatchSupport:
        return await trio.to_thread.run_sync(
            root_watch_support, root, self._mountinfo_reader, limiter=self._limiter
        )

    def _set_unsupported(self, root: Path, support: WatchSupport) -> None:
        state = RootState("unsupported", support.reason_code, support.message)
        if self._states.get(root) != state:
            log.info("Not watching %s: %s", root, support.message)
        self._states[root] = state

    async def _watch_root(
        self,
        root: Path,
        send: trio.MemorySendChannel[frozenset[Path]],
        settling: _Settling,
        *,
        rescan_on_start: bool,
    ) -> float:
        """Watch ``root`` until its watcher ends; returns the delay before retrying."""

        async def established() -> None:
            if rescan_on_start:
                await send.send(frozenset({root}))
            self._set_watching(root)
            settling.settle(root)

        stop = threading.Event()
        failure: Exception | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_set_when_cancelled, stop)
            try:
                await trio.to_thread.run_sync(
                    self._watch_blocking, root, send, stop, established, limiter=self._limiter
                )
            except Exception as exc:  # any watcher failure is reported, never raised
                failure = exc
            finally:
                nursery.cancel_scope.cancel()
        # The thread ignores cancellation until it has stopped; raise it now.
        await trio.lowlevel.checkpoint()
        if failure is not None:
            return self._record_failure(root, failure)
        return await self._record_gone(root, send)

    def _watch_blocking(
        self,
        root: Path,
        send: trio.MemorySendChannel[frozenset[Path]],
        stop: threading.Event,
        established: Callable[[], Awaitable[None]],
    ) -> None:
        """Worker thread: forward ``root``'s changes until it is stopped, gone or replaced.

        Raises whatever the watcher raises (FileNotFoundError for a missing
        root, OSError/RuntimeError for the watch limit).
        """
        identity = _identity(root)
        if identity is None:
            raise FileNotFoundError(errno.ENOENT, "root does not exist", str(root))
        changes = self._watch_factory(root, stop)
        try:
            first = True
            for batch in changes:
                if first:
                    trio.from_thread.run(established)
                    first = False
                paths = frozenset(Path(path) for _, path in batch)
                if paths:
                    trio.from_thread.run(send.send, paths)
                if _has_additions(batch) and self._limit_probe(root):
                    raise OSError(errno.ENOSPC, "inotify watch limit reached on new directories")
                if stop.is_set() or _identity(root) != identity:
                    return
        finally:
            close = getattr(changes, "close", None)
            if callable(close):
                close()

    def _set_watching(self, root: Path) -> None:
        if self._states.get(root) not in (ROOT_PENDING, ROOT_WATCHING):
            log.info("Watching %s again", root)
        self._states[root] = ROOT_WATCHING

    def _record_failure(self, root: Path, exc: Exception) -> float:
        kind = watch_limit_kind(exc)
        if kind is not None:
            state = RootState("limit", REASON_WATCH_LIMIT, LIMIT_MESSAGES[kind])
            delay = self._limit_retry_seconds
        else:
            state = RootState("unavailable", None, f"not watched ({_describe(exc)}); retrying")
            delay = self._retry_seconds
        if self._states.get(root) != state:
            log.warning("Realtime monitoring of %s stopped: %s (%r)", root, state.message, exc)
        self._states[root] = state
        return delay

    async def _record_gone(
        self, root: Path, send: trio.MemorySendChannel[frozenset[Path]]
    ) -> float:
        """The root was deleted, replaced or unmounted under the watcher."""
        log.warning("Library root %s disappeared; watching it again when it is back", root)
        self._states[root] = RootState("unavailable", None, "disappeared; retrying")
        await send.send(frozenset({root}))
        return self._retry_seconds


async def _set_when_cancelled(stop: threading.Event) -> None:
    try:
        await trio.sleep_forever()
    finally:
        stop.set()


def _has_additions(batch: Collection[FileChange]) -> bool:
    return any(change == Change.added for change, _ in batch)


def _identity(path: Path) -> tuple[int, int] | None:
    """Device and inode of ``path``: a different pair means another directory
    now sits there (recreated, or a mount came or went)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _describe(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
