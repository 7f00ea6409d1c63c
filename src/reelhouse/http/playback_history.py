"""GET /admin/playback/history: finished playbacks, newest first (reference, Playback).

Query: ``memberId``, ``client`` (the player, exact in any case),
``deviceId``, ``itemId`` (a series or season includes its episodes),
``title`` (contains, any case), ``from`` (inclusive) and ``to``, ``tz``,
``cursor``, ``limit`` (default 40, 1 to 200; api-decisions.md).  ``from`` and
``to`` are RFC 3339 date-times (``to`` exclusive) or calendar dates in
``tz`` (``from`` from that day's local midnight, ``to`` through the whole
day); ``tz`` is an IANA zone name (default UTC) resolved by zoneinfo.  The
cursor is signed and bound to the filters: a tampered one, or one sent with
other filters, is 400 (field cursor).  ``ip`` is omitted from records older
than ``[schedule] history_ip_retention_days``.
"""

from __future__ import annotations

import functools
import re
import time
from datetime import date, datetime, timedelta
from importlib import resources
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field
from quart import Blueprint, request
from quart_schema import document_querystring, document_response

from reelhouse.errors import Invalid
from reelhouse.media.play_record import DEFAULT_IP_RETENTION_DAYS
from reelhouse.storage.play_history_query import HistoryFilter, HistoryPosition, PlayRecord, query_history
from reelhouse.timefmt import rfc3339_ms

from .context import app_context
from .list_query import DEFAULT_LIMIT, MAX_LIMIT, PageCursors, instant_ms, page_limit
from .openapi import may_answer
from .schema import ApiModel

blueprint = Blueprint("playback_history", __name__)

DAY_MS = 86_400_000
_CALENDAR_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)


class PlayHistoryQuery(ApiModel):
    member_id: str | None = Field(None, description="A member's id.")
    client: str | None = Field(None, description="The player application; exact, case-insensitive.")
    device_id: str | None = Field(None, description="A device's id.")
    item_id: str | None = Field(None, description="An item; a series or season includes its episodes.")
    title: str | None = Field(None, description="Contained in the title, case-insensitive.")
    from_: str | None = Field(None, alias="from", description="Inclusive: RFC 3339 date-time or a date in tz.")
    to: str | None = Field(None, description="Exclusive RFC 3339 date-time, or a date in tz (whole day).")
    tz: str | None = Field(None, description="IANA zone name for calendar dates; default UTC.")
    cursor: str | None = None
    limit: int | None = Field(None, description=f"1 to {MAX_LIMIT}, default {DEFAULT_LIMIT}.")


class PlayRecordBody(ApiModel):
    id: str
    item_id: str
    member_id: str
    member: str
    device: str
    device_id: str
    player: str
    kind: str = Field(description="movie, episode or video")
    at: str
    ended_at: str
    duration_sec: float
    watched_sec: float
    percent: float
    finished: bool
    sessions: int
    episode: str | None = None
    title: str | None = None
    item_deleted: bool | None = None
    ip: str | None = None
    end_reason: str | None = Field(
        None, description="Outside the reference: how the newest session merged in ended: stopped, idle,"
        " remoteStop, shutdown, parentalTime (stopped at a member's daily limit or window end), or crash"
        " (live when the server died; recorded at its next start)."
    )


class PlayHistoryPage(ApiModel):
    records: list[PlayRecordBody]
    next_cursor: str | None = None


@blueprint.get("/admin/playback/history")
@document_querystring(PlayHistoryQuery)
@document_response(PlayHistoryPage, 200)
@may_answer((403, "A device token: this is the administrative API."))
async def get_playback_history() -> dict[str, Any]:
    """Finished playbacks, newest first.

    A malformed from, to or limit, a limit out of 1 to 200, a tz that is not
    an IANA zone name (an offset such as UTC+8 included), or a tampered
    cursor is 400 field_invalid naming the parameter.
    """
    args = request.args
    where = history_filter(args)
    limit = page_limit(args.get("limit"))
    cursors = PageCursors(args)
    after = None if cursors.after is None else HistoryPosition(*cursors.after)
    records, more = await query_history(app_context().store, where, after, limit, ip_since_ms=_ip_since_ms())
    body: dict[str, Any] = {"records": [record_json(r) for r in records]}
    if more and records:
        body["nextCursor"] = cursors.next(records[-1].started_at_ms, records[-1].id)
    return body


def record_json(record: PlayRecord) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": str(record.id),
        "itemId": record.item_id,
        "memberId": record.member_id,
        "member": record.member_name,
        "device": record.device_name,
        "deviceId": record.device_id,
        "player": record.player,
        "kind": record.kind,
        "at": rfc3339_ms(record.started_at_ms),
        "endedAt": rfc3339_ms(record.ended_at_ms),
        "durationSec": record.duration_sec,
        "watchedSec": record.watched_sec,
        "percent": record.percent,
        "finished": record.finished,
        "sessions": record.sessions,
    }
    for name, value in (("episode", record.episode), ("title", record.title), ("ip", record.ip),
                        ("endReason", record.end_reason)):
        if value is not None:
            body[name] = value
    if record.item_deleted:
        body["itemDeleted"] = True
    return body


def history_filter(args: Any) -> HistoryFilter:
    """The filters of a history query; Invalid naming the parameter."""
    zone = _zone(args.get("tz"))
    return HistoryFilter(
        member_id=args.get("memberId") or None,
        player=args.get("client") or None,
        device_id=args.get("deviceId") or None,
        item_id=args.get("itemId") or None,
        title=args.get("title") or None,
        from_ms=_bound(args.get("from"), "from", zone, end=False),
        to_ms=_bound(args.get("to"), "to", zone, end=True),
    )


@functools.cache
def _zone_names() -> frozenset[str]:
    """The IANA database's zone names, as the tzdata package lists them.

    Not ``zoneinfo.available_timezones()``: it also lists files of the
    system's zone directory that name no zone (``localtime``).
    """
    return frozenset(resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8").split())


def _zone(name: str | None) -> ZoneInfo:
    if name is None or name == "":
        return ZoneInfo("UTC")
    # Only names of the IANA database: ZoneInfo would also open other files
    # of the zone directory (``localtime``).
    if name not in _zone_names():
        raise Invalid("tz must be an IANA time zone name, such as Europe/Berlin.", field="tz")
    try:
        return ZoneInfo(name)
    except (ValueError, OSError, ZoneInfoNotFoundError):
        raise Invalid("tz must be an IANA time zone name, such as Europe/Berlin.", field="tz") from None


def day_start_ms(day: date, zone: ZoneInfo) -> int:
    """The first instant of ``day`` in ``zone``, as epoch ms.

    ``fold=0`` is what makes it the first: a midnight a clock change skips
    maps to the change itself, and a midnight that happens twice to the
    earlier one.
    """
    return int(datetime(day.year, day.month, day.day, tzinfo=zone).timestamp()) * 1000


def _bound(value: str | None, field: str, zone: ZoneInfo, *, end: bool) -> int | None:
    """``value`` as epoch ms: a date-time as is, a calendar date from (``end``: after) its local day."""
    if value is None:
        return None
    text = value.strip()
    if _CALENDAR_DATE.match(text):
        try:
            day = date(int(text[:4]), int(text[5:7]), int(text[8:]))
        except ValueError:
            raise Invalid(f"{field} is not a calendar date.", field=field) from None
        if end and day == date.max:
            raise Invalid(f"{field} is not a calendar date.", field=field)
        return day_start_ms(day + timedelta(days=1) if end else day, zone)
    return instant_ms(text, field)


def _ip_since_ms() -> int:
    settings = app_context().settings
    days = settings.schedule.history_ip_retention_days if settings is not None else DEFAULT_IP_RETENTION_DAYS
    return int(time.time()) * 1000 - int(days * DAY_MS)
