"""Collections: BoxSet items of a library and their members.

A BoxSet is a row of ``items`` (type ``BoxSet``, no path, top level) of the
library its members are in; ``collection_items`` lists its members.  Its id
is made from the library and the collection's key: ``<provider>:<id>`` for
a provider's collection (a movie's ``belongs_to_collection`` on TMDB), or
``name:<case-folded name>`` for an NFO's ``<set>``, so the same collection
met again is the same item.  ``extra.nameFilled`` is false until the
provider's own record of the collection (its name in the library's
language, overview, picture) was read: collectionNameFill reads it.
A BoxSet left without members is deleted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reelhouse.media.assembly import item_id

from ._name_key import name_key
from ._store import Statement, Store

NAME_FILLED_KEY = "nameFilled"


@dataclass(frozen=True, slots=True)
class CollectionRef:
    """A collection an item belongs to, as a provider or an NFO names it."""

    key: str  # "<provider>:<id>" or "name:<case-folded name>"
    name: str
    provider: str | None = None
    provider_item_id: str | None = None
    overview: str | None = None


@dataclass(frozen=True, slots=True)
class BoxSetRow:
    id: str
    library_id: str
    name: str
    provider: str
    provider_item_id: str
    locked_name: bool


def boxset_id(library_id: str, key: str) -> str:
    return item_id(library_id, "boxset", key)


def provider_collection(provider: str, provider_item_id: str, name: str | None) -> CollectionRef:
    return CollectionRef(f"{provider}:{provider_item_id}", name or f"Collection {provider_item_id}",
                         provider, provider_item_id)


def nfo_collection(name: str, overview: str | None = None) -> CollectionRef:
    return CollectionRef(f"name:{name.casefold()}", name, overview=overview)


def join_statements(library_id: str, member_id: str, ref: CollectionRef, now_ms: int) -> list[Statement]:
    """The BoxSet of ``ref`` (made when new) with ``member_id`` in it."""
    box = boxset_id(library_id, ref.key)
    extra: dict[str, Any] = {NAME_FILLED_KEY: ref.provider is None}
    if ref.provider:
        extra.update(provider=ref.provider, providerItemId=ref.provider_item_id)
    ids = {ref.provider: ref.provider_item_id} if ref.provider and ref.provider_item_id else {}
    return [
        Statement(
            "INSERT INTO items (id, library_id, type, name, sort_name, name_key, overview, date_created,"
            " date_modified, provider_ids, extra) VALUES (?, ?, 'BoxSet', ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (id) DO NOTHING",
            (box, library_id, ref.name, ref.name, name_key(ref.name), ref.overview, now_ms, now_ms,
             _dumps(ids), _dumps(extra)),
        ),
        Statement(
            "INSERT INTO collection_items (collection_id, item_id, added_at) VALUES (?, ?, ?)"
            " ON CONFLICT (collection_id, item_id) DO NOTHING", (box, member_id, now_ms)),
    ]


async def join_collection(store: Store, library_id: str, member_id: str, ref: CollectionRef, now_ms: int) -> str:
    """Put ``member_id`` in the collection ``ref`` (the BoxSet made when new); the BoxSet's id."""
    await store.transaction(join_statements(library_id, member_id, ref, now_ms))
    return boxset_id(library_id, ref.key)


async def nfo_collections(store: Store, library_id: str) -> list[tuple[str, CollectionRef]]:
    """The library's items whose NFO names a collection (``<set>``), with it."""
    rows = await store.fetch_all(
        "SELECT id, extra FROM items WHERE library_id = ? AND missing = 0 AND type IN ('Movie', 'Series')"
        " AND extra LIKE ?", (library_id, '%"collection"%'))
    found = []
    for row in rows:
        value = _json(row["extra"]).get("collection")
        if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"].strip():
            overview = value.get("overview") if isinstance(value.get("overview"), str) else None
            found.append((row["id"], nfo_collection(value["name"].strip(), overview)))
    return found


async def drop_empty_collections(store: Store, library_id: str) -> int:
    """Delete the library's BoxSets without a member left; how many."""
    (result,) = await store.transaction([Statement(
        "DELETE FROM items WHERE library_id = ? AND type = 'BoxSet'"
        " AND NOT EXISTS (SELECT 1 FROM collection_items c JOIN items m ON m.id = c.item_id"
        " WHERE c.collection_id = items.id AND m.missing = 0)", (library_id,))])
    return result.rowcount


async def boxsets_to_fill(store: Store, library_ids: Sequence[str]) -> list[BoxSetRow]:
    """Provider BoxSets of these libraries whose provider record was not read yet."""
    if not library_ids:
        return []
    marks = ", ".join("?" for _ in library_ids)
    rows = await store.fetch_all(
        f"SELECT id, library_id, name, extra, locked_fields, lock_data FROM items WHERE type = 'BoxSet'"
        f" AND library_id IN ({marks}) ORDER BY id", tuple(library_ids))
    found = []
    for row in rows:
        extra = _json(row["extra"])
        if extra.get(NAME_FILLED_KEY) or not extra.get("provider") or not extra.get("providerItemId"):
            continue
        locked = row["lock_data"] or "name" in str(row["locked_fields"]).lower()
        found.append(BoxSetRow(row["id"], row["library_id"], row["name"], str(extra["provider"]),
                               str(extra["providerItemId"]), bool(locked)))
    return found


async def save_collection_name(store: Store, box: BoxSetRow, name: str | None, overview: str | None,
                               now_ms: int, image: tuple[str, str, int | None, int | None, int, int] | None = None
                               ) -> None:
    """Record the provider's name (unless locked) and overview of ``box``; mark it filled.

    ``image``: (path, tag, width, height, size, mtime) of its provider poster.
    """
    row = await store.fetch_one("SELECT extra FROM items WHERE id = ?", (box.id,))
    if row is None:
        return
    extra = _json(row["extra"])
    extra[NAME_FILLED_KEY] = True
    columns: dict[str, Any] = {"extra": _dumps(extra), "date_modified": now_ms}
    if name and not box.locked_name:
        columns.update(name=name, sort_name=name, name_key=name_key(name))
    if overview:
        columns["overview"] = overview
    assignments = ", ".join(f"{column} = ?" for column in columns)
    statements = [Statement(f"UPDATE items SET {assignments} WHERE id = ?", (*columns.values(), box.id))]
    if image is not None:
        path, tag, width, height, size, mtime = image
        statements.append(Statement(
            "INSERT INTO images (item_id, kind, idx, path, tag, width, height, size, mtime, source)"
            " VALUES (?, 'primary', 0, ?, ?, ?, ?, ?, ?, 'provider') ON CONFLICT (item_id, kind, idx) DO NOTHING",
            (box.id, path, tag, width, height, size, mtime)))
    await store.transaction(statements)


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
