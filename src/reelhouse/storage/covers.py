"""Library covers: what the last completed scan chose, and the posters a collage is made of.

``libraries.covers`` holds a JSON object with up to two keys, ``primary``
and ``thumb``, each a :class:`StoredCover` as a dict. The LibraryActor
decides them (``actors/scan/covers.py``); GET /libraries renders them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from reelhouse.media.covers import CoverKind

from ._store import Store

COVER_KINDS: tuple[CoverKind, ...] = ("primary", "thumb")


@dataclass(frozen=True, slots=True)
class StoredCover:
    """One cover. ``source`` is ``scanned`` or ``auto``; a scanned cover
    keeps its file's path, size and mtime (unchanged: no need to hash it
    again), a collage the tags of the posters it used and when it was made."""

    tag: str
    source: str
    path: str | None = None
    size: int | None = None
    mtime_ms: int | None = None
    posters: tuple[str, ...] = ()
    final: bool = False
    generated_at_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Poster:
    """The primary image of one of a library's items."""

    tag: str
    path: str


def parse_covers(text: str | None) -> dict[str, StoredCover]:
    """The covers in a ``libraries.covers`` value; anything malformed is left out."""
    try:
        raw = json.loads(text or "{}")
    except ValueError:
        return {}
    covers: dict[str, StoredCover] = {}
    for kind in COVER_KINDS:
        value = raw.get(kind) if isinstance(raw, dict) else None
        if isinstance(value, dict):
            try:
                covers[kind] = StoredCover(**{**value, "posters": tuple(value.get("posters", ()))})
            except TypeError:
                continue
    return covers


async def save_covers(store: Store, library_id: str, covers: dict[str, StoredCover]) -> None:
    text = json.dumps({kind: asdict(cover) for kind, cover in covers.items()})
    await store.execute("UPDATE libraries SET covers = ? WHERE id = ?", (text, library_id))


async def load_covers(store: Store, library_id: str) -> dict[str, StoredCover]:
    return parse_covers(await store.fetch_value("SELECT covers FROM libraries WHERE id = ?", (library_id,)))


async def newest_posters(store: Store, library_id: str, limit: int) -> list[Poster]:
    """Up to ``limit`` different posters of the library's newest top-level items."""
    rows = await store.fetch_all(
        "SELECT im.tag, im.path FROM items i JOIN images im ON im.item_id = i.id AND im.kind = 'primary'"
        " WHERE i.library_id = ? AND i.parent_id IS NULL AND i.owner_id IS NULL AND i.missing = 0"
        " ORDER BY i.date_created DESC, i.id, im.idx LIMIT ?",
        (library_id, limit * 4),
    )
    posters: dict[str, Poster] = {}
    for row in rows:
        posters.setdefault(row["tag"], Poster(row["tag"], row["path"]))
    return list(posters.values())[:limit]

