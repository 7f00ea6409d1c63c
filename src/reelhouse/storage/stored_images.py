"""The catalogue's record of one image of an item: where its file is and the roots it must stay in.

Images a provider gave (``source = 'provider'``) live in the server's own
image store, :func:`provider_image_root` (``<data_dir>/metadata``), not in
the library: they may resolve there and nowhere else, while every other
image must resolve inside its library's roots (where the data directory is
fenced off).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from reelhouse.media.containment import SYSTEM_DIRS, Confinement

from reelhouse.errors import NotFound

from ._store import Store


@dataclass(frozen=True, slots=True)
class StoredImage:
    path: str
    tag: str
    roots: tuple[str, ...]  # of the item's library, as stored
    source: str = "local"  # local, provider...


async def find_stored_image(store: Store, item_id: str, kind: str, index: int) -> StoredImage:
    """The item's image of that kind and index; NotFound (unknown item, no such image) or StoreError."""
    rows = await store.fetch_all(_IMAGE_AND_ROOTS, (item_id, kind, index))
    if not rows:
        if await store.fetch_one("SELECT 1 FROM items WHERE id = ?", (item_id,)) is None:
            raise NotFound("No such item.")
        raise NotFound(f"The item has no {kind} image at index {index}.")
    roots = tuple(row["root"] for row in rows if row["root"] is not None)
    return StoredImage(rows[0]["path"], rows[0]["tag"], roots, rows[0]["source"] or "local")


PROVIDER_IMAGE_DIR = "metadata"
PROVIDER_SOURCE = "provider"


def provider_image_root(data_dir: str | os.PathLike[str]) -> Path:
    """Where provider images are kept: ``<data_dir>/metadata/<itemId>/...``."""
    return Path(data_dir) / PROVIDER_IMAGE_DIR


def provider_confinement(data_dir: str | os.PathLike[str] | None) -> Confinement:
    """Where a provider image may resolve: the provider image store only (nowhere without a data dir)."""
    if data_dir is None:
        return Confinement(())
    return Confinement((os.path.realpath(provider_image_root(data_dir)),), SYSTEM_DIRS)


_IMAGE_AND_ROOTS = (
    "SELECT im.path, im.tag, im.source, lp.path AS root FROM images im"
    " JOIN items it ON it.id = im.item_id"
    " LEFT JOIN library_paths lp ON lp.library_id = it.library_id"
    " WHERE im.item_id = ? AND im.kind = ? AND im.idx = ?"
)
