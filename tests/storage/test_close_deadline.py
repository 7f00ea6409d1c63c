"""Closing a store under the shutdown deadline: its last writes and its close end by it, on both backends."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from reelhouse.shutdown import ShutdownDeadline, use_shutdown_deadline
from reelhouse.storage import Store, StoreError, _postgres, _postgres_reads, _sqlite, migrate, open_store
from reelhouse.storage.activity import ActivityRecord, record_activity

from ..database_lock import database_write_lock

CAP_S = 60
DEADLINE_S = 0.5
NEVER_S = 3600.0  # the store's own bounds, out of reach: only the deadline can end the close within CAP_S


@pytest.fixture
def no_bounds_but_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sqlite, "BUSY_TIMEOUT_MS", int(NEVER_S * 1000))
    monkeypatch.setattr(_sqlite, "CLOSE_TIMEOUT_S", NEVER_S)
    monkeypatch.setattr(_postgres, "CLOSE_TIMEOUT_S", NEVER_S)
    monkeypatch.setattr(_postgres_reads, "CLOSE_TIMEOUT_S", NEVER_S)


async def test_a_store_whose_last_write_waits_on_a_lock_closes_by_the_shutdown_deadline(
    database_url: str, no_bounds_but_the_deadline: None
) -> None:
    async with open_store(database_url) as store:
        await migrate(store)

    async def last_write(store: Store) -> None:
        try:
            await record_activity(store, ActivityRecord("server.stop", "settings", "system"))
        except StoreError:
            pass  # the store closed first: expected

    closed_under_the_lock = False
    with use_shutdown_deadline(ShutdownDeadline()) as deadline, trio.move_on_after(CAP_S):
        async with trio.open_nursery() as writers, database_write_lock(database_url, "activity"):
            async with open_store(database_url) as store:
                writers.start_soon(last_write, store)
                await trio.testing.wait_all_tasks_blocked()  # the write is with the database, waiting on the lock
                deadline.arm(trio.current_time() + DEADLINE_S)
            # Still inside the other client's lock, released only below: the
            # close ended by the deadline, not by the lock or its own bounds.
            closed_under_the_lock = True
    assert closed_under_the_lock, f"the store's close waited on another client's lock past its deadline ({CAP_S} s)"
