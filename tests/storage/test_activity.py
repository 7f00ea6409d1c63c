"""The activity log: recorded entries, listed newest first."""

from __future__ import annotations

import trio

from reelhouse.storage.activity import (
    REPEAT_WINDOW_MS,
    ActivityRecord,
    list_activity,
    purge_activity,
    record_activity,
    record_repeated_activity,
)

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


def refusal(remote_addr: str = "10.0.0.1", user_id: str | None = "u1", at_ms: int = 0) -> ActivityRecord:
    return ActivityRecord("user.login_failed", "security", "member", actor_id=user_id, target_kind="user",
                          target_id=user_id, details={"reason": "tooManyRequests"}, remote_addr=remote_addr,
                          at_ms=at_ms)


async def test_a_refusal_repeated_within_its_window_is_one_entry_with_a_count(store) -> None:
    with trio.fail_after(LIMIT_S):
        start = 100 * REPEAT_WINDOW_MS
        for n in range(200):  # a client hammering the sign-in for a whole window
            await record_repeated_activity(store, refusal(at_ms=start + n * (REPEAT_WINDOW_MS // 200)))
        await record_repeated_activity(store, refusal(at_ms=start + REPEAT_WINDOW_MS))  # the next window
        await record_repeated_activity(store, refusal("10.0.0.2", at_ms=start + 1))  # another address
        await record_repeated_activity(store, refusal(user_id=None, at_ms=start + 2))  # an unknown name
        entries = await list_activity(store, 10)
    counted = [(e.at_ms, e.remote_addr, e.actor_id, e.details) for e in entries]
    assert counted == [
        (start + REPEAT_WINDOW_MS, "10.0.0.1", "u1", {"reason": "tooManyRequests", "count": 1}),
        (start + 2, "10.0.0.1", None, {"reason": "tooManyRequests", "count": 1}),
        (start + 1, "10.0.0.2", "u1", {"reason": "tooManyRequests", "count": 1}),
        (start, "10.0.0.1", "u1", {"reason": "tooManyRequests", "count": 200}),
    ]


async def test_purge_deletes_only_entries_past_the_retention_in_batches(store) -> None:
    with trio.fail_after(LIMIT_S):
        for n in range(11):
            await record_activity(store, ActivityRecord("server.start", "settings", "system", at_ms=1_000 + n))
        kept = await record_activity(store, ActivityRecord("server.stop", "settings", "system", at_ms=5_000))
        removed = await purge_activity(store, before_ms=2_000, batch=3)
        assert removed == 11
        assert await list_activity(store, 20) == [kept]
        assert await purge_activity(store, before_ms=2_000, batch=3) == 0
