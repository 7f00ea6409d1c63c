"""EndedPlayback values for history tests: one default session, changed by keyword."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from reelhouse.media.play_record import EndedPlayback

MINUTE_MS = 60_000
BASE_MS = 1_780_000_000_000  # 2026-05-28T20:26:40Z

_serial = itertools.count(1)

_DEFAULT = EndedPlayback(
    session_id="",
    item_id="item-1",
    member_id="member-1",
    member_name="Ann",
    device_id="device-1",
    device_name="Living room",
    player="Infuse",
    kind="movie",
    title="Arrival",
    episode=None,
    series_id=None,
    season_id=None,
    started_at_ms=BASE_MS,
    ended_at_ms=BASE_MS + 20 * MINUTE_MS,
    duration_sec=6000.0,
    watched_sec=1200.0,
    furthest_sec=1200.0,
    delivery="direct_play",
    ip="192.0.2.7",
)


def ended(**changes: Any) -> EndedPlayback:
    """A session (a fresh ``session_id`` unless given) with ``changes`` applied."""
    changes.setdefault("session_id", f"session-{next(_serial)}")
    return dataclasses.replace(_DEFAULT, **changes)


def after(previous: EndedPlayback, gap_minutes: float, length_minutes: float = 10, **changes: Any) -> EndedPlayback:
    """A session starting ``gap_minutes`` after ``previous`` ended."""
    start = previous.ended_at_ms + int(gap_minutes * MINUTE_MS)
    return ended(started_at_ms=start, ended_at_ms=start + int(length_minutes * MINUTE_MS), **changes)
