"""Query parts shared by the filtered, keyset-paged lists (activity, playback history).

A bound such as ``from``/``to`` given as an RFC 3339 date-time must carry its
zone (``Z`` or an offset); :func:`instant_ms` reads it as epoch ms.

``limit``: default 40, 1 to 200 (api-decisions.md), anything else 400 naming
``limit``.  A page's cursor carries the last row's position as ``at`` (epoch
ms) and ``id`` (an integer key); :func:`keyset_position` reads them back from
a payload the cursor codec has already verified.  :class:`PageCursors`
does the whole round: it verifies the request's cursor against the query's
filters and signs the next one.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from reelhouse.errors import Invalid
from reelhouse.storage.cursor import FINGERPRINT_KEY, fingerprint

from .context import app_context
from .items import cursor_codec

DEFAULT_LIMIT = 40
MAX_LIMIT = 200
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class PageCursors:
    """The cursors of one list request: ``after`` is where its page starts (None: the first page).

    The cursor is signed with the server's cursor secret and bound to the
    request's filters (every query parameter but cursor and limit): a
    tampered one, or one sent with other filters, is Invalid(field="cursor").
    """

    __slots__ = ("_codec", "_fingerprint", "after")

    def __init__(self, args: Any) -> None:
        self._codec = cursor_codec(app_context().cursor_secret)
        self._fingerprint = fingerprint(args.to_dict(flat=False))
        token = args.get("cursor")
        self.after = keyset_position(self._codec.decode(token, fingerprint=self._fingerprint)) if token else None

    def next(self, at_ms: int, row_id: int) -> str:
        """The cursor of the page after the row at (``at_ms``, ``row_id``)."""
        return self._codec.encode({"at": at_ms, "id": row_id, FINGERPRINT_KEY: self._fingerprint})


def page_limit(raw: str | None, default: int = DEFAULT_LIMIT) -> int:
    """The ``limit`` query value: ``default`` when absent; Invalid(field="limit") out of 1 to MAX_LIMIT."""
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_LIMIT:
        raise Invalid(f"limit must be 1 to {MAX_LIMIT}.", field="limit")
    return value


def keyset_position(payload: dict[str, Any]) -> tuple[int, int]:
    """(at, id) of a verified cursor payload; Invalid(field="cursor") when they are not integers."""
    at, row_id = payload.get("at"), payload.get("id")
    if not isinstance(at, int) or not isinstance(row_id, int) or isinstance(at, bool) or isinstance(row_id, bool):
        raise Invalid("The cursor is invalid.", field="cursor")
    return at, row_id


def instant_ms(text: str, field: str) -> int:
    """An RFC 3339 date-time as epoch ms; Invalid naming ``field`` when malformed or without a zone."""
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise Invalid(f"{field} must be an RFC 3339 date-time.", field=field) from None
    if parsed.tzinfo is None:
        raise Invalid(f"{field} must carry a time zone (Z or an offset).", field=field)
    return (parsed - _EPOCH) // timedelta(milliseconds=1)
