"""The catalogue's record of one image of an item: where its file is and the roots it must stay in.

Images a provider gave (``source = 'provider'``) live in the server's own
image store, :func:`provider_image_root` (``<data_dir>/metadata``), not in
the library: they may resolve there and nowhere else, while every other
image must resolve inside its library's roots (where the data directory is
fenced off).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reelhouse.errors import NotFound
from reelhouse.media.containment import SYSTEM_DIRS, Confinement

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


_IDS_PER_QUERY = 500


async def provider_images_in_use(store: Store, item_ids: Sequence[str]) -> tuple[set[str], set[tuple[str, str]]]:
    """Of ``item_ids``, those still in the catalogue; and their provider images in use, as
    (item id, file name) pairs.  Raises StoreError."""
    existing: set[str] = set()
    in_use: set[tuple[str, str]] = set()
    for start in range(0, len(item_ids), _IDS_PER_QUERY):
        chunk = list(item_ids[start:start + _IDS_PER_QUERY])
        marks = ", ".join("?" for _ in chunk)
        items, images = await store.fetch_each([
            (f"SELECT id FROM items WHERE id IN ({marks})", chunk),
            (f"SELECT item_id, path FROM images WHERE source = ? AND item_id IN ({marks})", [PROVIDER_SOURCE, *chunk]),
        ])  # fmt: skip
        existing.update(row[0] for row in items)
        in_use.update((row[0], os.path.basename(row[1])) for row in images)
    return existing, in_use


_IMAGE_AND_ROOTS = (
    "SELECT im.path, im.tag, im.source, lp.path AS root FROM images im"
    " JOIN items it ON it.id = im.item_id"
    " LEFT JOIN library_paths lp ON lp.library_id = it.library_id"
    " WHERE im.item_id = ? AND im.kind = ? AND im.idx = ?"
)


@dataclass(frozen=True, slots=True)
class WorkPoster:
    """A present work's primary image (path and tag None when it has none)."""

    item_id: str
    path: str | None
    tag: str | None
    width: int | None
    height: int | None
    roots: tuple[str, ...] = ()  # of the item's library, as stored


async def work_posters(store: Store, types: tuple[str, ...]) -> list[WorkPoster]:
    """Every present item of these types with its primary image, by id."""
    marks = ", ".join("?" for _ in types)
    rows = await store.fetch_all(
        "SELECT it.id, im.path, im.tag, im.width, im.height, it.library_id FROM items it"
        " LEFT JOIN images im ON im.item_id = it.id AND im.kind = 'primary' AND im.idx = 0"
        f" WHERE it.missing = 0 AND it.type IN ({marks}) ORDER BY it.id",
        types,
    )
    # The roots by library (a few rows), not by item (one row per work and root).
    roots: dict[str, tuple[str, ...]] = {}
    paths = await store.fetch_all("SELECT library_id, path FROM library_paths ORDER BY library_id, position")
    for library_id, path in paths:
        roots[library_id] = (*roots.get(library_id, ()), path)
    return [WorkPoster(r[0], r[1], r[2], r[3], r[4], roots.get(r[5], ())) for r in rows]
