"""Sign-in limits and the PIN lock on both backends, with a fake clock (explicit ``now``)."""

from __future__ import annotations

import trio

from reelhouse.storage.members import add_user
from reelhouse.storage.signin_limits import (
    ADDRESS_LIMIT,
    ADDRESS_WINDOW_MS,
    NAME_LIMIT,
    NAME_WINDOW_MS,
    PIN_LOCK_FAILURES,
    PIN_WINDOW_MS,
    Failure,
    clear_pin_lock,
    name_key,
    pin_locked,
    record_failure,
    retry_after_seconds,
)

LIMIT_S = 30
T0 = 1_800_000_000_000


async def fail(store, name: str, address: str, at: int, kind: str = "password", user_id: str | None = None) -> None:
    await record_failure(store, Failure(name, address, kind, user_id), at)


async def test_five_failures_in_a_minute_for_one_name_and_address_limit_until_the_oldest_expires(store) -> None:
    with trio.fail_after(LIMIT_S):
        for n in range(NAME_LIMIT - 1):
            await fail(store, "Ann", "1.2.3.4", T0 + n * 1000)
        assert await retry_after_seconds(store, "ann", "1.2.3.4", T0 + 5000) is None
        await fail(store, "ANN", "1.2.3.4", T0 + 4000)
        # Limited for 60 s after the first failure, rounded up to whole seconds.
        assert await retry_after_seconds(store, "Ann", "1.2.3.4", T0 + 4500) == 56
        assert await retry_after_seconds(store, "Ann", "1.2.3.4", T0 + NAME_WINDOW_MS - 1) == 1
        assert await retry_after_seconds(store, "Ann", "1.2.3.4", T0 + NAME_WINDOW_MS) is None
        # Another name or another address is not limited by these.
        assert await retry_after_seconds(store, "Bob", "1.2.3.4", T0 + 5000) is None
        assert await retry_after_seconds(store, "Ann", "5.6.7.8", T0 + 5000) is None


async def test_thirty_failures_in_ten_minutes_from_one_address_limit_every_name(store) -> None:
    with trio.fail_after(LIMIT_S):
        for n in range(ADDRESS_LIMIT):
            await fail(store, f"name{n}", "9.9.9.9", T0 + n * 10_000)
        now = T0 + ADDRESS_LIMIT * 10_000
        assert await retry_after_seconds(store, "someone", "9.9.9.9", now) == (ADDRESS_WINDOW_MS - 300_000) // 1000
        assert await retry_after_seconds(store, "someone", "9.9.9.9", T0 + ADDRESS_WINDOW_MS) is None
        assert await retry_after_seconds(store, "someone", "8.8.8.8", now) is None


async def test_pin_lock_after_twenty_failures_in_a_day_and_cleared(store) -> None:
    with trio.fail_after(LIMIT_S):
        user = await add_user(store, "Kid", is_admin=False, password=None)
        for n in range(PIN_LOCK_FAILURES - 1):
            await fail(store, "kid", f"10.0.0.{n}", T0 + n * 60_000, "pin", user.id)
        now = T0 + PIN_LOCK_FAILURES * 60_000
        assert not await pin_locked(store, user.id, now)
        await fail(store, "kid", "10.0.1.1", now, "pin", user.id)
        assert await pin_locked(store, user.id, now + 1)
        assert not await pin_locked(store, user.id, T0 + PIN_WINDOW_MS + 60_000)  # the first left the window
        await clear_pin_lock(store, user.id)
        assert not await pin_locked(store, user.id, now + 1)


async def test_failures_older_than_a_day_are_pruned(store) -> None:
    with trio.fail_after(LIMIT_S):
        await fail(store, "old", "1.1.1.1", T0)
        await fail(store, "new", "1.1.1.1", T0 + PIN_WINDOW_MS + 1)
        rows = await store.fetch_all("SELECT name_key FROM signin_failures")
    assert [row["name_key"] for row in rows] == [name_key("new")]
