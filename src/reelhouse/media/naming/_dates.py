"""Air dates in episode names, in the orders people write them.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over ``str``.

Orders, tried in this order (the first valid date wins):

* year first ``2021-03-04`` / ``2021.03.04`` / ``2021 03 04`` (any of
  ``-._ `` between the parts);
* year last ``04.03.2021``: day first, as most of the world (and Kodi and
  Jellyfin) write it; month first (``03.15.2021``) only when day first is
  impossible;
* compact ``20210304`` (year, month, day, standing alone);
* a month name ``4 March 2021``, ``March 4, 2021``, ``4th Mar 2021``.
"""

from __future__ import annotations

import datetime
import re
from typing import NamedTuple

_SEP = r"[-._ ]"
_YEAR = r"((?:19|20)\d{2})"
_YMD_RE = re.compile(rf"(?<!\d){_YEAR}{_SEP}(\d{{1,2}}){_SEP}(\d{{1,2}})(?!\d)")
_DMY_RE = re.compile(rf"(?<![\d.])(\d{{1,2}}){_SEP}(\d{{1,2}}){_SEP}{_YEAR}(?!\d)")
_COMPACT_RE = re.compile(rf"(?<![0-9a-z]){_YEAR}(\d{{2}})(\d{{2}})(?![0-9a-z])", re.IGNORECASE)

MONTHS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        (
            "january jan", "february feb", "march mar", "april apr", "may",
            "june jun", "july jul", "august aug", "september sept sep",
            "october oct", "november nov", "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH_RE = re.compile(
    rf"(?<![a-z0-9]){_ORDINAL}[ ._-]+{_MONTH}[ ._,-]+{_YEAR}(?!\d)", re.IGNORECASE
)
_MONTH_DAY_RE = re.compile(
    rf"(?<![a-z0-9]){_MONTH}[ ._-]+{_ORDINAL},?[ ._-]+{_YEAR}(?!\d)", re.IGNORECASE
)


class DateHit(NamedTuple):
    """Where a date was found in the text, and the date."""

    start: int
    end: int
    date: datetime.date


def find_date(text: str) -> DateHit | None:
    """The first air date in ``text`` by the orders above, or None."""
    for finder in (_year_first, _year_last, _compact, _named):
        hit = finder(text)
        if hit is not None:
            return hit
    return None


def short_date(digits: str) -> datetime.date | None:
    """``170917`` -> 2017-09-17 (YYMMDD, as Korean broadcast releases write
    it, in this century); None when it is not a date."""
    return _valid(2000 + int(digits[:2]), int(digits[2:4]), int(digits[4:6]))


def _valid(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def _year_first(text: str) -> DateHit | None:
    for match in _YMD_RE.finditer(text):
        found = _valid(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        if found is not None:
            return DateHit(match.start(), match.end(), found)
    return None


def _year_last(text: str) -> DateHit | None:
    for match in _DMY_RE.finditer(text):
        first, second, year = int(match.group(1)), int(match.group(2)), int(match.group(3))
        found = _valid(year, second, first) or _valid(year, first, second)
        if found is not None:
            return DateHit(match.start(), match.end(), found)
    return None


def _compact(text: str) -> DateHit | None:
    for match in _COMPACT_RE.finditer(text):
        found = _valid(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        if found is not None:
            return DateHit(match.start(), match.end(), found)
    return None


def _named(text: str) -> DateHit | None:
    if not any(c.isalpha() for c in text):
        return None
    for match in _DAY_MONTH_RE.finditer(text):
        found = _valid(int(match.group(3)), MONTHS[match.group(2).casefold()], int(match.group(1)))
        if found is not None:
            return DateHit(match.start(), match.end(), found)
    for match in _MONTH_DAY_RE.finditer(text):
        found = _valid(int(match.group(3)), MONTHS[match.group(1).casefold()], int(match.group(2)))
        if found is not None:
            return DateHit(match.start(), match.end(), found)
    return None
