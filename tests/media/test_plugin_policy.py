"""Crash counting: backoff that doubles, disable at the window's limit."""

from __future__ import annotations

from reelhouse.media.plugin_policy import CrashPolicy, CrashWindow


def test_backoff_doubles_up_to_the_cap_and_the_limit_disables() -> None:
    window = CrashWindow(CrashPolicy(max_crashes=4, window=100, base=1, cap=3))
    assert [window.record(t).restart_after for t in (0, 1, 2)] == [1, 2, 3]
    assert window.record(3).disable


def test_crashes_older_than_the_window_are_forgotten() -> None:
    window = CrashWindow(CrashPolicy(max_crashes=2, window=10, base=1, cap=60))
    assert not window.record(0).disable
    decision = window.record(11)
    assert not decision.disable and decision.restart_after == 1
    assert window.record(12).disable
    window.clear()
    assert not window.record(13).disable
