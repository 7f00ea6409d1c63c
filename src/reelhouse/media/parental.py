"""Parental controls (reference, UserPolicy.parental): the stored rule, normalised and validated.

Pure.  :func:`parse_parental` turns what an admin gives into the one stored
shape (the ``parental`` key of ``users.policy``); every value read back goes
through :func:`parental_of` so a hand-edited row cannot break enforcement.
:func:`parse_window` reads the command line's ``DAYS HH:MM-HH:MM``.

Rule order (reference): ``blockedItems`` first, then ``allowedItems``
(regardless of age, tags and genres; on a series the whole series), then
blocked tags and genres and the age limit.  ``maxAge`` 18 admits every
rating; unrated content counts as its library's ``unratedAge``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from reelhouse.errors import Invalid

MAX_AGES: Final[tuple[int, ...]] = (0, 7, 12, 16, 18)
OLDEST: Final = 18  # maxAge 18 admits every rating
MAX_LIST: Final = 500  # entries per list: a bound, so a rule stays one cheap SQL condition
MAX_NAME_CHARS: Final = 128
MAX_ID_CHARS: Final = 64
MINUTES_PER_DAY: Final = 1440
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_WINDOW = re.compile(r"([0-9]{1,2}):([0-9]{2})-([0-9]{1,2}):([0-9]{2})")


@dataclass(frozen=True, slots=True)
class ParentalWindow:
    days: tuple[int, ...]  # 0 = Sunday; the day the window starts
    start_minute: int
    end_minute: int  # <= start_minute: the window crosses midnight

    def to_json(self) -> dict[str, Any]:
        return {"days": list(self.days), "startMinute": self.start_minute, "endMinute": self.end_minute}


@dataclass(frozen=True, slots=True)
class ParentalControls:
    max_age: int
    blocked_tags: tuple[str, ...] = ()
    blocked_genres: tuple[str, ...] = ()
    blocked_items: tuple[str, ...] = ()
    allowed_items: tuple[str, ...] = ()
    daily_limit_minutes: int = 0
    windows: tuple[ParentalWindow, ...] = ()

    @property
    def limits_age(self) -> bool:
        return self.max_age < OLDEST

    def to_json(self) -> dict[str, Any]:
        return {
            "maxAge": self.max_age,
            "blockedTags": list(self.blocked_tags),
            "blockedGenres": list(self.blocked_genres),
            "blockedItems": list(self.blocked_items),
            "allowedItems": list(self.allowed_items),
            "dailyLimitMinutes": self.daily_limit_minutes,
            "windows": [window.to_json() for window in self.windows],
        }


def parse_parental(raw: object, field: str = "parental") -> ParentalControls:
    """ParentalControls from JSON; 400 ``field_invalid`` (``params.field`` the sub-field) when invalid."""
    if not isinstance(raw, Mapping):
        raise Invalid(f"{field} must be an object.", field=field)
    if "maxAge" not in raw:
        raise Invalid(f"{field}.maxAge is required.", field=f"{field}.maxAge", code="field_required")
    return ParentalControls(
        max_age=_max_age(f"{field}.maxAge", raw["maxAge"]),
        blocked_tags=_names(f"{field}.blockedTags", raw.get("blockedTags", [])),
        blocked_genres=_names(f"{field}.blockedGenres", raw.get("blockedGenres", [])),
        blocked_items=_ids(f"{field}.blockedItems", raw.get("blockedItems", [])),
        allowed_items=_ids(f"{field}.allowedItems", raw.get("allowedItems", [])),
        daily_limit_minutes=_minutes(f"{field}.dailyLimitMinutes", raw.get("dailyLimitMinutes", 0)),
        windows=_windows(f"{field}.windows", raw.get("windows", [])),
    )


def parental_of(policy: Mapping[str, Any]) -> ParentalControls | None:
    """The member's rule from a stored policy; None when there is none."""
    stored = policy.get("parental")
    if not stored:
        return None
    return parse_parental(stored)


def parse_window(days: str, span: str, field: str = "windows") -> ParentalWindow:
    """``0-4,6`` and ``21:00-07:30`` (the command line's --window) as a window."""
    match = _WINDOW.fullmatch(span.strip())
    if match is None:
        raise Invalid(f"{field}: {span!r} is not HH:MM-HH:MM.", field=field)
    h1, m1, h2, m2 = (int(part) for part in match.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
        raise Invalid(f"{field}: {span!r} is not a time of day.", field=field)
    return ParentalWindow(_day_list(days, field), h1 * 60 + m1, h2 * 60 + m2)


def _day_list(text: str, field: str) -> tuple[int, ...]:
    chosen: set[int] = set()
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        try:
            first, last = int(low), int(high or low)
        except ValueError:
            raise Invalid(f"{field}: days {text!r} are not 0-6 lists or ranges.", field=field) from None
        if not 0 <= first <= last <= 6:
            raise Invalid(f"{field}: days {text!r} are not 0-6 lists or ranges.", field=field)
        chosen.update(range(first, last + 1))
    return tuple(sorted(chosen))


def _integer(field: str, raw: object) -> int:
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise Invalid(f"{field} must be an integer.", field=field)
    return raw


def _max_age(field: str, raw: object) -> int:
    if isinstance(raw, bool) or _integer(field, raw) not in MAX_AGES:
        raise Invalid(f"{field} must be one of {', '.join(map(str, MAX_AGES))}.", field=field)
    return _integer(field, raw)


def _minutes(field: str, raw: object) -> int:
    minutes = _integer(field, raw)
    if not 0 <= minutes <= MINUTES_PER_DAY:
        raise Invalid(f"{field} must be 0 to {MINUTES_PER_DAY}.", field=field)
    return minutes


def _strings(field: str, raw: object) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise Invalid(f"{field} must be an array of strings.", field=field)
    if len(raw) > MAX_LIST:
        raise Invalid(f"{field} has more than {MAX_LIST} entries.", field=field)
    return raw


def _names(field: str, raw: object) -> tuple[str, ...]:
    """Tags and genres: trimmed, lowercased, empty and duplicates dropped, sorted."""
    names = {item.strip().lower() for item in _strings(field, raw)} - {""}
    if any(len(name) > MAX_NAME_CHARS for name in names):
        raise Invalid(f"{field}: a name is longer than {MAX_NAME_CHARS} characters.", field=field)
    return tuple(sorted(names))


def _ids(field: str, raw: object) -> tuple[str, ...]:
    ids = {item.strip() for item in _strings(field, raw)} - {""}
    bad = sorted(item for item in ids if not _ID.fullmatch(item))
    if bad:
        raise Invalid(f"{field}: {bad[0]!r} is not an item id.", field=field)
    return tuple(sorted(ids))


def _windows(field: str, raw: object) -> tuple[ParentalWindow, ...]:
    if not isinstance(raw, list) or len(raw) > 7 * 4:
        raise Invalid(f"{field} must be an array of at most 28 windows.", field=field)
    windows = [_window(f"{field}[{index}]", entry) for index, entry in enumerate(raw)]
    unique = {(w.days, w.start_minute, w.end_minute): w for w in windows}
    return tuple(unique[key] for key in sorted(unique))


def _window(field: str, raw: object) -> ParentalWindow:
    if not isinstance(raw, Mapping):
        raise Invalid(f"{field} must be an object.", field=field)
    for key in ("days", "startMinute", "endMinute"):
        if key not in raw:
            raise Invalid(f"{field}.{key} is required.", field=f"{field}.{key}", code="field_required")
    days = raw["days"]
    if not isinstance(days, list) or not days:
        raise Invalid(f"{field}.days must be a non-empty array of 0 to 6.", field=f"{field}.days")
    parsed_days = {_integer(f"{field}.days", day) for day in days}
    if not parsed_days <= set(range(7)):
        raise Invalid(f"{field}.days must be 0 (Sunday) to 6 (Saturday).", field=f"{field}.days")
    start = _integer(f"{field}.startMinute", raw["startMinute"])
    end = _integer(f"{field}.endMinute", raw["endMinute"])
    for name, value in (("startMinute", start), ("endMinute", end)):
        if not 0 <= value < MINUTES_PER_DAY:
            raise Invalid(f"{field}.{name} must be 0 to 1439.", field=f"{field}.{name}")
    return ParentalWindow(tuple(sorted(parsed_days)), start, end)


def inside_windows(windows: tuple[ParentalWindow, ...], local: datetime) -> bool:
    """Whether ``local`` (server time) lies in one of ``windows``; no windows = any time."""
    if not windows:
        return True
    day = (local.weekday() + 1) % 7  # 0 = Sunday, as the reference counts
    minute = local.hour * 60 + local.minute
    for window in windows:
        if window.start_minute < window.end_minute:
            if day in window.days and window.start_minute <= minute < window.end_minute:
                return True
        elif (day in window.days and minute >= window.start_minute) or (
            (day - 1) % 7 in window.days and minute < window.end_minute
        ):
            return True  # crossing midnight: the evening of a listed day, or the next morning
    return False


def window_seconds_left(windows: tuple[ParentalWindow, ...], local: datetime) -> float | None:
    """Seconds from ``local`` (server time) until the window it lies in closes.

    None without windows (any time); 0 outside every window. Of windows
    that hold ``local``, the one closing last counts (a window that
    starts where another ends is not joined to it).
    """
    if not windows:
        return None
    day = (local.weekday() + 1) % 7  # 0 = Sunday, as the reference counts
    minute = local.hour * 60 + local.minute
    now = minute + (local.second + local.microsecond / 1_000_000) / 60
    left = 0.0
    for window in windows:
        end: float | None = None
        if window.start_minute < window.end_minute:
            if day in window.days and window.start_minute <= minute < window.end_minute:
                end = window.end_minute
        elif day in window.days and minute >= window.start_minute:
            end = MINUTES_PER_DAY + window.end_minute  # the next morning
        elif (day - 1) % 7 in window.days and minute < window.end_minute:
            end = window.end_minute
        if end is not None:
            left = max(left, (end - now) * 60)
    return left
