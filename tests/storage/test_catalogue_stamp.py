"""storage.catalogue_stamp: DLNA's SystemUpdateID and ContainerUpdateIDs move with the catalogue (both backends)."""

from __future__ import annotations

import trio

from reelhouse.storage import Store
from reelhouse.storage.catalog import mark_missing, purge_missing, write_batch
from reelhouse.storage.catalogue_stamp import EMPTY_LIBRARY_STAMP, catalogue_stamp, library_stamps

from .test_catalog import LIB, LIMIT_S, library, records


async def test_the_stamps_move_when_an_item_is_added_goes_missing_and_is_purged(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await library(store)
        empty = await catalogue_stamp(store)
        assert await library_stamps(store) == {}
        batch = records("A (2001).mkv", "B (2002).mkv")
        await write_batch(store, LIB, batch, now_ms=1000)
        added = await catalogue_stamp(store)
        assert added != empty and await catalogue_stamp(store) == added  # it moves, and only then
        library_added = (await library_stamps(store))[LIB]
        await mark_missing(store, [batch[0].draft.id], now_ms=5000)  # count and times as they were
        missing = await catalogue_stamp(store)
        assert missing not in (empty, added)
        assert (await library_stamps(store))[LIB] not in (library_added, EMPTY_LIBRARY_STAMP)
        await mark_missing(store, [batch[1].draft.id], now_ms=6000)
        assert await purge_missing(store, LIB, missing_before_ms=7000)
        assert await catalogue_stamp(store) == empty and await library_stamps(store) == {}
