"""SystemMonitor: health checks and the update check against a local release server."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
import trio

from reelhouse.actors.scan.probe_pool import ProbePool, open_probe_pool
from reelhouse.actors.system_monitor import (
    CheckResult,
    GetSystemReport,
    MonitorConfig,
    SystemMonitor,
    SystemReport,
    UpdateState,
    check_for_update,
    is_newer,
)
from reelhouse.runtime import ActorRef, spawn

from .scan.probe_workers import probe_worker_pids, worker_command


async def serve_release(nursery: trio.Nursery, body: bytes, status: str = "200 OK") -> str:
    """A one-route HTTP server on port 0 answering every request with ``body``."""

    async def handle(stream: trio.SocketStream) -> None:
        await stream.receive_some(65536)
        head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        await stream.send_all(head.encode() + body)
        await stream.aclose()

    listeners = await nursery.start(partial(trio.serve_tcp, handle, 0, host="127.0.0.1"))
    port = listeners[0].socket.getsockname()[1]
    return f"http://127.0.0.1:{port}/release.json"


def _not_checked_yet(report: SystemReport) -> bool:
    return any(c.detail == "not checked yet" for c in report.checks)


def config(tmp_path: Path, url: str = "", version: str = "1.0.0", pool: ProbePool | None = None) -> MonitorConfig:
    return MonitorConfig(probe_pool=pool, data_dir=tmp_path, version=version, release_url=url, update_check_enabled=bool(url))


@pytest.mark.parametrize(
    ("candidate", "current", "newer"),
    [("1.2.0", "1.0.0", True), ("1.0.0", "1.0.0", False), ("0.9.9", "1.0.0", False), ("v2.0", "1.9.9", True), ("9.9.9", "dev", False),
     ("1.10.0", "1.9.0", True), ("2.0", "1.0.0", True), ("1.0.0", "1.0.0-rc.1", True), ("1.0.0rc2", "1.0.0rc1", True),
     ("1.0.0-rc.1", "1.0.0", False), ("1.0.0.post1", "1.0.0", True), ("banana", "1.0.0", False)],
)
def test_is_newer_compares_versions_as_pep_440_and_never_for_dev(candidate: str, current: str, newer: bool) -> None:
    assert is_newer(candidate, current) is newer


async def test_a_newer_release_is_available(nursery: trio.Nursery, tmp_path: Path) -> None:
    doc = {"version": "1.2.0", "publishedAt": "2026-11-01T00:00:00Z", "notesUrl": "https://example.invalid/notes"}
    url = await serve_release(nursery, json.dumps(doc).encode())
    with trio.fail_after(15):
        state = await check_for_update(config(tmp_path, url), UpdateState(enabled=True))
    assert state.available and state.latest_version == "1.2.0" and state.last_error_code is None
    assert state.latest_notes_url == "https://example.invalid/notes" and state.checked_at is not None


async def test_a_dev_build_is_never_offered_an_update(nursery: trio.Nursery, tmp_path: Path) -> None:
    url = await serve_release(nursery, b'{"version": "99.0.0"}')
    with trio.fail_after(15):
        state = await check_for_update(config(tmp_path, url, version="dev"), UpdateState(enabled=True))
    assert state.available is False and state.latest_version == "99.0.0"


async def test_an_invalid_document_keeps_the_last_known_release(nursery: trio.Nursery, tmp_path: Path) -> None:
    url = await serve_release(nursery, b"<html>not json</html>")
    before = UpdateState(enabled=True, available=True, latest_version="1.1.0")
    with trio.fail_after(15):
        state = await check_for_update(config(tmp_path, url), before)
    assert state.last_error_code == "invalid" and state.latest_version == "1.1.0" and state.available


async def test_a_release_whose_version_cannot_be_read_is_invalid_not_offered(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    url = await serve_release(nursery, b'{"version": "the newest one"}')
    with trio.fail_after(15):
        state = await check_for_update(config(tmp_path, url), UpdateState(enabled=True))
    assert state.last_error_code == "invalid" and state.available is False and state.latest_version is None


async def test_an_unreachable_release_server_is_reported(tmp_path: Path) -> None:
    with trio.fail_after(15):
        state = await check_for_update(config(tmp_path, "http://127.0.0.1:9/none"), UpdateState(enabled=True))
    assert state.last_error_code == "unreachable"


async def test_checks_report_a_media_probe_with_library_versions_and_writable_data_dir(tmp_path: Path) -> None:
    async with open_probe_pool(1, timeout=10) as pool, trio.open_nursery() as nursery:
        monitor = await spawn(nursery, SystemMonitor(config(tmp_path, pool=pool)), "system")
        with trio.fail_after(15):
            while _not_checked_yet(report := await monitor.ask(GetSystemReport(), timeout=10)):
                await trio.sleep(0.05)  # a loaded machine may start the worker after on_start gave up waiting
        nursery.cancel_scope.cancel()
    checks = {c.name: c for c in report.checks}
    assert set(checks) == {"mediaProbe", "mediaRoot"}
    assert checks["mediaProbe"].status == "ok", checks["mediaProbe"].detail
    assert checks["mediaProbe"].detail.startswith("PyAV ") and "libavformat " in checks["mediaProbe"].detail
    assert checks["mediaRoot"].status == "ok"
    assert probe_worker_pids() == []


async def test_without_the_probe_at_start_the_first_report_starts_no_probe_worker(tmp_path: Path) -> None:
    async with open_probe_pool(1, timeout=10) as pool, trio.open_nursery() as nursery:
        quiet = replace(config(tmp_path, pool=pool), probe_at_start=False)
        monitor = await spawn(nursery, SystemMonitor(quiet), "system")
        with trio.fail_after(15):
            while (root := await _check(monitor, "mediaRoot")).detail == "not checked yet":
                await trio.sleep(0.05)
            probe = await _check(monitor, "mediaProbe")
            workers = probe_worker_pids()
        nursery.cancel_scope.cancel()
    assert root.status == "ok"
    assert probe.detail == "not checked yet" and workers == []


async def _check(monitor: ActorRef, name: str) -> CheckResult:
    report = await monitor.ask(GetSystemReport(), timeout=10)
    return next(c for c in report.checks if c.name == name)


async def test_a_probe_worker_that_crashes_on_the_sample_fails_the_media_probe_check(tmp_path: Path) -> None:
    async with open_probe_pool(1, timeout=10, command=worker_command(abort_on="sample")) as pool, trio.open_nursery() as nursery:
        monitor = await spawn(nursery, SystemMonitor(config(tmp_path, pool=pool)), "system")
        with trio.fail_after(15):
            while _not_checked_yet(report := await monitor.ask(GetSystemReport(), timeout=10)):
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    check = next(c for c in report.checks if c.name == "mediaProbe")
    assert check.status == "error" and "invalid" in (check.detail or "")


async def test_an_unwritable_data_dir_fails_the_media_root_check(nursery: trio.Nursery, tmp_path: Path) -> None:
    monitor = await spawn(nursery, SystemMonitor(config(tmp_path / "does-not-exist")), "system")
    with trio.fail_after(15):
        report = await monitor.ask(GetSystemReport(), timeout=10)
    media_root = next(c for c in report.checks if c.name == "mediaRoot")
    assert media_root.status == "error"


async def test_a_probe_worker_that_never_starts_does_not_hold_up_the_start(tmp_path: Path, autojump_clock: object) -> None:
    async with open_probe_pool(1, timeout=10, command=worker_command(hang_at_start=True)) as pool, trio.open_nursery() as nursery:
        started = trio.current_time()
        monitor = await spawn(nursery, SystemMonitor(config(tmp_path, pool=pool)), "system")
        assert trio.current_time() - started <= 2.5
        report = await monitor.ask(GetSystemReport(), timeout=10)
        assert next(c for c in report.checks if c.name == "mediaProbe").status == "error"
        nursery.cancel_scope.cancel()
    assert probe_worker_pids() == []
