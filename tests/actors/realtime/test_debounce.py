"""debounce_changes on Trio's mock clock."""

from __future__ import annotations

from pathlib import Path

import trio
import trio.testing

from reelhouse.actors.realtime.debounce import debounce_changes

from .watching import Changes


async def run_debouncer(
    nursery: trio.Nursery, *, debounce: float = 1.0, max_wait: float = 10.0
) -> tuple[trio.MemorySendChannel[frozenset[Path]], Changes]:
    send, receive = trio.open_memory_channel[frozenset[Path]](10)
    changes = Changes()
    nursery.start_soon(
        lambda: debounce_changes(
            receive, debounce_seconds=debounce, max_wait_seconds=max_wait, on_batch=changes
        )
    )
    return send, changes


async def test_debounce_merges_batches_that_arrive_within_the_quiet_period(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        send, changes = await run_debouncer(nursery, debounce=1.0)
        await send.send(frozenset({Path("/a")}))
        await trio.sleep(0.9)
        await send.send(frozenset({Path("/b")}))
        await trio.sleep(0.9)
        await send.send(frozenset({Path("/c")}))
        assert await changes.next() == {Path("/a"), Path("/b"), Path("/c")}
        await send.send(frozenset({Path("/d")}))
        assert await changes.next() == {Path("/d")}
        assert len(changes.calls) == 2
        nursery.cancel_scope.cancel()


async def test_debounce_waits_for_quiet_before_delivering(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        send, changes = await run_debouncer(nursery, debounce=1.0)
        await send.send(frozenset({Path("/a")}))
        await trio.sleep(0.5)
        assert changes.calls == []
        await trio.sleep(1.0)
        assert changes.calls == [{Path("/a")}]
        nursery.cancel_scope.cancel()


async def test_debounce_delivers_a_never_quiet_stream_at_the_cap(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        send, changes = await run_debouncer(nursery, debounce=1.0, max_wait=5.0)
        sent = 0
        while not changes.calls:
            await send.send(frozenset({Path(f"/f{sent}")}))
            sent += 1
            await trio.sleep(0.5)
            assert sent < 100, "a constantly changing tree was never delivered"
        assert changes.calls[0] <= {Path(f"/f{i}") for i in range(sent)}
        nursery.cancel_scope.cancel()


async def test_debounce_flushes_pending_changes_when_the_channel_ends(
    autojump_clock: trio.testing.MockClock,
) -> None:
    send, receive = trio.open_memory_channel[frozenset[Path]](10)
    changes = Changes()
    async with send:
        await send.send(frozenset({Path("/a")}))
    await debounce_changes(receive, debounce_seconds=1.0, max_wait_seconds=10.0, on_batch=changes)
    assert changes.calls == [{Path("/a")}]

