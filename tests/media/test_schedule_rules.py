"""Schedule rules: validation codes and DST-correct next times (pure)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from reelhouse.media.schedule import (
    Rule,
    RuleError,
    Window,
    next_cron,
    next_due,
    parse_rule,
    parse_window,
    validate_cron,
    window_close,
)

BERLIN = ZoneInfo("Europe/Berlin")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def runs(expression: str, start: datetime, end: datetime) -> list[datetime]:
    times, at = [], start
    while (at := next_cron(expression, at, BERLIN)) < end:
        times.append(at)
    return times


@pytest.mark.parametrize("expression", [
    "0 3 * * 0", "*/15 1-3 * jan-mar mon-fri", "0,30 4 1-7 * SUN", "@daily", "@weekly", "@hourly",
])
def test_standard_five_field_expressions_are_accepted(expression: str) -> None:
    assert len(validate_cron(expression).split()) == 5


@pytest.mark.parametrize("expression", [
    "0 0 * * * *", "0 0 * * * 2026", "0 0 L * *", "0 0 1W * *", "0 0 * * 1#2", "0 0 ? * *",
    "H 3 * * *", "0 3 * *", "61 3 * * *", "@reboot", "0 3 * jan mon-fri-x", "0 mon * * *",
])
def test_seconds_years_and_nonstandard_characters_are_refused(expression: str) -> None:
    with pytest.raises(RuleError) as raised:
        validate_cron(expression)
    assert raised.value.code == "schedule_cron_invalid"


def test_a_wall_time_skipped_by_spring_forward_runs_once_after_the_gap() -> None:
    # Berlin skips 02:00-03:00 on 29 March 2026.
    times = runs("30 2 * * *", utc(2026, 3, 27, 12), utc(2026, 3, 30, 12))
    assert times == [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30), utc(2026, 3, 30, 0, 30)]
    assert times[1].astimezone(BERLIN).hour == 3  # 03:30 CEST, right after the gap


def test_a_repeated_wall_time_in_autumn_runs_once() -> None:
    # Berlin repeats 02:00-03:00 on 25 October 2026.
    times = runs("30 2 * * *", utc(2026, 10, 24, 12), utc(2026, 10, 26, 12))
    assert times == [utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)]


def test_an_hourly_rule_runs_once_per_wall_hour_across_both_changes() -> None:
    spring = runs("0 * * * *", utc(2026, 3, 28, 23), utc(2026, 3, 29, 3))  # 00:00..04:00 CET/CEST
    assert [t.astimezone(BERLIN).hour for t in spring] == [1, 3, 4]
    autumn = runs("0 * * * *", utc(2026, 10, 24, 22), utc(2026, 10, 25, 3))  # 00:00 CEST .. 03:00 CET
    assert [t.astimezone(BERLIN).strftime("%H%z") for t in autumn] == ["01+0200", "02+0200", "03+0100"]


def test_interval_rules_are_bounded_by_the_reference_limits() -> None:
    assert parse_rule({"trigger": "interval", "everySeconds": 300}, allows_after_scan=False).every_seconds == 300
    for bad in (299, 2_678_401, "600", 600.5):
        with pytest.raises(RuleError) as raised:
            parse_rule({"trigger": "interval", "everySeconds": bad}, allows_after_scan=False)
        assert raised.value.code == "schedule_interval_out_of_range"


def test_after_scan_is_refused_where_the_task_does_not_allow_it() -> None:
    with pytest.raises(RuleError) as raised:
        parse_rule({"trigger": "manual", "afterScan": True}, allows_after_scan=False)
    assert raised.value.code == "schedule_trigger_not_allowed"
    assert parse_rule({"trigger": "idle", "afterScan": True}, allows_after_scan=True).after_scan


@pytest.mark.parametrize("raw,code", [
    ({"trigger": "weekly"}, "schedule_rule_invalid"),
    ({"trigger": "cron"}, "schedule_rule_invalid"),
    ({"trigger": "manual", "window": {"startMinute": 60, "endMinute": 60}}, "schedule_window_invalid"),
    ({"trigger": "manual", "window": {"startMinute": -1, "endMinute": 60}}, "schedule_window_invalid"),
])
def test_invalid_rules_carry_the_reference_codes(raw: dict[str, object], code: str) -> None:
    with pytest.raises(RuleError) as raised:
        parse_rule(raw, allows_after_scan=True)
    assert raised.value.code == code


def test_a_due_time_outside_the_window_moves_to_its_opening() -> None:
    rule = Rule("interval", every_seconds=3600, window=parse_window("22:00-02:00"))
    due = next_due(rule, utc(2026, 6, 1, 10), BERLIN)  # 13:00 CEST: outside
    assert due == utc(2026, 6, 1, 20)  # 22:00 CEST
    assert window_close(rule.window, due, BERLIN) == utc(2026, 6, 2, 0)  # 02:00 CEST
    assert Window(1320, 120).contains(datetime(2026, 6, 1, 1, 59))


def test_triggers_without_a_time_have_no_next_run() -> None:
    for trigger in ("idle", "continuous", "manual"):
        assert next_due(Rule(trigger), utc(2026, 1, 1), BERLIN) is None
