"""Folders as on disk: a library's roots, their subfolders and the films and episodes in them.

``lib.<id>.dir`` lists the library's folders (its roots); a folder is
``lib.<id>.dir.<root index>/<path below the root>`` (URL-quoted).  A
folder's children are its subfolders that hold a film or an episode, by
name, then the films and episodes whose file is in it, by file name.
Built from the paths the catalogue holds, never from the disk, so
nothing outside the library's roots can be named; only the items the
member's parental rule lets through are read (a folder holding only
blocked films is not named, and the count is of what is shown), and the
items go through the member's scoped item query as everywhere else.
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote

from reelhouse.media.dlna.didl import Container
from reelhouse.media.dlna.sort import Order
from reelhouse.storage.item_paths import item_paths_under
from reelhouse.storage.item_query import ItemQuery
from reelhouse.storage.libraries import LibraryRecord

from ..context import app_context
from ..library_access import parental_rule_of_request
from .objects import DidlObject, no_such_object, page, to_objects
from .ordering import ordered_containers, ordered_ids

FOLDERS_VIEW = "dir"


def folder_id(library: LibraryRecord, value: str | None) -> str:
    return f"lib.{library.id}.{FOLDERS_VIEW}" + ("" if value is None else f".{quote(value)}")


def folder_title(library: LibraryRecord, value: str) -> str:
    root, _, below = _split(library, value)
    return posixpath.basename(below) if below else posixpath.basename(root.rstrip("/")) or root


def folder_parent(library: LibraryRecord, value: str) -> str:
    index, _, below = value.partition("/")
    return folder_id(library, None if not below else f"{index}/{posixpath.dirname(below)}".rstrip("/"))


async def folder_children(library: LibraryRecord, value: str | None, start: int, count: int, base_url: str,
                          order: Order | None = None) -> tuple[list[DidlObject], int]:  # fmt: skip
    """A page of the folder's children and how many there are: subfolders, then files (each in ``order``)."""
    if value is None:
        top = folder_id(library, None)
        indexes = [str(i) for i in range(len(library.paths))]
        roots = [Container(folder_id(library, i), top, folder_title(library, i)) for i in indexes]
        return list(ordered_containers(roots, order)[start : start + count]), len(library.paths)
    root, index, below = _split(library, value)
    prefix = posixpath.join(root, below).rstrip("/") + "/"
    folders: dict[str, None] = {}
    files: list[str] = []
    rule = await parental_rule_of_request()
    for item_id, path in await item_paths_under(app_context().store, library.id, prefix, rule):
        rest = path[len(prefix) :]
        if "/" in rest:
            folders[rest.split("/", 1)[0]] = None
        else:
            files.append(item_id)
    names = sorted(folders, key=str.casefold, reverse=order is not None and order.sort == "name" and order.descending)
    entries: list[str | tuple[str]] = [*names, *((f,) for f in await ordered_ids(files, order))]
    chosen = entries[start : start + count]
    here = folder_id(library, value)
    objects: list[DidlObject] = []
    for entry in chosen:
        if isinstance(entry, str):
            sub = f"{index}/{posixpath.join(below, entry)}".rstrip("/")
            objects.append(Container(folder_id(library, sub), here, entry))
    ids = tuple(e[0] for e in chosen if isinstance(e, tuple))
    if ids:
        summaries, _ = await page(ItemQuery(ids=ids, limit=len(ids)))
        by_id = {s["id"]: s for s in summaries}
        objects += await to_objects([by_id[i] for i in ids if i in by_id], base_url, here)
    return objects, len(entries)


def _split(library: LibraryRecord, value: str) -> tuple[str, str, str]:
    """(root path, root index, path below the root) of a folder value; 701 for one that names no root."""
    index, _, below = value.partition("/")
    below = below.strip("/")
    if not index.isdigit() or int(index) >= len(library.paths) or ".." in below.split("/"):
        raise no_such_object()
    return library.paths[int(index)], index, below
