"""The libraries as players list them (Jellyfin's views): id, name and collection type, in one query.

``libraries.list_libraries`` also reads every library's folders and member
access (three queries); a player's home screen asks for its views several
times (the views, then each view's latest items) and needs none of that.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._store import Store


@dataclass(frozen=True, slots=True)
class LibraryView:
    id: str
    name: str
    collection_type: str


async def library_views(store: Store) -> list[LibraryView]:
    """Every library, by name (as ``list_libraries`` orders them)."""
    rows = await store.fetch_all("SELECT l.id, l.name, l.collection_type FROM libraries l ORDER BY lower(l.name), l.id")
    return [LibraryView(row["id"], row["name"], row["collection_type"]) for row in rows]
