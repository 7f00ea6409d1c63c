"""A stamp of the catalogue that changes when items are added, removed or modified (DLNA's SystemUpdateID).

Read in one aggregate query: how many items there are and the newest
creation and modification times.  Folded into a UPnP ``ui4`` (1 to
2^32-1): a television compares it with the value it last saw and browses
again when it differs.  It is not a counter: it moves, it does not only
grow (a counter kept in memory would restart at every server start, and
one kept in the database would be written by every scan).
"""

from __future__ import annotations

import hashlib

from ._store import Store

UI4_MAX = 0xFFFFFFFF


async def catalogue_stamp(store: Store) -> int:
    row = await store.fetch_one(
        "SELECT COUNT(*) AS n, COALESCE(MAX(date_created), 0) AS created, COALESCE(MAX(date_modified), 0) AS modified"
        " FROM items"
    )
    return _fold((0, 0, 0) if row is None else (int(row["n"]), int(row["created"]), int(row["modified"])))


async def library_stamps(store: Store) -> dict[str, int]:
    """A stamp per library (as :func:`catalogue_stamp`, of that library's items): ContainerUpdateIDs."""
    rows = await store.fetch_all(
        "SELECT library_id, COUNT(*) AS n, COALESCE(MAX(date_created), 0) AS created,"
        " COALESCE(MAX(date_modified), 0) AS modified FROM items GROUP BY library_id"
    )
    return {str(row["library_id"]): _fold((int(row["n"]), int(row["created"]), int(row["modified"]))) for row in rows}


def _fold(values: tuple[int, int, int]) -> int:
    digest = hashlib.blake2b(repr(values).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") % UI4_MAX + 1
