"""A stamp of the catalogue that changes when items are added, removed or modified (DLNA's SystemUpdateID).

Read in one aggregate query: how many items there are, the newest
creation and modification times, and how many are missing and since when
(a scan that no longer finds a film marks it missing, changing neither
the count nor those times, and DLNA no longer shows it; it is deleted
only later).  Folded into a UPnP ``ui4`` (1 to
2^32-1): a television compares it with the value it last saw and browses
again when it differs.  It is not a counter: it moves, it does not only
grow (a counter kept in memory would restart at every server start, and
one kept in the database would be written by every scan).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ._store import Store

UI4_MAX = 0xFFFFFFFF


_AGGREGATES = (
    "COUNT(*) AS n, COALESCE(MAX(date_created), 0) AS created, COALESCE(MAX(date_modified), 0) AS modified,"
    " COALESCE(SUM(missing), 0) AS missing, COALESCE(MAX(missing_since), 0) AS missing_since"
)
EMPTY = (0, 0, 0, 0, 0)


async def catalogue_stamp(store: Store) -> int:
    row = await store.fetch_one(f"SELECT {_AGGREGATES} FROM items")
    return _fold(EMPTY if row is None else _values(row))


async def library_stamps(store: Store) -> dict[str, int]:
    """A stamp per library (as :func:`catalogue_stamp`, of that library's items): ContainerUpdateIDs.

    A library without items has none here: its stamp is :data:`EMPTY_LIBRARY_STAMP`."""
    rows = await store.fetch_all(f"SELECT library_id, {_AGGREGATES} FROM items GROUP BY library_id")
    return {str(row["library_id"]): _fold(_values(row)) for row in rows}


def _values(row: Mapping[str, Any]) -> tuple[int, ...]:
    return tuple(int(row[name]) for name in ("n", "created", "modified", "missing", "missing_since"))


def _fold(values: tuple[int, ...]) -> int:
    digest = hashlib.blake2b(repr(values).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") % UI4_MAX + 1


EMPTY_LIBRARY_STAMP = _fold(EMPTY)
