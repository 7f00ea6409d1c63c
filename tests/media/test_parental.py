"""ParentalControls: normalised on the way in, every invalid value a 400 naming its field."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from reelhouse.errors import Invalid
from reelhouse.media.member_policy import MemberFacts, allow_download, effective_policy
from reelhouse.media.parental import (
    ParentalWindow,
    inside_windows,
    parental_of,
    parse_parental,
    parse_window,
    window_seconds_left,
)


def test_tags_and_genres_are_lowercased_deduplicated_and_sorted() -> None:
    rule = parse_parental(
        {"maxAge": 12, "blockedTags": [" Gore", "gore", "", "Adult"], "blockedGenres": ["Horror", "HORROR"],
         "blockedItems": ["b", "a", "a"], "allowedItems": [" x "]}
    )  # fmt: skip
    assert rule.blocked_tags == ("adult", "gore")
    assert rule.blocked_genres == ("horror",)
    assert rule.blocked_items == ("a", "b") and rule.allowed_items == ("x",)
    assert rule.to_json() == {
        "maxAge": 12, "blockedTags": ["adult", "gore"], "blockedGenres": ["horror"], "blockedItems": ["a", "b"],
        "allowedItems": ["x"], "dailyLimitMinutes": 0, "windows": [],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({}, "parental.maxAge"),
        ({"maxAge": 13}, "parental.maxAge"),
        ({"maxAge": True}, "parental.maxAge"),
        ({"maxAge": "12"}, "parental.maxAge"),
        ({"maxAge": 12, "blockedTags": "gore"}, "parental.blockedTags"),
        ({"maxAge": 12, "blockedItems": ["../etc"]}, "parental.blockedItems"),
        ({"maxAge": 12, "dailyLimitMinutes": -1}, "parental.dailyLimitMinutes"),
        ({"maxAge": 12, "dailyLimitMinutes": 1441}, "parental.dailyLimitMinutes"),
        ({"maxAge": 12, "windows": [{"days": [7], "startMinute": 0, "endMinute": 10}]}, "parental.windows[0].days"),
        ({"maxAge": 12, "windows": [{"days": [], "startMinute": 0, "endMinute": 10}]}, "parental.windows[0].days"),
        ({"maxAge": 12, "windows": [{"days": [1], "startMinute": 1440, "endMinute": 10}]},
         "parental.windows[0].startMinute"),
        ({"maxAge": 12, "windows": [{"days": [1], "startMinute": 0}]}, "parental.windows[0].endMinute"),
    ],
)
def test_invalid_values_are_400_naming_the_field(raw: Any, field: str) -> None:
    with pytest.raises(Invalid) as raised:
        parse_parental(raw)
    assert raised.value.params["field"] == field
    assert raised.value.code in ("field_invalid", "field_required")


def test_a_window_may_cross_midnight_and_days_take_lists_and_ranges() -> None:
    assert parse_window("1-5", "21:00-07:30") == ParentalWindow((1, 2, 3, 4, 5), 21 * 60, 7 * 60 + 30)
    assert parse_window("0,6", "08:00-20:00").days == (0, 6)
    assert parse_window("5,0-1", "00:00-23:59").days == (0, 1, 5)


@pytest.mark.parametrize(("days", "span"), [("7", "08:00-09:00"), ("a", "08:00-09:00"), ("3-1", "08:00-09:00"),
                                            ("1", "24:00-09:00"), ("1", "8-9"), ("1", "08:60-09:00")])
def test_malformed_command_line_windows_are_refused(days: str, span: str) -> None:
    with pytest.raises(Invalid):
        parse_window(days, span)


def test_windows_are_normalised_deduplicated_and_sorted() -> None:
    window = {"days": [3, 1, 1], "startMinute": 60, "endMinute": 30}
    rule = parse_parental({"maxAge": 18, "windows": [window, window]})
    assert rule.to_json()["windows"] == [{"days": [1, 3], "startMinute": 60, "endMinute": 30}]


def facts(policy: dict[str, Any], *, admin: bool = False) -> MemberFacts:
    return MemberFacts(admin, False, False, policy, ())


def test_downloads_are_off_under_parental_controls_unless_allowed() -> None:
    controlled = {"parental": {"maxAge": 12}}
    assert allow_download(facts(controlled)) is False
    assert allow_download(facts({**controlled, "allowDownload": True})) is True
    assert allow_download(facts(controlled, admin=True)) is True
    assert allow_download(facts({})) is True


def test_the_effective_policy_shows_the_normalised_rule() -> None:
    policy = effective_policy(facts({"parental": {"maxAge": 7, "blockedTags": ["B", "a"]}}), [])
    assert policy["parental"]["blockedTags"] == ["a", "b"] and policy["parental"]["maxAge"] == 7
    assert "parental" not in effective_policy(facts({}), [])
    assert parental_of({}) is None


def at(day: int, hh: int, mm: int) -> datetime:
    """A moment on weekday ``day`` (0 = Sunday): 2026-11-29 is a Sunday."""
    return datetime(2026, 11, 29, hh, mm) + timedelta(days=day)


def test_windows_admit_their_minutes_and_one_crossing_midnight_runs_into_the_next_morning() -> None:
    evening = (ParentalWindow((5,), 20 * 60, 7 * 60),)  # Friday 20:00 to Saturday 07:00
    assert inside_windows(evening, at(5, 22, 0)) and inside_windows(evening, at(6, 6, 59))
    assert not inside_windows(evening, at(6, 7, 0)) and not inside_windows(evening, at(5, 19, 59))
    assert not inside_windows(evening, at(4, 23, 0)) and not inside_windows(evening, at(0, 6, 0))
    day = (ParentalWindow((0, 6), 8 * 60, 20 * 60),)
    assert inside_windows(day, at(0, 8, 0)) and not inside_windows(day, at(0, 20, 0))
    assert not inside_windows(day, at(1, 12, 0))
    assert inside_windows((), at(3, 3, 3))


def test_the_time_left_in_a_window_runs_to_its_end_and_across_midnight_to_the_next_morning() -> None:
    evening = (ParentalWindow((5,), 20 * 60, 7 * 60),)  # Friday 20:00 to Saturday 07:00
    assert window_seconds_left(evening, at(5, 22, 0)) == 9 * 3600
    assert window_seconds_left(evening, at(6, 6, 30)) == 30 * 60
    assert window_seconds_left(evening, at(6, 7, 0)) == 0
    day = (ParentalWindow((0,), 8 * 60, 20 * 60), ParentalWindow((0,), 19 * 60, 21 * 60))
    assert window_seconds_left(day, at(0, 19, 30)) == 90 * 60  # the window closing last counts
    assert window_seconds_left((), at(3, 3, 3)) is None
