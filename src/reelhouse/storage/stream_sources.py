"""The catalogue's answer to "what does streaming this item serve": its primary version.

The primary version is the item's media source at position 0 (as the
catalogue's filters and sorts take it).  A local source carries the roots
of its library (the file must resolve inside them when it is opened); a
remote source (``.strm``: ``path`` is the URL) carries the library's
``remoteAllowedHosts``.
"""

from __future__ import annotations

from dataclasses import dataclass

from reelhouse.errors import NotFound
from reelhouse.media.library_options import LibraryOptions

from ._store import Store


@dataclass(frozen=True, slots=True)
class StreamSource:
    item_id: str
    library_id: str
    path: str  # a file path as stored (text), or a URL when remote
    remote: bool
    roots: tuple[str, ...]  # of the item's library, as stored
    allowed_hosts: tuple[str, ...]  # the library's remoteAllowedHosts


@dataclass(frozen=True, slots=True)
class ItemWithoutSource:
    """The item exists (in ``library_id``) but has no version to stream (a series, a season)."""

    library_id: str


async def find_stream_source(store: Store, item_id: str) -> StreamSource | ItemWithoutSource:
    """The item's primary version; NotFound for an unknown item.  Raises StoreError."""
    rows = await store.fetch_all(_SOURCE_AND_ROOTS, (item_id,))
    if not rows:
        raise NotFound(f"No item {item_id}.")
    first = rows[0]
    if first["path"] is None:
        return ItemWithoutSource(first["library_id"])
    remote = bool(first["remote"])
    hosts = LibraryOptions.from_json(first["options"]).remote_allowed_hosts if remote else ()
    roots = tuple(row["root"] for row in rows if row["root"] is not None)
    return StreamSource(item_id, first["library_id"], first["path"], remote, roots, tuple(hosts))


_SOURCE_AND_ROOTS = (
    "SELECT i.library_id, ms.path, ms.remote, l.options, lp.path AS root FROM items i"
    " JOIN libraries l ON l.id = i.library_id"
    " LEFT JOIN media_sources ms ON ms.item_id = i.id AND ms.position = 0"
    " LEFT JOIN library_paths lp ON lp.library_id = i.library_id"
    " WHERE i.id = ?"
)
