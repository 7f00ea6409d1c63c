"""The pure rules of a live playback session."""

from __future__ import annotations

import math

import pytest

from reelhouse import errors
from reelhouse.media.playback_session import (
    BandwidthMeter,
    WatchClock,
    check_delivery,
    check_position,
    episode_label,
    wall_ms_at,
)


def test_episode_labels() -> None:
    assert episode_label(1, 4) == "S01E04"
    assert episode_label(12, 104) == "S12E104"
    assert episode_label(None, 3) == "E03"
    assert episode_label(2, None) is None


@pytest.mark.parametrize("position", [-0.001, math.nan, math.inf, 7 * 24 * 3600 + 1])
def test_absurd_positions_are_invalid(position: float) -> None:
    with pytest.raises(errors.Invalid) as refused:
        check_position(position, 0.0)
    assert refused.value.params == {"field": "positionSec"}


def test_a_position_past_ten_times_the_known_duration_is_invalid() -> None:
    check_position(1000.0, 100.0)
    check_position(50_000.0, 0.0)  # duration unknown: only the week bounds it
    with pytest.raises(errors.Invalid):
        check_position(1000.5, 100.0)


def test_delivery_defaults_to_direct_play_and_refuses_unknown_values() -> None:
    assert check_delivery(None) == "direct_play"
    assert check_delivery("redirect") == "redirect"
    with pytest.raises(errors.Invalid) as refused:
        check_delivery("Direct_Play")
    assert refused.value.params["field"] == "delivery"


def test_watch_clock_counts_between_reports_unless_paused() -> None:
    clock = WatchClock(now=0.0, paused=False)
    clock.report(10.0, paused=True)  # 10 s played, then paused
    clock.report(70.0, paused=False)  # a minute of pause
    assert clock.watched(until=75.0) == 15.0
    paused_from_start = WatchClock(now=0.0, paused=True)
    assert paused_from_start.watched(until=100.0) == 0.0


def test_bandwidth_is_the_traffic_of_the_last_thirty_seconds() -> None:
    meter = BandwidthMeter(now=0.0)
    assert meter.kbps(5.0) == 0
    meter.add(5.0, 1_250_000)  # 10,000 kbit
    assert meter.kbps(10.0) == 1000  # over the 10 s since the start
    assert meter.kbps(34.0) == 333  # over the 30 s window
    assert meter.kbps(36.0) == 0  # the batch left the window


def test_wall_time_follows_the_monotonic_clock_from_the_start() -> None:
    assert wall_ms_at(1_000_000, 50.0, 51.5) == 1_001_500
