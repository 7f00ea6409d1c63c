"""The catalogue's record of one image of an item: where its file is and the roots it must stay in."""

from __future__ import annotations

from dataclasses import dataclass

from reelhouse.errors import NotFound

from ._store import Store


@dataclass(frozen=True, slots=True)
class StoredImage:
    path: str
    tag: str
    roots: tuple[str, ...]  # of the item's library, as stored


async def find_stored_image(store: Store, item_id: str, kind: str, index: int) -> StoredImage:
    """The item's image of that kind and index; NotFound (unknown item, no such image) or StoreError."""
    rows = await store.fetch_all(_IMAGE_AND_ROOTS, (item_id, kind, index))
    if not rows:
        if await store.fetch_one("SELECT 1 FROM items WHERE id = ?", (item_id,)) is None:
            raise NotFound("No such item.")
        raise NotFound(f"The item has no {kind} image at index {index}.")
    roots = tuple(row["root"] for row in rows if row["root"] is not None)
    return StoredImage(rows[0]["path"], rows[0]["tag"], roots)


_IMAGE_AND_ROOTS = (
    "SELECT im.path, im.tag, lp.path AS root FROM images im"
    " JOIN items it ON it.id = im.item_id"
    " LEFT JOIN library_paths lp ON lp.library_id = it.library_id"
    " WHERE im.item_id = ? AND im.kind = ? AND im.idx = ?"
)
