"""RootMonitor: real inotify on tmp_path for the watching itself, fakes for
the mount table and for watchers that fail, autojump_clock for the debouncer.

Tests with real watchers use real time (inotify is real) with a short
debounce, and every wait is capped with ``trio.fail_after``.
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio

import reelhouse
from reelhouse.actors.monitor import (
    MAX_USER_WATCHES_PATH,
    REASON_WATCH_LIMIT,
    WATCH_DISABLED,
    FileChange,
    RootMonitor,
    WatchStatus,
    debounce_changes,
    default_watch_factory,
    disabled_status,
    inotify_watches_exhausted,
    rescan_directories,
    watch_limit_kind,
)

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


# --- rescan_directories ----------------------------------------------------


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        (["/lib/Movies/Heat/heat.mkv"], ["/lib/Movies/Heat"]),
        (["/lib/a.mkv"], ["/lib"]),
        (  # siblings stay separate
            ["/lib/Shows/A/S01/e1.mkv", "/lib/Shows/B/e2.mkv"],
            ["/lib/Shows/A/S01", "/lib/Shows/B"],
        ),
        (  # a deleted directory and its deleted contents: the directory's parent
            ["/lib/Movies/Heat", "/lib/Movies/Heat/heat.mkv", "/lib/Movies/Heat/poster.jpg"],
            ["/lib/Movies"],
        ),
        (  # nested results fold into the outermost
            ["/lib/Shows/A/S01/e1.mkv", "/lib/Shows/A/tvshow.nfo", "/lib/Shows/A/S02/e1.mkv"],
            ["/lib/Shows/A"],
        ),
        (["/lib"], ["/lib"]),  # the root itself changed: the root, not its parent
        (["/elsewhere/file.mkv", "/libx/file.mkv"], []),  # outside every root
        (["/lib2/Films/f.mkv", "/lib/x.mkv"], ["/lib2/Films", "/lib"]),
    ],
)
def test_rescan_directories_are_parents_folded_to_the_outermost_within_roots(
    changed: list[str], expected: list[str]
) -> None:
    roots = [Path("/lib"), Path("/lib2")]
    assert rescan_directories((Path(p) for p in changed), roots) == frozenset(
        Path(p) for p in expected
    )


# --- watch_limit_kind -------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (OSError(errno.ENOSPC, "inotify watch limit reached"), "watches"),
        (
            OSError(
                "OS file watch limit reached. (Error { kind: MaxFilesWatch, paths: [\"/m\"] })"
            ),
            "watches",
        ),
        (RuntimeError("error in underlying watcher: OS file watch limit reached."), "watches"),
        (RuntimeError("No space left on device (os error 28)"), "watches"),
        (OSError(errno.EMFILE, "Too many open files"), "instances"),
        (
            RuntimeError("Error creating recommended watcher: Too many open files (os error 24)"),
            "instances",
        ),
        (FileNotFoundError(errno.ENOENT, "No such file or directory"), None),
        (PermissionError("Permission denied (os error 13)"), None),
        (ValueError("watch limit"), None),  # not a watcher error type
    ],
)
def test_watch_limit_kind_recognises_inotify_limits(
    exc: BaseException, kind: str | None
) -> None:
    assert watch_limit_kind(exc) == kind


def test_disabled_status_is_the_disabled_state() -> None:
    assert WATCH_DISABLED == WatchStatus("disabled", None, None)
    assert disabled_status("scans suspended") == WatchStatus("disabled", None, "scans suspended")


# --- debounce_changes (virtual time) -----------------------------------------


async def run_debouncer(
    nursery: trio.Nursery, *, debounce: float = 1.0, max_wait: float = 10.0
) -> tuple[trio.MemorySendChannel[frozenset[Path]], Changes]:
    send, receive = trio.open_memory_channel[frozenset[Path]](10)
    changes = Changes()
    nursery.start_soon(
        lambda: debounce_changes(
            receive, debounce_seconds=debounce, max_wait_seconds=max_wait, on_batch=changes
        )
    )
    return send, changes


async def test_debounce_merges_batches_that_arrive_within_the_quiet_period(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        send, changes = await run_debouncer(nursery, debounce=1.0)
        await send.send(frozenset({Path("/a")}))
        await trio.sleep(0.9)
        await send.send(frozenset({Path("/b")}))
        await trio.sleep(0.9)
        await send.send(frozenset({Path("/c")}))
        assert await changes.next() == {Path("/a"), Path("/b"), Path("/c")}
        await send.send(frozenset({Path("/d")}))
        assert await changes.next() == {Path("/d")}
        assert len(changes.calls) == 2
        nursery.cancel_scope.cancel()


async def test_debounce_waits_for_quiet_before_delivering(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        send, changes = await run_debouncer(nursery, debounce=1.0)
        await send.send(frozenset({Path("/a")}))
        await trio.sleep(0.5)
        assert changes.calls == []
        await trio.sleep(1.0)
        assert changes.calls == [{Path("/a")}]
        nursery.cancel_scope.cancel()


async def test_debounce_delivers_a_never_quiet_stream_at_the_cap(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        send, changes = await run_debouncer(nursery, debounce=1.0, max_wait=5.0)
        sent = 0
        while not changes.calls:
            await send.send(frozenset({Path(f"/f{sent}")}))
            sent += 1
            await trio.sleep(0.5)
            assert sent < 100, "a constantly changing tree was never delivered"
        assert changes.calls[0] <= {Path(f"/f{i}") for i in range(sent)}
        nursery.cancel_scope.cancel()


async def test_debounce_flushes_pending_changes_when_the_channel_ends(
    autojump_clock: trio.testing.MockClock,
) -> None:
    send, receive = trio.open_memory_channel[frozenset[Path]](10)
    changes = Changes()
    async with send:
        await send.send(frozenset({Path("/a")}))
    await debounce_changes(receive, debounce_seconds=1.0, max_wait_seconds=10.0, on_batch=changes)
    assert changes.calls == [{Path("/a")}]


# --- RootMonitor with real watchers -------------------------------------------


def monitor_for(roots: Iterable[Path], changes: Changes, **kwargs: object) -> RootMonitor:
    kwargs.setdefault("mountinfo_reader", local_mounts)
    return RootMonitor(
        list(roots), debounce_seconds=DEBOUNCE, on_changes=changes, **kwargs  # type: ignore[arg-type]
    )


async def test_changes_in_nested_directories_arrive_as_one_set_of_directories(
    tmp_path: Path,
) -> None:
    make_tree(tmp_path, "Movies/Heat/heat.mkv", "Shows/A/S01/e1.mkv", "Shows/B/e1.mkv", "x.nfo")
    changes = Changes()
    monitor = monitor_for([tmp_path], changes)
    async with running(monitor):
        assert monitor.status == WatchStatus("watching")
        (tmp_path / "Movies/Heat/heat.srt").write_text("new")  # added
        (tmp_path / "Shows/A/S01/e1.mkv").write_text("changed")  # modified
        (tmp_path / "Shows/B/e1.mkv").unlink()  # deleted
        assert await changes.next() == {
            tmp_path / "Movies/Heat",
            tmp_path / "Shows/A/S01",
            tmp_path / "Shows/B",
        }
        # The next change is a window of its own: nothing was left over.
        (tmp_path / "x.nfo").write_text("changed")
        assert await changes.next() == {tmp_path}
    assert len(changes.calls) == 2


async def test_a_deleted_directory_rescans_its_parent(tmp_path: Path) -> None:
    make_tree(tmp_path, "Shows/A/S01/e1.mkv", "Shows/A/S01/e2.mkv", "Shows/A/S02/e1.mkv")
    changes = Changes()
    async with running(monitor_for([tmp_path], changes)):
        shutil.rmtree(tmp_path / "Shows/A/S01")
        assert await changes.next() == {tmp_path / "Shows/A"}


async def test_a_new_directory_tree_rescans_where_it_was_added(tmp_path: Path) -> None:
    make_tree(tmp_path, "Movies/old/old.mkv")
    changes = Changes()
    async with running(monitor_for([tmp_path], changes)):
        make_tree(tmp_path, "Movies/Alien (1979)/extras/trailer.mkv", "Movies/Alien (1979)/a.mkv")
        assert await changes.next() == {tmp_path / "Movies"}


async def test_a_tree_holding_names_that_are_not_utf8_is_watched(tmp_path: Path) -> None:
    cafe = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"Caf\xe9 (2001)")))
    make_tree(cafe, "Caf\udce9 (2001).mkv")
    make_tree(tmp_path, "Heat/heat.mkv")
    changes = Changes()
    monitor = monitor_for([tmp_path], changes)
    async with running(monitor):
        assert monitor.status == WatchStatus("watching")
        (cafe / "new\udcff.mkv").write_text("x")
        assert await changes.next() == {cafe}  # the os form; the library stores it as path text


async def test_changes_from_several_roots_share_a_window(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    make_tree(first, "a/f.mkv")
    make_tree(second, "b/g.mkv")
    changes = Changes()
    async with running(monitor_for([first, second], changes)):
        (first / "a/new.mkv").write_text("x")
        (second / "b/new.mkv").write_text("x")
        assert await changes.next() == {first / "a", second / "b"}


async def test_cancellation_stops_the_watchers_promptly(tmp_path: Path) -> None:
    closed = threading.Event()
    stops: list[threading.Event] = []

    def recording_factory(root: Path, stop: threading.Event) -> Iterator[Collection[FileChange]]:
        stops.append(stop)
        try:
            yield from default_watch_factory(root, stop)
        finally:
            closed.set()

    # A broken monitor would leave its thread running forever: stop it from
    # here after a while, so the test fails instead of hanging.
    watchdog = threading.Timer(3.0, lambda: [stop.set() for stop in stops])
    monitor = monitor_for([tmp_path], Changes(), watch_factory=recording_factory)
    try:
        watchdog.start()
        with trio.fail_after(CAP) as cap:
            async with trio.open_nursery() as nursery:
                await nursery.start(monitor.run)
                assert monitor.status.state == "watching"
                cap.deadline = trio.current_time() + 1.0
                nursery.cancel_scope.cancel()
    finally:
        watchdog.cancel()
    assert closed.is_set()  # the watcher thread has finished, not been abandoned


async def test_a_root_that_disappears_is_reported_and_watched_again_when_back(
    tmp_path: Path,
) -> None:
    stays, goes = tmp_path / "stays", tmp_path / "goes"
    make_tree(stays, "a/f.mkv")
    make_tree(goes, "b/g.mkv")
    changes = Changes()
    monitor = monitor_for([stays, goes], changes, retry_seconds=0.2)
    async with running(monitor):
        shutil.rmtree(goes)
        await changes.until(lambda batch: goes in batch)
        status = await wait_for_status(monitor, lambda s: s.message is not None)
        assert status.state == "watching"
        assert str(goes) in (status.message or "")

        (stays / "a/new.mkv").write_text("x")
        await changes.until(lambda batch: stays / "a" in batch)

        make_tree(goes, "c/h.mkv")
        await changes.until(lambda batch: goes in batch)  # back: rescanned whole
        await wait_for_status(monitor, lambda s: s == WatchStatus("watching"))
        await seen_after_touching(changes, goes / "c")


async def test_a_root_replaced_by_another_directory_is_watched_anew(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    make_tree(root, "a/f.mkv")
    changes = Changes()
    monitor = monitor_for([root], changes, retry_seconds=0.2)
    async with running(monitor):
        root.rename(tmp_path / "lib.old")
        make_tree(root, "b/g.mkv")
        # Only a watcher on the new directory can see this.
        await seen_after_touching(changes, root / "b")
        assert monitor.status == WatchStatus("watching")


async def test_a_root_missing_at_start_is_pending_until_it_appears(tmp_path: Path) -> None:
    root = tmp_path / "later"
    changes = Changes()
    monitor = monitor_for([root], changes, retry_seconds=0.2)
    async with running(monitor):
        assert monitor.status.state == "pending"
        assert str(root) in (monitor.status.message or "")
        make_tree(root, "a/f.mkv")
        assert await changes.next() == {root}
        await wait_for_status(monitor, lambda s: s == WatchStatus("watching"))


async def test_without_a_mount_table_roots_are_assumed_local(tmp_path: Path) -> None:
    def no_proc() -> str:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "/proc/self/mountinfo")

    changes = Changes()
    monitor = monitor_for([tmp_path], changes, mountinfo_reader=no_proc)
    async with running(monitor):
        assert monitor.status == WatchStatus("watching")


# --- unsupported file systems ---------------------------------------------------


def refusing_factory(calls: list[Path]) -> object:
    def factory(root: Path, stop: threading.Event) -> Iterator[Collection[FileChange]]:
        calls.append(root)
        raise AssertionError("no watcher may start on an unsupported file system")

    return factory


async def test_a_root_on_a_network_file_system_is_unsupported_and_not_watched(
    tmp_path: Path,
) -> None:
    started: list[Path] = []
    monitor = monitor_for(
        [tmp_path / "Movies"],
        Changes(),
        mountinfo_reader=lambda: nfs_at(tmp_path),
        watch_factory=refusing_factory(started),
    )
    assert monitor.status.state == "pending"
    with trio.fail_after(CAP):
        await monitor.run()  # nothing to watch: returns by itself
    status = monitor.status
    assert (status.state, status.reason_code) == ("unsupported", "network_fs")
    assert "nfs4" in (status.message or "")
    assert started == []


async def test_a_symlinked_root_is_classified_by_where_it_points(tmp_path: Path) -> None:
    (tmp_path / "nas").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "nas")
    started: list[Path] = []
    monitor = monitor_for(
        [tmp_path / "link"],
        Changes(),
        mountinfo_reader=lambda: nfs_at(tmp_path / "nas"),
        watch_factory=refusing_factory(started),
    )
    with trio.fail_after(CAP):
        await monitor.run()
    assert monitor.status.reason_code == "network_fs"
    assert started == []


async def test_a_fuse_root_is_unsupported_for_an_unknown_reason(tmp_path: Path) -> None:
    table = LOCAL_MOUNTS + f"46 22 0:49 / {tmp_path} rw - fuse.mergerfs a:b rw\n"
    monitor = monitor_for([tmp_path], Changes(), mountinfo_reader=lambda: table)
    with trio.fail_after(CAP):
        await monitor.run()
    assert (monitor.status.state, monitor.status.reason_code) == ("unsupported", "unknown")


async def test_local_roots_are_watched_beside_an_unsupported_one(tmp_path: Path) -> None:
    local, nas = tmp_path / "local", tmp_path / "nas"
    make_tree(local, "a/f.mkv")
    nas.mkdir()
    changes = Changes()
    monitor = monitor_for([local, nas], changes, mountinfo_reader=lambda: nfs_at(nas))
    async with running(monitor):
        status = monitor.status
        assert (status.state, status.reason_code) == ("watching", None)
        assert str(nas) in (status.message or "") and "network" in (status.message or "")
        (local / "a/new.mkv").write_text("x")
        assert await changes.next() == {local / "a"}


# --- the inotify watch limit ------------------------------------------------------


async def test_the_watch_limit_is_reported_logged_and_does_not_stop_the_caller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def at_limit(root: Path, stop: threading.Event) -> Iterator[Collection[FileChange]]:
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monitor = monitor_for([tmp_path], Changes(), watch_factory=at_limit)
    caplog.set_level(logging.WARNING, logger="reelhouse.actors.monitor")
    async with running(monitor) as nursery:
        status = monitor.status
        assert (status.state, status.reason_code) == ("limit", REASON_WATCH_LIMIT)
        assert MAX_USER_WATCHES_PATH in (status.message or "")
        await trio.sleep(0.05)  # the caller keeps running beside the monitor
        assert not nursery.cancel_scope.cancel_called
    assert any(
        record.levelno == logging.WARNING and "limit" in record.getMessage()
        for record in caplog.records
    )


async def test_the_watch_limit_hit_while_watching_turns_the_status_to_limit(
    tmp_path: Path,
) -> None:
    events: queue.Queue[BaseException | None] = queue.Queue()

    def scripted(root: Path, stop: threading.Event) -> Iterator[Collection[FileChange]]:
        yield set()  # established
        while not stop.is_set():
            try:
                item = events.get(timeout=0.05)
            except queue.Empty:
                yield set()
                continue
            if item is not None:
                raise item

    monitor = monitor_for([tmp_path], Changes(), watch_factory=scripted)
    async with running(monitor):
        assert monitor.status == WatchStatus("watching")
        events.put(RuntimeError("error in underlying watcher: OS file watch limit reached."))
        status = await wait_for_status(monitor, lambda s: s.state == "limit")
        assert status.reason_code == REASON_WATCH_LIMIT


async def test_the_limit_on_one_root_outranks_watching_others(tmp_path: Path) -> None:
    ok, big = tmp_path / "ok", tmp_path / "big"
    ok.mkdir()
    big.mkdir()

    def limit_on_big(root: Path, stop: threading.Event) -> Iterator[Collection[FileChange]]:
        if root == big:
            raise OSError("OS file watch limit reached. (Error { kind: MaxFilesWatch })")
        return default_watch_factory(root, stop)

    changes = Changes()
    monitor = monitor_for([ok, big], changes, watch_factory=limit_on_big)
    async with running(monitor):
        status = monitor.status
        assert (status.state, status.reason_code) == ("limit", REASON_WATCH_LIMIT)
        assert str(big) in (status.message or "") and str(ok) not in (status.message or "")
        (ok / "new.mkv").write_text("x")
        assert await changes.next() == {ok}


async def test_a_new_directory_beyond_the_watch_limit_turns_the_status_to_limit(
    tmp_path: Path,
) -> None:
    # The watcher drops watches it cannot add for new directories silently;
    # the probe after each batch with additions is what reports it.
    exhausted = threading.Event()
    make_tree(tmp_path, "a/f.mkv")
    changes = Changes()
    monitor = monitor_for([tmp_path], changes, limit_probe=lambda root: exhausted.is_set())
    async with running(monitor):
        (tmp_path / "a/g.mkv").write_text("x")
        assert await changes.next() == {tmp_path / "a"}
        assert monitor.status == WatchStatus("watching")
        exhausted.set()
        (tmp_path / "b").mkdir()
        status = await wait_for_status(monitor, lambda s: s.state == "limit")
        assert status.reason_code == REASON_WATCH_LIMIT
        assert MAX_USER_WATCHES_PATH in (status.message or "")


def test_inotify_watches_exhausted_is_false_with_watches_to_spare(tmp_path: Path) -> None:
    assert inotify_watches_exhausted(tmp_path) is False


KERNEL_LIMIT_SCRIPT = """
import sys
from pathlib import Path

import trio

from reelhouse.actors.monitor import RootMonitor

async def main(root: Path, grow: int) -> None:
    async def ignore(directories): pass
    monitor = RootMonitor(
        [root], debounce_seconds=0.05, on_changes=ignore,
        mountinfo_reader=lambda: "22 1 259:2 / / rw - ext4 /dev/sda1 rw\\n",
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(monitor.run)
        for i in range(grow):
            (root / f"new{i}").mkdir()
        with trio.move_on_after(3):
            while grow and monitor.status.state != "limit":
                await trio.sleep(0.02)
        print(monitor.status.state, monitor.status.reason_code)
        nursery.cancel_scope.cancel()

trio.run(main, Path(sys.argv[1]), int(sys.argv[2]))
"""

# Lowers the inotify watch limit in a private user namespace (Linux 5.11+):
# nothing outside the test process sees it.
WITH_WATCH_LIMIT = 'echo "$1" > /proc/sys/user/max_inotify_watches && shift && exec "$@"'


async def run_with_watch_limit(limit: int, *command: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(Path(reelhouse.__file__).parents[1])}
    unshare = ["unshare", "--user", "--map-root-user", "sh", "-c", WITH_WATCH_LIMIT, "sh"]
    with trio.fail_after(CAP * 2):
        return await trio.run_process(
            [*unshare, str(limit), *command], capture_stdout=True, capture_stderr=True,
            check=False, env=env,
        )


@pytest.fixture
async def kernel_watch_limit() -> None:
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = await run_with_watch_limit(1, "true")
    if probe.returncode != 0:
        pytest.skip(f"cannot lower the watch limit in a user namespace: {probe.stderr!r}")


@pytest.mark.parametrize(
    ("limit", "grow"),
    [
        (10, 0),  # the tree needs more watches than allowed from the start
        (45, 30),  # watched, then new directories take it over the limit
    ],
)
async def test_the_kernel_watch_limit_is_reported_as_limit(
    tmp_path: Path, kernel_watch_limit: None, limit: int, grow: int
) -> None:
    make_tree(tmp_path, *(f"d{i}/f.mkv" for i in range(30)))
    result = await run_with_watch_limit(
        limit, sys.executable, "-c", KERNEL_LIMIT_SCRIPT, str(tmp_path), str(grow)
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().split() == ["limit", REASON_WATCH_LIMIT]


def test_a_monitor_needs_absolute_roots_and_a_positive_debounce() -> None:
    async def ignore(_: frozenset[Path]) -> None:
        return None

    with pytest.raises(ValueError):
        RootMonitor([], debounce_seconds=1.0, on_changes=ignore)
    with pytest.raises(ValueError):
        RootMonitor([Path("relative")], debounce_seconds=1.0, on_changes=ignore)
    with pytest.raises(ValueError):
        RootMonitor([Path("/abs")], debounce_seconds=0, on_changes=ignore)
