"""The primary file of many items at once, with its streams and the items' premiere dates (a DLNA page).

A Browse page of 50 films needs, for each, what ``item_detail`` tells of
its first present source: path, size, the streams (codec, size, external
subtitles).  Read here in two queries for the whole page instead of
``item_detail``'s three per item (credits, images and values included),
which made a page of 50 take 150 queries.  Sources and streams come as
``item_detail`` shapes them (``path``, ``size``, ``streams`` with
``index``, ``type``, ``codec``, ``width``, ``height``, ``isExternal``,
``externalPath``), so one reader serves both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ._store import Store

MAX_IDS = 500

_SOURCES = (
    "SELECT ms.item_id, ms.id AS source_id, ms.path, ms.size, st.idx, st.is_external, st.type, st.codec,"
    " st.width, st.height, st.external_path FROM media_sources ms"
    " LEFT JOIN media_streams st ON st.source_id = ms.id"
    " WHERE ms.missing = 0 AND ms.item_id IN ({marks}) ORDER BY ms.item_id, ms.position, ms.id, st.is_external, st.idx"
)


@dataclass(slots=True)
class PrimaryFacts:
    premiere_date: str | None = None  # YYYY-MM-DD
    source: dict[str, Any] | None = None  # None: no file present
    _source_id: str | None = field(default=None, repr=False)


async def primary_facts(store: Store, item_ids: Sequence[str]) -> dict[str, PrimaryFacts]:
    """``item_ids`` (at most :data:`MAX_IDS`) -> their premiere date and first present source."""
    ids = list(dict.fromkeys(item_ids))[:MAX_IDS]
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    dates, sources = await store.fetch_each([
        (f"SELECT id, premiere_date FROM items WHERE id IN ({marks})", tuple(ids)),
        (_SOURCES.format(marks=marks), tuple(ids)),
    ])  # fmt: skip
    facts = {row["id"]: PrimaryFacts(premiere_day(row["premiere_date"])) for row in dates}
    for row in sources:
        found = facts.get(row["item_id"])
        if found is None or (found._source_id is not None and found._source_id != row["source_id"]):
            continue  # the item's first source only
        if found.source is None:
            found._source_id = row["source_id"]
            found.source = {"path": row["path"], "size": row["size"], "streams": []}
        if row["type"] is not None:
            found.source["streams"].append({
                "index": row["idx"], "type": row["type"], "codec": row["codec"], "width": row["width"],
                "height": row["height"], "isExternal": bool(row["is_external"]), "externalPath": row["external_path"],
            })  # fmt: skip
    return facts


def premiere_day(epoch_ms: int | None) -> str | None:
    """``YYYY-MM-DD`` (UTC) of a stored premiere date."""
    return None if epoch_ms is None else datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d")
