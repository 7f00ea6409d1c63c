"""A plugin's counters for the installed-plugins list: calls and errors over
24 hours, the last success, what the plugin reports (quota, its own codes),
and the pause it asked for after an upstream rate limit.

Windows use ``trio.current_time()`` (minute buckets, so a busy plugin costs
at most 1,440 entries); the times shown (``at``, ``pausedUntil``) are wall
clock. Survives restarts of the process, not of the server.
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass
from typing import Any, Final

import trio

WINDOW_SECONDS: Final = 24 * 3600.0
BUCKET_SECONDS: Final = 60.0
UNITS: Final = frozenset({"count", "bytes", "time"})


@dataclass(frozen=True, slots=True)
class Stat:
    code: str
    value: int
    unit: str
    at_ms: int | None = None


class PluginStats:
    def __init__(self, plugin_id: str) -> None:
        self._plugin_id = plugin_id
        self._buckets: collections.deque[list[float]] = collections.deque()  # [start, calls, errors]
        self._last_success_ms: int | None = None
        self._reported: dict[str, Stat] = {}
        self.paused_until_ms: int | None = None
        # The ProviderErrorCode of the last failed call (InstalledPlugin's
        # lastErrorCode), kept after later successes: the last error it was.
        self.last_error_code: str | None = None

    def record_call(self, *, ok: bool, error_code: str | None = None) -> None:
        now = trio.current_time()
        self._expire(now)
        if not self._buckets or now - self._buckets[-1][0] >= BUCKET_SECONDS:
            self._buckets.append([now, 0, 0])
        bucket = self._buckets[-1]
        bucket[1] += 1
        if not ok:
            bucket[2] += 1
            if error_code not in (None, "crashed"):  # a crash is the PluginActor's to report, with its detail
                self.last_error_code = error_code
        else:
            self._last_success_ms = _wall_ms()

    def pause(self, seconds: float) -> None:
        self.paused_until_ms = _wall_ms() + int(seconds * 1000)

    def report(self, params: dict[str, Any]) -> None:
        """A ``stat`` notification: ``quota`` as is, other codes under the plugin's id."""
        code, value, unit = params.get("code"), params.get("value"), params.get("unit", "count")
        if not isinstance(code, str) or not code or isinstance(value, bool) or not isinstance(value, int):
            return
        if unit not in UNITS:
            return
        if code != "quota":
            code = f"{self._plugin_id}.{code}"
        if code not in self._reported and len(self._reported) >= 32:
            return  # bounded: a plugin cannot grow the list without end
        self._reported[code] = Stat(code, value, unit, _wall_ms())

    def paused_until(self) -> int | None:
        if self.paused_until_ms is not None and self.paused_until_ms <= _wall_ms():
            self.paused_until_ms = None
        return self.paused_until_ms

    def snapshot(self) -> list[Stat]:
        self._expire(trio.current_time())
        calls = int(sum(b[1] for b in self._buckets))
        failed = int(sum(b[2] for b in self._buckets))
        stats = [Stat("calls", calls, "count"), Stat("errors", failed, "count")]
        if self._last_success_ms is not None:
            stats.append(Stat("last-success", 0, "time", self._last_success_ms))
        stats.extend(self._reported[code] for code in sorted(self._reported))
        return stats

    def _expire(self, now: float) -> None:
        while self._buckets and self._buckets[0][0] <= now - WINDOW_SECONDS:
            self._buckets.popleft()


def _wall_ms() -> int:
    return int(time.time() * 1000)
