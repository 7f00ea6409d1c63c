"""Conditional and range requests (RFC 9110 sections 13 and 14), decided on headers.

Pure functions over header strings, no web framework: a route computes the
representation's strong ETag, last-modified time and length, then asks
:func:`evaluate` what to answer and serves that.

Order of evaluation (RFC 9110 13.2.2):

1. ``If-Match`` (strong comparison; ``*`` matches, the representation
   exists): no match -> 412. Without it, ``If-Unmodified-Since``: modified
   after the date -> 412.
2. ``If-None-Match`` (weak comparison; ``*`` matches): match -> 304 for GET
   and HEAD, 412 otherwise. Without it, and for GET/HEAD only,
   ``If-Modified-Since``: not modified since the date -> 304.
3. ``Range``, GET only (the RFC defines ranges for GET alone, so HEAD gets
   the full 200 headers). ``If-Range`` must match the strong ETag or equal
   the last-modified date exactly, else the range is ignored (200). Only
   one ``bytes`` range is served: several ranges get the full 200 (no
   multipart/byteranges; every client we serve asks for one range). A
   malformed header or another unit is ignored (200). An empty
   representation ignores ranges (200: there is no byte to point at).
   A range starting at or past the end, or a zero suffix, is 416 with
   ``Content-Range: bytes */length``.

Invalid dates in any header are ignored, as if the header were absent.
Dates compare at whole seconds, the resolution of HTTP dates.

Dates are written by ``werkzeug.http.http_date``.  The rest of ``werkzeug.http``
was measured against this module's cases (tests/http/test_conditional.py) and
is kept out where it answers otherwise:
``parse_date`` takes 5 of the 11 non-HTTP-dates there ("... UTC", "+0000",
no seconds; RFC 9110 13.1.3 says to ignore them); ``parse_etags`` matches
unquoted tags (``If-Match: v1``, ``W/v1``); ``parse_range_header`` ignores
``bytes=-0`` and an over-long position (RFC: 416) and its
``range_for_length`` refuses a suffix longer than the representation (RFC:
all of it).  Speed decides nothing here: ``evaluate`` costs ~3 us without
conditional headers, ~12 us with ``If-None-Match`` (``parse_etags`` alone ~3 us).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from werkzeug.datastructures import Headers

OK = 200
PARTIAL_CONTENT = 206
NOT_MODIFIED = 304
PRECONDITION_FAILED = 412
RANGE_NOT_SATISFIABLE = 416

_MAX_DIGITS = 18
_SAFE_FOR_304 = frozenset({"GET", "HEAD"})
_ASKING = frozenset({"if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "if-range", "range"})
_ETAG = re.compile(r'(W/)?"([^"]*)"')
_BYTE_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_LONG_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TIME = r"(\d{2}):(\d{2}):(\d{2})"
_IMF_FIXDATE = re.compile(rf"^({'|'.join(_DAYS)}), (\d{{2}}) ([a-z]{{3}}) (\d{{4}}) {_TIME} gmt$")
_RFC850_DATE = re.compile(rf"^({'|'.join(_LONG_DAYS)}), (\d{{2}})-([a-z]{{3}})-(\d{{2}}) {_TIME} gmt$")
_ASCTIME_DATE = re.compile(rf"^({'|'.join(_DAYS)}) ([a-z]{{3}}) ([ \d]\d) {_TIME} (\d{{4}})$")


@dataclass(frozen=True, slots=True)
class Decision:
    """What to answer.

    ``status`` is one of 200, 206, 304, 412, 416. For 206, ``start`` and
    ``end`` are the inclusive byte offsets to send and ``content_range`` the
    ``Content-Range`` value; for 416, ``content_range`` is ``bytes */length``.
    """

    status: int
    start: int | None = None
    end: int | None = None
    content_range: str | None = None

    @property
    def length(self) -> int | None:
        """Bytes in the 206 body, else None."""
        if self.start is None or self.end is None:
            return None
        return self.end - self.start + 1


_OK = Decision(OK)


def evaluate(
    headers: Mapping[str, str] | Headers,
    etag: str,
    last_modified: datetime | None,
    length: int,
    method: str = "GET",
) -> Decision:
    """Decide the answer to a request for a representation.

    ``etag`` is the representation's strong entity tag, quoted (``"abc"``);
    ``last_modified`` is its modification time (naive means UTC; None when
    unknown: date conditions are then ignored and ``If-Range`` dates never
    match); ``length`` its size in bytes. Header names are looked up
    case-insensitively. Raises ValueError only for a bad ``etag``/``length``.
    """
    own_tag = _own_tag(etag)
    if length < 0:
        raise ValueError("length must not be negative")
    asked = _asking(headers)
    if not asked:
        return _OK
    modified = _seconds(last_modified) if last_modified is not None else None
    method = method.upper()
    precondition = _preconditions(asked, own_tag, modified, method)
    if precondition is not None:
        return Decision(precondition)
    if method != "GET" or not _if_range_holds(asked, own_tag, modified):
        return _OK
    return _range(asked.get("range"), length)


def _asking(headers: Mapping[str, str] | Headers) -> dict[str, str]:
    """The conditional and range headers, by lower-case name (the first of a repeated one).

    One pass over the headers: most requests carry none of them.
    """
    asked: dict[str, str] = {}
    for key, value in headers.items():
        name = key.lower()
        if name in _ASKING and name not in asked:
            asked[name] = value
    return asked


def parse_http_date(text: str) -> datetime | None:
    """An aware UTC datetime from any of the three HTTP date formats, else None.

    Accepts IMF-fixdate, the obsolete RFC 850 form (a two-digit year more
    than 50 years ahead means the previous century) and asctime. Day names
    are not checked against the date; impossible dates give None.
    """
    text = text.strip().lower()
    for pattern, parts in (
        (_IMF_FIXDATE, _imf_parts),
        (_RFC850_DATE, _rfc850_parts),
        (_ASCTIME_DATE, _asctime_parts),
    ):
        match = pattern.match(text)
        if match is not None:
            return _build_date(*parts(match.groups()))
    return None


def _preconditions(asked: dict[str, str], own_tag: str, modified: datetime | None, method: str) -> int | None:
    if_match = asked.get("if-match")
    if if_match is not None:
        if not _list_matches(if_match, own_tag, weak=False):
            return PRECONDITION_FAILED
    else:
        since = _header_date(asked, "if-unmodified-since")
        if since is not None and modified is not None and modified > since:
            return PRECONDITION_FAILED
    if_none_match = asked.get("if-none-match")
    if if_none_match is not None:
        if _list_matches(if_none_match, own_tag, weak=True):
            return NOT_MODIFIED if method in _SAFE_FOR_304 else PRECONDITION_FAILED
    elif method in _SAFE_FOR_304:
        since = _header_date(asked, "if-modified-since")
        if since is not None and modified is not None and modified <= since:
            return NOT_MODIFIED
    return None


def _if_range_holds(asked: dict[str, str], own_tag: str, modified: datetime | None) -> bool:
    value = asked.get("if-range")
    if value is None:
        return True
    value = value.strip()
    tag = _ETAG.fullmatch(value)
    if tag is not None:
        return tag.group(1) is None and tag.group(2) == own_tag
    date = parse_http_date(value)
    return date is not None and modified is not None and date == modified


def _range(value: str | None, length: int) -> Decision:
    if value is None or length == 0:
        return _OK
    match = _BYTE_RANGE.match(value)
    if match is None:  # malformed, another unit, or several ranges
        return Decision(OK)
    first, last = match.groups()
    if first:
        start = _position(first)
        end = _position(last) if last else length - 1
        if last and end < start:  # an invalid range-spec: the header is ignored
            return Decision(OK)
        if start >= length:
            return _unsatisfiable(length)
        end = min(end, length - 1)
    elif last:
        suffix = _position(last)
        if suffix == 0:
            return _unsatisfiable(length)
        start, end = max(0, length - suffix), length - 1
    else:
        return Decision(OK)
    return Decision(PARTIAL_CONTENT, start, end, f"bytes {start}-{end}/{length}")


def _position(digits: str) -> int:
    # Beyond any real length; also keeps int() clear of its digit limit.
    return int(digits) if len(digits) <= _MAX_DIGITS else 10**_MAX_DIGITS


def _unsatisfiable(length: int) -> Decision:
    return Decision(RANGE_NOT_SATISFIABLE, content_range=f"bytes */{length}")


def _list_matches(value: str, own_tag: str, *, weak: bool) -> bool:
    """Whether an If-Match/If-None-Match list matches; malformed members never do."""
    if value.strip() == "*":
        return True
    for member in _members(value):
        tag = _ETAG.fullmatch(member.strip())
        if tag is not None and tag.group(2) == own_tag and (weak or tag.group(1) is None):
            return True
    return False


def _members(value: str) -> list[str]:
    """A list header split at commas outside quotes (an entity tag may hold a comma)."""
    members: list[str] = []
    start, quoted = 0, False
    for index, char in enumerate(value):
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            members.append(value[start:index])
            start = index + 1
    members.append(value[start:])
    return members


def _own_tag(etag: str) -> str:
    match = _ETAG.fullmatch(etag.strip())
    if match is None or match.group(1) is not None:
        raise ValueError(f"not a strong entity tag: {etag!r}")
    return match.group(2)


def _header_date(asked: dict[str, str], name: str) -> datetime | None:
    value = asked.get(name)
    return parse_http_date(value) if value is not None else None


def _seconds(value: datetime) -> datetime:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).replace(microsecond=0)


def _imf_parts(groups: tuple[str, ...]) -> tuple[str, str, str, str, str, str]:
    _day_name, day, month, year, hour, minute, second = groups
    return year, month, day, hour, minute, second


def _rfc850_parts(groups: tuple[str, ...]) -> tuple[str, str, str, str, str, str]:
    _day_name, day, month, short_year, hour, minute, second = groups
    this_year = datetime.now(UTC).year
    year = this_year - this_year % 100 + int(short_year)
    if year > this_year + 50:
        year -= 100
    return str(year), month, day, hour, minute, second


def _asctime_parts(groups: tuple[str, ...]) -> tuple[str, str, str, str, str, str]:
    _day_name, month, day, hour, minute, second, year = groups
    return year, month, day, hour, minute, second


def _build_date(
    year: str, month: str, day: str, hour: str, minute: str, second: str
) -> datetime | None:
    if month not in _MONTHS:
        return None
    try:
        return datetime(
            int(year), _MONTHS.index(month) + 1, int(day),
            int(hour), int(minute), int(second), tzinfo=UTC,
        )
    except ValueError:
        return None
