"""What a playback session needs to know about its item and its player, read once at its start.

The item: its kind (movie, episode, video), the title the history shows (an
episode's series name), the ``S01E04`` label, series and season ids, and the
duration and bitrate of its primary version (the item's first media source).
The player: the device's name and client application.  Both backends, one
SQL.  Also the check the admin's session list makes: which items are gone.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from reelhouse.media.playback_session import episode_label

from ._store import Store

TICKS_PER_SECOND = 10_000_000
# Item types a player can play, and the history's kind for each.
PLAYABLE_KINDS = {"Movie": "movie", "Episode": "episode", "Video": "video"}


@dataclass(frozen=True, slots=True)
class PlaybackItem:
    id: str
    library_id: str
    type: str  # ItemType
    kind: str | None  # movie | episode | video; None: not playable (a series, a season...)
    title: str  # an episode's series name, else the item's name
    episode: str | None  # S01E04
    series_id: str | None
    season_id: str | None
    duration_sec: float  # 0 when unknown
    bitrate_kbps: int | None  # None when unknown


@dataclass(frozen=True, slots=True)
class PlayerFacts:
    device_name: str
    client: str


_ITEM = (
    "SELECT i.id, i.library_id, i.type, i.name, i.series_id, i.season_id, i.index_number,"
    " i.parent_index_number, i.runtime_ticks, s.name AS series_name,"
    " (SELECT ms.runtime_ticks FROM media_sources ms WHERE ms.item_id = i.id"
    "  ORDER BY ms.position, ms.id LIMIT 1) AS source_ticks,"
    " (SELECT ms.bitrate FROM media_sources ms WHERE ms.item_id = i.id"
    "  ORDER BY ms.position, ms.id LIMIT 1) AS source_bitrate"
    " FROM items i LEFT JOIN items s ON s.id = i.series_id WHERE i.id = ?"
)


async def playback_item(store: Store, item_id: str) -> PlaybackItem | None:
    """The facts of ``item_id``; None when there is no such item."""
    row = await store.fetch_one(_ITEM, (item_id,))
    if row is None:
        return None
    is_episode = row["type"] == "Episode"
    ticks = row["source_ticks"] or row["runtime_ticks"] or 0
    bitrate = row["source_bitrate"] or 0
    return PlaybackItem(
        id=row["id"],
        library_id=row["library_id"],
        type=row["type"],
        kind=PLAYABLE_KINDS.get(row["type"]),
        title=(row["series_name"] or row["name"]) if is_episode else row["name"],
        episode=episode_label(row["parent_index_number"], row["index_number"]) if is_episode else None,
        series_id=row["series_id"] if is_episode else None,
        season_id=row["season_id"] if is_episode else None,
        duration_sec=ticks / TICKS_PER_SECOND,
        bitrate_kbps=round(bitrate / 1000) if bitrate > 0 else None,
    )


async def player_facts(store: Store, device_id: str) -> PlayerFacts:
    """The device's name and client; empty strings for a device deleted meanwhile."""
    row = await store.fetch_one("SELECT name, client FROM devices WHERE id = ?", (device_id,))
    if row is None:
        return PlayerFacts("", "")
    return PlayerFacts(row["name"], row["client"])


async def unreadable_items(store: Store, item_ids: Collection[str]) -> set[str]:
    """Those of ``item_ids`` that no longer exist or whose file is missing."""
    wanted = sorted(set(item_ids))
    if not wanted:
        return set()
    marks = ", ".join("?" for _ in wanted)
    rows = await store.fetch_all(f"SELECT id FROM items WHERE id IN ({marks}) AND missing = 0", tuple(wanted))
    return set(wanted) - {row["id"] for row in rows}
