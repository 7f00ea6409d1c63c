"""Closing a store under the shutdown deadline: its last writes and its close end by it, on both backends."""

from __future__ import annotations

import trio

from reelhouse.shutdown import ShutdownDeadline, use_shutdown_deadline
from reelhouse.storage import Store, StoreError, migrate, open_store
from reelhouse.storage.activity import ActivityRecord, record_activity

from ..database_lock import database_write_lock

CAP_S = 60
DEADLINE_S = 0.5
BOUND_S = 2.0  # well past the deadline, far below the store's own bounds (busy timeout, close timeouts)


async def test_a_store_whose_last_write_waits_on_a_lock_closes_by_the_shutdown_deadline(database_url: str) -> None:
    async def last_write(store: Store) -> None:
        try:
            await record_activity(store, ActivityRecord("server.stop", "settings", "system"))
        except StoreError:
            pass  # the store closed first: expected

    with use_shutdown_deadline(ShutdownDeadline()) as deadline, trio.fail_after(CAP_S):
        async with trio.open_nursery() as writers:
            lock = database_write_lock(database_url, "activity")
            async with open_store(database_url) as store:
                await migrate(store)
                await lock.__aenter__()
                writers.start_soon(last_write, store)
                await trio.sleep(0.3)  # the write waits on the other client's lock
                started = trio.current_time()
                deadline.arm(started + DEADLINE_S)
            elapsed = trio.current_time() - started
            await lock.__aexit__(None, None, None)
    assert elapsed < BOUND_S
