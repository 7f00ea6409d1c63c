"""The activity log: recorded entries, listed newest first."""

from __future__ import annotations

import trio

from reelhouse.storage.activity import ActivityRecord, list_activity, record_activity

LIMIT_S = 20


async def test_recorded_entries_are_listed_newest_first(store) -> None:
    with trio.fail_after(LIMIT_S):
        created = await record_activity(
            store,
            ActivityRecord(
                action="apikey.create",
                category="security",
                actor_kind="system",
                target_kind="apiKey",
                target_id="k1",
                target_name="ci",
                details={"name": "ci"},
                at_ms=1_000,
            ),
        )
        started = await record_activity(store, ActivityRecord("server.start", "settings", "system", at_ms=2_000))
        assert created.id is not None and started.id is not None
        assert await list_activity(store, 10) == [started, created]
        assert await list_activity(store, 1) == [started]


async def test_an_entry_without_a_time_is_stamped_now(store) -> None:
    with trio.fail_after(LIMIT_S):
        entry = await record_activity(store, ActivityRecord("server.stop", "settings", "system"))
        assert entry.at_ms is not None and entry.at_ms > 1_600_000_000_000
