"""RootMonitor: real inotify on tmp_path for the watching itself, fakes for
the mount table and for watchers that fail (see ``watching``)."""

from __future__ import annotations

import errno
import os
import shutil
import threading
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest
import trio

from reelhouse.actors.realtime import RootMonitor, WatchStatus
from reelhouse.actors.realtime.monitor import default_watch_factory
from reelhouse.actors.realtime.watchdog_watch import FileChange

from .watching import (
    CAP,
    LOCAL_MOUNTS,
    Changes,
    make_tree,
    monitor_for,
    nfs_at,
    running,
    seen_after_touching,
    wait_for_status,
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



def test_a_monitor_needs_absolute_roots_and_a_positive_debounce() -> None:
    async def ignore(_: frozenset[Path]) -> None:
        return None

    with pytest.raises(ValueError):
        RootMonitor([], debounce_seconds=1.0, on_changes=ignore)
    with pytest.raises(ValueError):
        RootMonitor([Path("relative")], debounce_seconds=1.0, on_changes=ignore)
    with pytest.raises(ValueError):
        RootMonitor([Path("/abs")], debounce_seconds=0, on_changes=ignore)
