"""KeyedLocks: callers with one key take turns, other keys never wait, nothing is kept after."""

from __future__ import annotations

import trio
import trio.testing

from reelhouse.http.keyed_locks import KeyedLocks


async def test_one_key_takes_turns_and_other_keys_do_not_wait() -> None:
    locks = KeyedLocks()
    inside: list[str] = []
    most = 0

    async def hold(key: str, gate: trio.Event) -> None:
        nonlocal most
        async with locks.hold(key):
            inside.append(key)
            most = max(most, inside.count("a"))
            await gate.wait()
            inside.remove(key)

    gate_a, gate_b = trio.Event(), trio.Event()
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(hold, "a", gate_a)
            nursery.start_soon(hold, "b", gate_b)
            await trio.testing.wait_all_tasks_blocked()
            assert sorted(inside) == ["a", "b"]  # b did not wait for a
            gate_a.set()
            gate_b.set()
    assert most == 1 and len(locks) == 0
