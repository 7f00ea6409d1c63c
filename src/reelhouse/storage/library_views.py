"""The libraries as players list them (Jellyfin's views): id, name and collection type, in one query.

``libraries.list_libraries`` also reads every library's folders and member
access (three queries); a player's home screen asks for its views several
times (the views, then each view's latest items) and needs none of that.
:class:`RememberedViews` keeps the answer while no write has committed
since (:class:`.versioned_memory.VersionedMemory`: on SQLite only, where
any commit, another process's too, moves the data version), so a library
added, renamed or removed shows on the next request.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._store import Store
from .versioned_memory import VersionedMemory


@dataclass(frozen=True, slots=True)
class LibraryView:
    id: str
    name: str
    collection_type: str


async def library_views(store: Store) -> list[LibraryView]:
    """Every library, by name (as ``list_libraries`` orders them)."""
    rows = await store.fetch_all("SELECT l.id, l.name, l.collection_type FROM libraries l ORDER BY lower(l.name), l.id")
    return [LibraryView(row["id"], row["name"], row["collection_type"]) for row in rows]


class RememberedViews:
    """:func:`library_views`, remembered as the module doc says.  Used from the Trio thread only."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._memory: VersionedMemory[str, tuple[LibraryView, ...]] = VersionedMemory(store, 1)

    async def views(self, *, version: int | None = None) -> tuple[LibraryView, ...]:
        """``version``: the store's data version the caller read (:meth:`VersionedMemory.find`)."""
        found = await self._memory.find("views", self._read, version=version)
        return found if found is not None else ()

    async def _read(self) -> tuple[LibraryView, ...]:
        return tuple(await library_views(self.store))
