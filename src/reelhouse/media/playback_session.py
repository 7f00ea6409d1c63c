"""The rules of a live playback session, pure (no I/O, no clock of its own).

Times passed in are ``trio.current_time()`` seconds (monotonic) so that the
actor that owns a session can be driven by a fake clock; wall-clock times
are only derived from them for display (:func:`wall_ms_at`).
"""

from __future__ import annotations

import collections
import math

from reelhouse import errors

# PlayDelivery (the reference, Playback).
DELIVERIES = frozenset({"direct_play", "direct_stream", "audio_transcode", "proxy", "redirect"})
DEFAULT_DELIVERY = "direct_play"
# A reported position past this is absurd whatever the media says.
MAX_POSITION_SECONDS = 7 * 24 * 3600.0
# ... and past this many times the known duration.
MAX_DURATION_FACTOR = 10.0
# bandwidthKbps is the traffic of this last stretch of time.
BANDWIDTH_WINDOW_SECONDS = 30.0


def episode_label(season: int | None, episode: int | None) -> str | None:
    """``S01E04``; ``E04`` for an episode without a season; None without an episode number."""
    if episode is None:
        return None
    if season is None:
        return f"E{episode:02d}"
    return f"S{season:02d}E{episode:02d}"


def check_position(position: float | None, duration_sec: float) -> None:
    """Invalid (400, field ``positionSec``) for a negative, non-finite or absurd position."""
    if position is None:
        return
    if not math.isfinite(position) or position < 0:
        raise errors.Invalid("positionSec must be a finite number of seconds, 0 or more.", field="positionSec")
    too_far = position > MAX_POSITION_SECONDS or (duration_sec > 0 and position > duration_sec * MAX_DURATION_FACTOR)
    if too_far:
        raise errors.Invalid("positionSec is far past the end of the media.", field="positionSec")


def check_delivery(delivery: str | None) -> str:
    """The delivery, ``direct_play`` when omitted; Invalid for a value that is not a PlayDelivery."""
    if delivery is None:
        return DEFAULT_DELIVERY
    if delivery not in DELIVERIES:
        raise errors.Invalid(
            f"delivery must be one of {', '.join(sorted(DELIVERIES))}.",
            field="delivery", params={"allowed": sorted(DELIVERIES)},
        )  # fmt: skip
    return delivery


def wall_ms_at(started_wall_ms: int, started_at: float, at: float) -> int:
    """The wall-clock time (epoch ms) of monotonic time ``at``, for a session started at both."""
    return started_wall_ms + round((at - started_at) * 1000)


class WatchClock:
    """Time played, pauses excluded: it runs from one report to the next unless paused."""

    __slots__ = ("_running_since", "_watched")

    def __init__(self, now: float, paused: bool) -> None:
        self._watched = 0.0
        self._running_since: float | None = None if paused else now

    def report(self, now: float, paused: bool) -> None:
        """A report at ``now``: the time since the last one counts unless it was paused."""
        self._settle(now)
        self._running_since = None if paused else now

    def watched(self, until: float) -> float:
        """Seconds played up to ``until`` (a stop at ``until``)."""
        if self._running_since is None:
            return self._watched
        return self._watched + max(until - self._running_since, 0.0)

    def _settle(self, now: float) -> None:
        self._watched = self.watched(now)


class BandwidthMeter:
    """Bytes sent for a session, as kilobits per second over the last window."""

    __slots__ = ("_batches", "_started", "_total")

    def __init__(self, now: float) -> None:
        self._started = now
        self._batches: collections.deque[tuple[float, int]] = collections.deque()
        self._total = 0

    def add(self, now: float, nbytes: int) -> None:
        if nbytes <= 0:
            return
        self._batches.append((now, nbytes))
        self._total += nbytes
        self._forget(now)

    def kbps(self, now: float) -> int:
        self._forget(now)
        span = min(BANDWIDTH_WINDOW_SECONDS, now - self._started)
        if span <= 0 or not self._total:
            return 0
        return round(self._total * 8 / 1000 / span)

    def _forget(self, now: float) -> None:
        while self._batches and self._batches[0][0] <= now - BANDWIDTH_WINDOW_SECONDS:
            self._total -= self._batches.popleft()[1]
