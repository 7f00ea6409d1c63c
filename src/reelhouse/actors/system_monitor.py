"""SystemMonitor: the slow health checks, measured in the background.

``GET /system/status`` must answer fast even while scans run, so checks that
cost a process start or a directory walk (the ffprobe version, the data
directory's writability, cache sizes, the update check) are measured here on
a period and the latest results are read with an ask. The database check is
live: the HTTP handler pings the store itself.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import trio

from ._runtime import Actor

log = logging.getLogger(__name__)

CHECK_INTERVAL_SECONDS = 60.0
FIRST_MEASUREMENT_WAIT_SECONDS = 2.0
UPDATE_INTERVAL_SECONDS = 6 * 3600.0
FFPROBE_TIMEOUT_SECONDS = 10.0
UPDATE_TIMEOUT_SECONDS = 10.0
MAX_RELEASE_DOCUMENT_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    status: str  # "ok" or "error"
    latency_ms: int
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class CacheStat:
    name: str
    path: str
    status: str  # "ok", "error" or "pending"
    size_bytes: int = 0
    file_count: int = 0
    measured_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class UpdateState:
    enabled: bool
    available: bool = False
    checked_at: datetime | None = None
    last_error_code: str | None = None
    latest_version: str | None = None
    latest_published_at: str | None = None
    latest_notes_url: str | None = None


@dataclass(frozen=True, slots=True)
class SystemReport:
    checks: tuple[CheckResult, ...]
    caches: tuple[CacheStat, ...]
    update: UpdateState


@dataclass(frozen=True, slots=True)
class GetSystemReport:
    """Ask: reply with the latest SystemReport."""


@dataclass(frozen=True, slots=True)
class _Measured:
    checks: tuple[CheckResult, ...]
    caches: tuple[CacheStat, ...]


@dataclass(frozen=True, slots=True)
class _UpdateChecked:
    update: UpdateState


@dataclass(frozen=True, slots=True)
class MonitorConfig:
    ffprobe_path: str
    data_dir: Path
    version: str
    release_url: str = ""
    update_check_enabled: bool = False
    cache_dirs: tuple[tuple[str, Path], ...] = field(default_factory=tuple)


class SystemMonitor(Actor):
    """Owns the latest health measurements; refreshes them on a period."""

    def __init__(self, config: MonitorConfig) -> None:
        self._config = config
        self._checks: tuple[CheckResult, ...] = (
            CheckResult("ffprobe", "error", 0, "not checked yet"),
            CheckResult("mediaRoot", "error", 0, "not checked yet"),
        )
        self._caches = tuple(CacheStat(name, str(path), "pending") for name, path in config.cache_dirs)
        enabled = config.update_check_enabled and bool(config.release_url)
        self._update = UpdateState(enabled=enabled)
        self._started = False

    async def on_start(self) -> None:
        # The first measurement is usually in before the server answers, so
        # a fresh server reports real results; a hanging check (a broken
        # ffprobe) must not hold up the start, so the wait is bounded.
        first = trio.Event()
        self.nursery.start_soon(self._measure_forever, first)
        with trio.move_on_after(FIRST_MEASUREMENT_WAIT_SECONDS):
            await first.wait()
        self._started = True
        if self._update.enabled:
            self.nursery.start_soon(self._check_updates_forever)

    async def handle(self, msg: object) -> object:
        match msg:
            case GetSystemReport():
                return SystemReport(self._checks, self._caches, self._update)
            case _Measured(checks=checks, caches=caches):
                self._checks, self._caches = checks, caches
            case _UpdateChecked(update=update):
                self._update = update
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    async def _measure_forever(self, first: trio.Event) -> None:
        while True:
            checks, caches = await measure(self._config)
            if not self._started:
                # on_start is still waiting for this: the mailbox is not read yet.
                self._checks, self._caches = checks, caches
                first.set()
            else:
                await self.ref.tell(_Measured(checks, caches))
            await trio.sleep(CHECK_INTERVAL_SECONDS)

    async def _check_updates_forever(self) -> None:
        while True:
            update = await check_for_update(self._config, self._update)
            await self.ref.tell(_UpdateChecked(update))
            await trio.sleep(UPDATE_INTERVAL_SECONDS)


async def measure(config: MonitorConfig) -> tuple[tuple[CheckResult, ...], tuple[CacheStat, ...]]:
    checks = (await ffprobe_check(config.ffprobe_path), await media_root_check(config.data_dir))
    caches = tuple([await cache_usage(name, path) for name, path in config.cache_dirs])
    return checks, caches


async def ffprobe_check(ffprobe_path: str) -> CheckResult:
    started = trio.current_time()
    try:
        with trio.fail_after(FFPROBE_TIMEOUT_SECONDS):
            done = await trio.run_process([ffprobe_path, "-version"], capture_stdout=True, capture_stderr=True, check=False)
    except (OSError, trio.TooSlowError) as exc:
        return CheckResult("ffprobe", "error", _ms_since(started), f"ffprobe could not run: {type(exc).__name__}")
    if done.returncode != 0:
        return CheckResult("ffprobe", "error", _ms_since(started), f"ffprobe exited with {done.returncode}")
    first_line = done.stdout.decode("utf-8", "replace").splitlines()[0] if done.stdout else ""
    version = first_line.split(" ")[2] if first_line.startswith("ffprobe version ") else first_line
    return CheckResult("ffprobe", "ok", _ms_since(started), version or "unknown version")


async def media_root_check(data_dir: Path) -> CheckResult:
    started = trio.current_time()
    try:
        await trio.to_thread.run_sync(_write_and_delete_probe_file, data_dir)
    except OSError as exc:
        return CheckResult("mediaRoot", "error", _ms_since(started), f"data directory not writable: {exc.strerror}")
    return CheckResult("mediaRoot", "ok", _ms_since(started), "writable")


def _write_and_delete_probe_file(data_dir: Path) -> None:
    with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".write-check-", delete=True) as f:
        f.write(b"ok")
        f.flush()


async def cache_usage(name: str, path: Path) -> CacheStat:
    try:
        size, count = await trio.to_thread.run_sync(_directory_usage, path)
    except OSError:
        return CacheStat(name, str(path), "error", measured_at=datetime.now(UTC))
    return CacheStat(name, str(path), "ok", size, count, datetime.now(UTC))


def _directory_usage(path: Path) -> tuple[int, int]:
    if not path.exists():
        return 0, 0
    size = count = 0
    for root, _dirs, files in os.walk(path):
        for file_name in files:
            try:
                size += os.stat(os.path.join(root, file_name)).st_size
                count += 1
            except FileNotFoundError:
                continue
    return size, count


async def check_for_update(config: MonitorConfig, previous: UpdateState) -> UpdateState:
    """Fetch the release document; on failure keep the last known release."""
    import httpx  # imported here: only servers with update checks need it

    now = datetime.now(UTC)
    try:
        with trio.fail_after(UPDATE_TIMEOUT_SECONDS):
            async with httpx.AsyncClient(follow_redirects=False) as client:
                response = await client.get(config.release_url)
        response.raise_for_status()
        release = _parse_release(response.content)
    except trio.TooSlowError:
        return replace(previous, checked_at=now, last_error_code="timeout")
    except (httpx.HTTPError, OSError):
        return replace(previous, checked_at=now, last_error_code="unreachable")
    except ValueError:
        return replace(previous, checked_at=now, last_error_code="invalid")
    version, published_at, notes_url = release
    return UpdateState(
        enabled=True,
        available=is_newer(version, config.version),
        checked_at=now,
        latest_version=version,
        latest_published_at=published_at,
        latest_notes_url=notes_url,
    )


def _parse_release(body: bytes) -> tuple[str, str | None, str | None]:
    if len(body) > MAX_RELEASE_DOCUMENT_BYTES:
        raise ValueError("release document too large")
    doc = json.loads(body)
    if not isinstance(doc, dict) or not isinstance(doc.get("version"), str):
        raise ValueError("release document has no version")
    notes = doc.get("notesUrl")
    notes_url = notes if isinstance(notes, str) and notes.startswith("https://") else None
    published = doc.get("publishedAt") if isinstance(doc.get("publishedAt"), str) else None
    return doc["version"], published, notes_url


def is_newer(candidate: str, current: str) -> bool:
    """True when ``candidate`` is a newer release; never for a dev build."""
    if current == "dev":
        return False
    return _version_key(candidate) > _version_key(current)


def _version_key(version: str) -> tuple[int, ...]:
    parts = version.lstrip("v").split("-")[0].split(".")
    return tuple(int(p) if p.isdigit() else 0 for p in parts)


def _ms_since(started: float) -> int:
    return int((trio.current_time() - started) * 1000)
