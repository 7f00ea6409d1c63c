"""The stored event log: append, tail, last_seq, replay, trim."""

from __future__ import annotations

import pytest
import trio

from reelhouse.storage.events import StoredEvent, StoreEventLog

LIMIT_S = 20


def _events(first: int, last: int) -> list[StoredEvent]:
    return [StoredEvent(seq, "scan.progress", {"libraryId": "l1", "processed": seq}, 1_000 + seq) for seq in range(first, last + 1)]


async def test_an_empty_log_starts_at_zero(store) -> None:
    log = StoreEventLog(store)
    with trio.fail_after(LIMIT_S):
        assert await log.last_seq() == 0
        assert await log.tail(10) == []


async def test_appended_events_come_back_in_order(store) -> None:
    log = StoreEventLog(store)
    with trio.fail_after(LIMIT_S):
        await log.append(_events(1, 3))
        await log.append(_events(4, 5))
        assert await log.last_seq() == 5
        assert await log.tail(2) == _events(4, 5)
        assert await log.tail(100) == _events(1, 5)
        assert await log.after(3, 10) == _events(4, 5)


async def test_appending_stored_seqs_again_is_skipped(store) -> None:
    log = StoreEventLog(store)
    with trio.fail_after(LIMIT_S):
        await log.append(_events(1, 3))
        await log.append(_events(2, 4))
        assert await log.tail(10) == _events(1, 4)


async def test_a_gap_in_seqs_is_refused_whole(store) -> None:
    log = StoreEventLog(store)
    with trio.fail_after(LIMIT_S):
        await log.append(_events(1, 2))
        with pytest.raises(ValueError):
            await log.append(_events(4, 5))
        assert await log.last_seq() == 2


async def test_trimming_keeps_the_newest_and_the_last_seq(store) -> None:
    log = StoreEventLog(store)
    with trio.fail_after(LIMIT_S):
        await log.append(_events(1, 10))
        assert await log.trim(3) == 7
        assert await log.tail(100) == _events(8, 10)
        await log.trim(0)
        assert await log.last_seq() == 10
