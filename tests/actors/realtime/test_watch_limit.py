"""The inotify watch limit: recognised in watcher errors, probed, and reported
as the ``limit`` status (faked, and for real in a user namespace)."""

from __future__ import annotations

import errno
import logging
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest
import trio

import reelhouse
from reelhouse.actors.realtime import WatchStatus
from reelhouse.actors.realtime.inotify import (
    MAX_USER_WATCHES_PATH,
    inotify_watches_exhausted,
    watch_limit_kind,
)
from reelhouse.actors.realtime.monitor import default_watch_factory
from reelhouse.actors.realtime.status import REASON_WATCH_LIMIT
from reelhouse.actors.realtime.watchdog_watch import FileChange

from .watching import CAP, Changes, make_tree, monitor_for, running, wait_for_status


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



async def test_the_watch_limit_is_reported_logged_and_does_not_stop_the_caller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def at_limit(root: Path, stop: threading.Event) -> Iterator[Collection[FileChange]]:
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monitor = monitor_for([tmp_path], Changes(), watch_factory=at_limit)
    caplog.set_level(logging.WARNING, logger="reelhouse.actors.realtime.monitor")
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

from reelhouse.actors.realtime import RootMonitor

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

