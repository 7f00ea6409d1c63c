"""SystemMonitor: the slow health checks, measured in the background.

``GET /system/status`` must answer fast even while scans run, so checks that
cost a process or a directory walk (a media probe of a small embedded
sample in the probe workers, the data directory's writability, cache
sizes, the update check) are measured here on
a period and the latest results are read with an ask. The database check is
live: the HTTP handler pings the store itself.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import os
import tempfile
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import trio
from packaging.version import InvalidVersion, Version

from reelhouse.runtime import Actor, Ask

from .scan.probe_pool import ProbePool

log = logging.getLogger(__name__)

CHECK_INTERVAL_SECONDS = 60.0
FIRST_MEASUREMENT_WAIT_SECONDS = 2.0
UPDATE_INTERVAL_SECONDS = 6 * 3600.0
MEDIA_PROBE_TIMEOUT_SECONDS = 10.0
MEDIA_PROBE_SAMPLE_NAME = ".media-probe-sample.mkv"  # in the data directory
# One black 16x16 MPEG-4 frame in Matroska (531 bytes, made with ffmpeg -bitexact).
MEDIA_PROBE_SAMPLE = base64.b64decode(
    """
GkXfo6NChoEBQveBAULygQRC84EIQoKIbWF0cm9za2FCh4EEQoWBAhhTgGcBAAAAAAAB3xFNm3TA
v4RFUJp4TbuLU6uEFUmpZlOsgaFNu4tTq4QWVK5rU6yBzE27jFOrhBJUw2dTrIIBQ027jFOrhBxT
u2tTrIIBw+wBAAAAAAAAUwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFUmpZqa/hFqKZDUq17GD
D0JATYCETGF2ZldBhExhdmZEiYhAj0AAAAAAABZUrmvyv4SWZuiArgEAAAAAAABj14EBc8WIAAAA
AAAAAAGcgQAitZyDdW5kiIEAho9WX01QRUc0L0lTTy9BU1CDgQEj44OEO5rKAOCJsIEQuoEQmoEC
Y6KeAAABsAEAAAG1iRMAAAEAAAABIADEjYgADQCEAhRjElTDZ9a/hLI6nbFzc81jwItjxYgAAAAA
AAAAAWfIl0Wjh0VOQ09ERVJEh4pMYXZjIG1wZWc0Z8iiRaOIRFVSQVRJT05Eh5QwMDowMDowMS4w
MDAwMDAwMDAAAB9DtnWgv4TFBuqX54EAo5WBAACAAAABswAQBwAAAbYWBRgj234cU7trl7+EZD0P
ZbuPs4EAt4r3gQHxggGe8IEJ
"""
)
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
class GetSystemReport(Ask["SystemReport"]):
    """Ask: reply with the latest SystemReport."""


@dataclass(frozen=True, slots=True)
class CacheMeasured:
    """Tell: a cache measured anew (after it was cleared); replaces that cache's entry."""

    cache: CacheStat


@dataclass(frozen=True, slots=True)
class _Measured:
    checks: tuple[CheckResult, ...]
    caches: tuple[CacheStat, ...]


@dataclass(frozen=True, slots=True)
class _UpdateChecked:
    update: UpdateState


@dataclass(frozen=True, slots=True)
class MonitorConfig:
    probe_pool: ProbePool | None
    data_dir: Path
    version: str
    release_url: str = ""
    update_check_enabled: bool = False
    cache_dirs: tuple[tuple[str, Path], ...] = field(default_factory=tuple)
    probe_at_start: bool = True  # False: the first sample probe waits for the second measurement


_NOT_CHECKED_PROBE = CheckResult("mediaProbe", "error", 0, "not checked yet")


class SystemMonitor(Actor):
    """Owns the latest health measurements; refreshes them on a period."""

    def __init__(self, config: MonitorConfig) -> None:
        self._config = config
        self._checks: tuple[CheckResult, ...] = (
            _NOT_CHECKED_PROBE,
            CheckResult("mediaRoot", "error", 0, "not checked yet"),
        )
        self._caches = tuple(CacheStat(name, str(path), "pending") for name, path in config.cache_dirs)
        enabled = config.update_check_enabled and bool(config.release_url)
        self._update = UpdateState(enabled=enabled)
        self._started = False

    async def on_start(self) -> None:
        # The first measurement is usually in before the server answers, so
        # a fresh server reports real results; a hanging check (a probe
        # worker that does not start) must not hold up the start, so the
        # wait is bounded.
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
            case CacheMeasured(cache=cache):
                self._caches = tuple(cache if c.name == cache.name else c for c in self._caches)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    async def _measure_forever(self, first: trio.Event) -> None:
        probe = self._config.probe_at_start
        while True:
            checks, caches = await measure(self._config, probe=probe)
            probe = True
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


async def measure(
    config: MonitorConfig, *, probe: bool = True
) -> tuple[tuple[CheckResult, ...], tuple[CacheStat, ...]]:
    """The checks and cache sizes; without ``probe``, mediaProbe stays "not checked yet" (no worker is started)."""
    media = await media_probe_check(config.probe_pool, config.data_dir) if probe else _NOT_CHECKED_PROBE
    checks = (media, await media_root_check(config.data_dir))
    caches = tuple([await cache_usage(name, path) for name, path in config.cache_dirs])
    return checks, caches


async def media_probe_check(pool: ProbePool | None, data_dir: Path) -> CheckResult:
    """Probe the embedded sample in the probe workers, as a scan would.

    ``latencyMs`` is that probe's time (a worker's start-up included when
    none was running); the detail names PyAV's and FFmpeg's versions.
    """
    started = trio.current_time()
    if pool is None:
        return CheckResult("mediaProbe", "error", 0, "no probe workers")
    try:
        sample = await trio.to_thread.run_sync(_write_probe_sample, data_dir)
    except OSError:
        return CheckResult("mediaProbe", "error", _ms_since(started), "the probe sample could not be written")
    with trio.move_on_after(MEDIA_PROBE_TIMEOUT_SECONDS):
        (probed,) = await pool.probe([str(sample)])
        if probed.result is None:
            return CheckResult("mediaProbe", "error", _ms_since(started), f"the probe sample failed ({probed.failure})")
        return CheckResult("mediaProbe", "ok", _ms_since(started), _versions(pool.versions))
    return CheckResult("mediaProbe", "error", _ms_since(started), "the probe sample took too long")


def _write_probe_sample(data_dir: Path) -> Path:
    path = data_dir / MEDIA_PROBE_SAMPLE_NAME
    try:
        if path.read_bytes() == MEDIA_PROBE_SAMPLE:
            return path
    except OSError:
        pass
    with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".media-probe-", delete=False) as f:
        f.write(MEDIA_PROBE_SAMPLE)
    os.replace(f.name, path)
    return path


def _versions(versions: dict[str, str]) -> str:
    parts = [f"PyAV {versions.get('av', '?')}", f"FFmpeg {versions.get('ffmpeg', '?')}"]
    if "libavformat" in versions:
        parts.append(f"libavformat {versions['libavformat']}")
    return ", ".join(parts)


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
            # Made in a worker thread: its SSL context loads the CA bundle (tens of ms of CPU).
            client = await trio.to_thread.run_sync(functools.partial(httpx.AsyncClient, follow_redirects=False))
            async with client:
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
    Version(doc["version"])  # InvalidVersion (a ValueError) for a version PEP 440 cannot read
    notes = doc.get("notesUrl")
    notes_url = notes if isinstance(notes, str) and notes.startswith("https://") else None
    published = doc.get("publishedAt") if isinstance(doc.get("publishedAt"), str) else None
    return doc["version"], published, notes_url


def is_newer(candidate: str, current: str) -> bool:
    """True when ``candidate`` is a newer release (PEP 440 order: 1.0.0 is newer than
    1.0.0rc1); never for a dev build or a version that cannot be read."""
    if current == "dev":
        return False
    try:
        return Version(candidate) > Version(current)
    except InvalidVersion:
        return False


def _ms_since(started: float) -> int:
    return int((trio.current_time() - started) * 1000)
