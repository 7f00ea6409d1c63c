"""Waits from outside are clamped to sane seconds, whatever their form."""

from __future__ import annotations

import pytest

from reelhouse.media.durations import MAX_WAIT_SECONDS, MIN_WAIT_SECONDS, wait_seconds

NOW = 1_445_412_480.0  # Wed, 21 Oct 2015 07:28:00 GMT


@pytest.mark.parametrize(("value", "expected"), [
    (42, 42.0),
    (2.5, 2.5),
    ("120", 120.0),
    (" 7 ", 7.0),
    ("1.5", 1.5),
    ("Wed, 21 Oct 2015 07:29:00 GMT", 60.0),
    ("Wed, 21 Oct 2015 07:30:00 -0000", 120.0),
])
def test_a_sane_wait_is_taken_as_it_is(value: object, expected: float) -> None:
    assert wait_seconds(value, now=NOW) == expected


@pytest.mark.parametrize("value", [
    1e30, 10**400, float("inf"), "99999999999999999999", "1e30", "inf", "Fri, 31 Dec 9999 23:59:59 GMT",
])
def test_an_absurdly_long_wait_is_clamped_to_the_maximum(value: object) -> None:
    assert wait_seconds(value, now=NOW) == MAX_WAIT_SECONDS


@pytest.mark.parametrize("value", [0, -5, -1e30, float("-inf"), "-3", "Wed, 21 Oct 2015 07:00:00 GMT"])
def test_a_negative_or_past_wait_is_the_minimum(value: object) -> None:
    assert wait_seconds(value, now=NOW) == MIN_WAIT_SECONDS


@pytest.mark.parametrize("value", [
    None, True, float("nan"), "nan", "", "soon", "Wed, 99 Foo 2015", [60], {"seconds": 60},
])
def test_what_is_no_duration_at_all_is_none(value: object) -> None:
    assert wait_seconds(value, now=NOW) is None
