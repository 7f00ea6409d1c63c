"""Schedule rules: validation and trigger time math (pure: no I/O, no clock).

A task has rules (the reference's ScheduleRule); each rule says when the
task is due. Times here are aware ``datetime`` values; ``tz`` is the
server time zone, in which cron expressions and windows are read.

Daylight saving: cron times are walked in wall-clock (naive local) time
and each wall time is mapped to an instant with ``fold=0``. A wall time
the clocks skip (02:30 on a spring-forward night) maps to one instant
after the gap, and one a repeated hour shows twice (autumn) is taken once,
the first time: a rule never runs twice, and never not at all, for one
wall time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeGuard
from zoneinfo import ZoneInfo

TRIGGERS = ("cron", "interval", "idle", "continuous", "manual")
MIN_INTERVAL_SECONDS = 300
MAX_INTERVAL_SECONDS = 2_678_400
MINUTES_PER_DAY = 1440
MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
_DAYS = "sun|mon|tue|wed|thu|fri|sat"
_NUMERIC_FIELD = re.compile(r"^[0-9*,/-]+$")
_NAMED_FIELD = {3: re.compile(rf"^(?:[0-9*,/-]|{_MONTHS})+$", re.I), 4: re.compile(rf"^(?:[0-9*,/-]|{_DAYS})+$", re.I)}
# Wall times to walk before giving up finding an instant (a cron that matches
# only a skipped hour, e.g. 02:30 on 29 March, still finds one within years).
_MAX_CRON_STEPS = 10_000


class RuleError(ValueError):
    """An invalid rule: ``code`` is the reference's ``schedule_*`` error code."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


@dataclass(frozen=True, slots=True)
class Window:
    start_minute: int  # inclusive, minutes since midnight, server time
    end_minute: int  # exclusive; less than start crosses midnight

    def contains(self, local: datetime) -> bool:
        minute = local.hour * 60 + local.minute
        if self.start_minute <= self.end_minute:
            return self.start_minute <= minute < self.end_minute
        return minute >= self.start_minute or minute < self.end_minute

    def to_json(self) -> dict[str, int]:
        return {"startMinute": self.start_minute, "endMinute": self.end_minute}


@dataclass(frozen=True, slots=True)
class Rule:
    trigger: str
    after_scan: bool = False
    cron: str | None = None
    every_seconds: int | None = None
    window: Window | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"trigger": self.trigger, "afterScan": self.after_scan}
        if self.cron is not None:
            data["cron"] = self.cron
        if self.every_seconds is not None:
            data["everySeconds"] = self.every_seconds
        if self.window is not None:
            data["window"] = self.window.to_json()
        return data


# --- validation -------------------------------------------------------------


def validate_cron(expression: str) -> str:
    """The expression in five fields (macros expanded); RuleError ``schedule_cron_invalid``."""
    text = " ".join(str(expression).split())
    if text.lower() in MACROS:
        return MACROS[text.lower()]
    fields = text.split(" ")
    if len(fields) != 5:
        raise RuleError("schedule_cron_invalid", "A cron rule has exactly five fields (no seconds, no years).", "cron")
    for index, value in enumerate(fields):
        pattern = _NAMED_FIELD.get(index, _NUMERIC_FIELD)
        if not pattern.match(value):
            raise RuleError("schedule_cron_invalid", f"Cron field {index + 1} ({value!r}) is not supported.", "cron")
    # Imported here: croniter (with dateutil.tz) is the slowest import of
    # `reelhouse --help`, which lists the task names but reads no cron rule.
    from croniter import croniter

    if not croniter.is_valid(text):
        raise RuleError("schedule_cron_invalid", f"{text!r} is not a valid cron expression.", "cron")
    try:
        croniter(text, datetime(2000, 1, 1)).get_next(datetime)
    except Exception:  # croniter raises several types for out-of-range values
        raise RuleError("schedule_cron_invalid", f"{text!r} is not a valid cron expression.", "cron") from None
    return text


def parse_rule(raw: Mapping[str, Any], *, allows_after_scan: bool) -> Rule:
    """A ScheduleRule JSON object as a Rule; RuleError with the reference's code."""
    if not isinstance(raw, Mapping):
        raise RuleError("schedule_rule_invalid", "A rule is a JSON object.")
    trigger = raw.get("trigger")
    if trigger not in TRIGGERS:
        raise RuleError("schedule_rule_invalid", f"trigger must be one of {', '.join(TRIGGERS)}.", "trigger")
    after_scan = raw.get("afterScan", False)
    if not isinstance(after_scan, bool):
        raise RuleError("schedule_rule_invalid", "afterScan must be true or false.", "afterScan")
    if after_scan and not allows_after_scan:
        raise RuleError("schedule_trigger_not_allowed", "This task cannot run after a scan.", "afterScan")
    cron = validate_cron(_required(raw, "cron")) if trigger == "cron" else None
    every = _interval(_required(raw, "everySeconds")) if trigger == "interval" else None
    window = _window(raw["window"]) if raw.get("window") is not None else None
    return Rule(trigger, after_scan, cron, every, window)


def parse_rules(raw: Any, *, allows_after_scan: bool) -> tuple[Rule, ...]:
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise RuleError("schedule_rule_invalid", "rules must be a list of rules.", "rules")
    return tuple(parse_rule(item, allows_after_scan=allows_after_scan) for item in raw)


def parse_window(text: str) -> Window:
    """``HH:MM-HH:MM`` (the command line's form) as a Window."""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})", text.strip())
    if not match:
        raise RuleError("schedule_window_invalid", "A window is HH:MM-HH:MM.", "window")
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if h1 > 23 or h2 > 24 or m1 > 59 or m2 > 59 or (h2 == 24 and m2):
        raise RuleError("schedule_window_invalid", "A window's times are 00:00 to 24:00.", "window")
    return _window({"startMinute": h1 * 60 + m1, "endMinute": h2 * 60 + m2})


def _required(raw: Mapping[str, Any], key: str) -> Any:
    if raw.get(key) is None:
        raise RuleError("schedule_rule_invalid", f"{key} is required for trigger {raw.get('trigger')}.", key)
    return raw[key]


def _interval(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError("schedule_interval_out_of_range", "everySeconds must be a whole number.", "everySeconds")
    if not MIN_INTERVAL_SECONDS <= value <= MAX_INTERVAL_SECONDS:
        raise RuleError("schedule_interval_out_of_range",
                        f"everySeconds must be {MIN_INTERVAL_SECONDS} to {MAX_INTERVAL_SECONDS}.", "everySeconds")
    return value


def _is_minute(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MINUTES_PER_DAY


def _window(raw: Any) -> Window:
    if not isinstance(raw, Mapping):
        raise RuleError("schedule_window_invalid", "window is an object with startMinute and endMinute.", "window")
    start, end = raw.get("startMinute"), raw.get("endMinute")
    if not (_is_minute(start) and _is_minute(end)):
        raise RuleError("schedule_window_invalid", "Window minutes are 0 to 1440.", "window")
    if start == end or start == MINUTES_PER_DAY:
        raise RuleError("schedule_window_invalid", "A window must not be empty.", "window")
    return Window(start, end)


# --- time math ----------------------------------------------------------------


def to_instant(wall: datetime, tz: ZoneInfo) -> datetime:
    """A naive wall time in ``tz`` as a UTC instant (fold=0: the first of a
    repeated time; a skipped time, read with the offset before the gap,
    lands after it: 02:30 in a spring gap is 03:30)."""
    return wall.replace(tzinfo=tz, fold=0).astimezone(UTC)


def next_cron(expression: str, after: datetime, tz: ZoneInfo) -> datetime:
    """The first instant strictly after ``after`` whose wall time in ``tz`` matches."""
    wall = after.astimezone(tz).replace(tzinfo=None, fold=0)
    # Start a little earlier: after the repeated hour, ``after``'s wall time
    # went back, and a time between must not be missed twice.
    from croniter import croniter  # see validate_cron

    walker = croniter(expression, wall - timedelta(hours=2))
    for _ in range(_MAX_CRON_STEPS):
        instant = to_instant(walker.get_next(datetime), tz)
        if instant > after:
            return instant
    raise RuleError("schedule_cron_invalid", f"{expression!r} never comes.", "cron")


def next_window_open(window: Window, at: datetime, tz: ZoneInfo) -> datetime:
    """``at`` when inside the window, else the next instant the window opens."""
    local = at.astimezone(tz)
    if window.contains(local):
        return at
    day = local.replace(tzinfo=None, hour=0, minute=0, second=0, microsecond=0)
    for offset in range(3):
        opening = to_instant(day + timedelta(days=offset, minutes=window.start_minute), tz)
        if opening > at:
            return opening
    raise AssertionError("a window opens within two days")


def window_close(window: Window, at: datetime, tz: ZoneInfo) -> datetime:
    """When the window that ``at`` lies in closes."""
    local = at.astimezone(tz)
    day = local.replace(tzinfo=None, hour=0, minute=0, second=0, microsecond=0)
    for offset in range(3):
        closing = to_instant(day + timedelta(days=offset, minutes=window.end_minute), tz)
        if closing > at:
            return closing
    raise AssertionError("a window closes within two days")


def next_due(rule: Rule, due_from: datetime, tz: ZoneInfo) -> datetime | None:
    """When ``rule`` is next due after ``due_from`` (the last start or rule change).

    None for triggers without a scheduled time (idle, continuous, manual).
    A due time outside the rule's window moves to the window's next opening.
    """
    if rule.trigger == "cron" and rule.cron is not None:
        due = next_cron(rule.cron, due_from, tz)
    elif rule.trigger == "interval" and rule.every_seconds is not None:
        due = due_from + timedelta(seconds=rule.every_seconds)
    else:
        return None
    return next_window_open(rule.window, due, tz) if rule.window is not None else due


def allowed_at(rule: Rule, at: datetime, tz: ZoneInfo) -> bool:
    """Whether a run under ``rule`` may start at ``at`` (inside its window, if any)."""
    return rule.window is None or rule.window.contains(at.astimezone(tz))
