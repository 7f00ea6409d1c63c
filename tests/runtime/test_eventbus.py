"""EventBus: numbering, persistence before delivery, replay, gaps, slow subscribers."""

from __future__ import annotations

import functools
import gc
import tracemalloc
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest
import trio
import trio.testing

from reelhouse.runtime import (
    Event,
    EventBus,
    Gap,
    MemoryEventLog,
    SubscriberDropped,
    Subscription,
)
from reelhouse.runtime._eventbus import REPLAY_CAPACITY

CAP = 60  # seconds of (virtual) time any test may take


class FakeClock:
    def __init__(self) -> None:
        self.now_ms = 1_700_000_000_000

    def __call__(self) -> int:
        self.now_ms += 1
        return self.now_ms


class GatedLog(MemoryEventLog):
    """Appends wait until ``gate`` is open (None: open)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: trio.Event | None = None

    async def append(self, events: Sequence[Event]) -> None:
        if self.gate is not None:
            await self.gate.wait()
        await super().append(events)


class FlakyLog(MemoryEventLog):
    """The first ``failures`` appends fail; with ``store_first`` they store, then fail."""

    def __init__(self, failures: int, *, store_first: bool = False) -> None:
        super().__init__()
        self.failures = failures
        self.store_first = store_first
        self.attempts = 0

    async def append(self, events: Sequence[Event]) -> None:
        self.attempts += 1
        if self.attempts <= self.failures:
            if self.store_first:
                await super().append(events)
            raise OSError("database is locked")
        await super().append(events)


@asynccontextmanager
async def running(bus: EventBus) -> AsyncIterator[trio.Nursery]:
    async with trio.open_nursery() as nursery:
        await nursery.start(bus.run)
        yield nursery
        nursery.cancel_scope.cancel()


async def read(subscription: Subscription, count: int) -> list[Event | Gap]:
    return [await anext(subscription) for _ in range(count)]


def seqs(items: Sequence[Event | Gap]) -> list[int]:
    return [item.seq for item in items if isinstance(item, Event)]


def publish_many(bus: EventBus, count: int) -> None:
    for i in range(count):
        bus.publish("scan.progress", {"i": i})


async def test_seqs_start_at_one_and_increase_by_one(autojump_clock: trio.abc.Clock) -> None:
    log = MemoryEventLog()
    bus = EventBus(log, clock=FakeClock())
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe() as events:
                publish_many(bus, 700)  # more than one batch
                received = await read(events, 700)
    assert seqs(received) == list(range(1, 701))
    assert [event.seq for event in log.events] == list(range(1, 701))
    first = received[0]
    assert isinstance(first, Event)
    assert first.kind == "scan.progress" and first.data == {"i": 0}
    assert first.at_ms == 1_700_000_000_001
    assert bus.last_seq == 700


async def test_published_data_is_copied_at_publish_time(autojump_clock: trio.abc.Clock) -> None:
    bus = EventBus(MemoryEventLog())
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe() as events:
                data = {"state": "running"}
                bus.publish("scan.started", data)
                data["state"] = "changed"
                [event] = await read(events, 1)
    assert isinstance(event, Event) and event.data == {"state": "running"}


async def test_live_subscription_sees_only_events_after_it_began(
    autojump_clock: trio.abc.Clock,
) -> None:
    bus = EventBus(MemoryEventLog())
    with trio.fail_after(CAP):
        async with running(bus):
            publish_many(bus, 3)
            await trio.testing.wait_all_tasks_blocked()
            async with bus.subscribe(None) as events:
                publish_many(bus, 2)
                assert seqs(await read(events, 2)) == [4, 5]


async def test_replay_after_a_seq_then_live_without_gap_or_duplicate(
    autojump_clock: trio.abc.Clock,
) -> None:
    bus = EventBus(MemoryEventLog())
    with trio.fail_after(CAP):
        async with running(bus):
            publish_many(bus, 10)
            await trio.testing.wait_all_tasks_blocked()
            async with bus.subscribe(after=4) as events:
                publish_many(bus, 3)
                assert seqs(await read(events, 9)) == list(range(5, 14))


async def test_replay_meets_live_exactly_while_a_batch_is_being_persisted(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = GatedLog()
    bus = EventBus(log)
    with trio.fail_after(CAP):
        async with running(bus):
            publish_many(bus, 5)
            await trio.testing.wait_all_tasks_blocked()
            log.gate = trio.Event()
            publish_many(bus, 3)  # numbered 6..8, stuck in the log's append
            await trio.testing.wait_all_tasks_blocked()
            async with bus.subscribe(after=3) as events:
                assert seqs(await read(events, 2)) == [4, 5]
                log.gate.set()
                assert seqs(await read(events, 3)) == [6, 7, 8]


async def test_subscribe_after_a_seq_older_than_the_buffer_yields_a_gap_then_goes_live(
    autojump_clock: trio.abc.Clock,
) -> None:
    bus = EventBus(MemoryEventLog(), replay_capacity=5)
    with trio.fail_after(CAP):
        async with running(bus):
            publish_many(bus, 20)  # the buffer keeps 16..20
            await trio.testing.wait_all_tasks_blocked()
            async with bus.subscribe(after=14) as events:
                publish_many(bus, 1)
                first, live = await read(events, 2)
                assert first == Gap(after=14, live_after=20)
                assert isinstance(live, Event) and live.seq == 21
            # the buffer now keeps 17..21: after 16 nothing is missing
            async with bus.subscribe(after=16) as events:
                assert seqs(await read(events, 5)) == [17, 18, 19, 20, 21]


async def test_subscribe_after_a_seq_never_delivered_yields_a_gap(
    autojump_clock: trio.abc.Clock,
) -> None:
    bus = EventBus(MemoryEventLog())
    with trio.fail_after(CAP):
        async with running(bus):
            publish_many(bus, 2)
            await trio.testing.wait_all_tasks_blocked()
            async with bus.subscribe(after=99) as events:
                assert await anext(events) == Gap(after=99, live_after=2)


async def test_slow_subscriber_is_dropped_while_the_publisher_and_others_continue(
    autojump_clock: trio.abc.Clock,
) -> None:
    bus = EventBus(MemoryEventLog(), subscriber_queue_size=10)
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe() as slow, bus.subscribe() as fast:
                for _ in range(5):
                    publish_many(bus, 10)
                    assert len(seqs(await read(fast, 10))) == 10  # fast keeps up
                with pytest.raises(SubscriberDropped):
                    await anext(slow)
                assert slow.dropped and not fast.dropped
                publish_many(bus, 1)
                assert seqs(await read(fast, 1)) == [51]


async def test_a_dropped_subscriber_is_told_at_once_without_reading(
    autojump_clock: trio.abc.Clock,
) -> None:
    bus = EventBus(MemoryEventLog(), subscriber_queue_size=10)
    told: list[str] = []
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe() as stuck:  # never read: as an SSE stream waiting on its socket
                stuck.on_drop(lambda: told.append("first"))
                publish_many(bus, 5)
                await trio.testing.wait_all_tasks_blocked()
                assert told == []
                publish_many(bus, 10)
                await trio.testing.wait_all_tasks_blocked()
                assert told == ["first"]
                stuck.on_drop(lambda: told.append("late"))  # registered after the drop: called now
    assert told == ["first", "late"]


async def test_seq_continues_after_the_log_across_a_restart(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = MemoryEventLog()
    with trio.fail_after(CAP):
        first = EventBus(log)
        async with running(first):
            publish_many(first, 5)
            await trio.testing.wait_all_tasks_blocked()
        second = EventBus(log)
        async with running(second):
            assert second.last_seq == 5
            async with second.subscribe(after=3) as events:
                publish_many(second, 1)
                assert seqs(await read(events, 3)) == [4, 5, 6]
    assert [event.seq for event in log.events] == [1, 2, 3, 4, 5, 6]


async def test_replay_after_a_restart_yields_events_even_if_the_log_returns_its_own_type(
    autojump_clock: trio.abc.Clock,
) -> None:
    @dataclass(frozen=True, slots=True)
    class Row:
        seq: int
        kind: str
        data: dict[str, int]
        at_ms: int

    class RowLog(MemoryEventLog):
        async def tail(self, limit: int) -> list[Event]:
            return [Row(e.seq, e.kind, dict(e.data), e.at_ms) for e in await super().tail(limit)]  # type: ignore[misc]

    log = RowLog([Event(1, "scan.started", {"n": 1}, 5)])
    bus = EventBus(log)
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe(after=0) as events:
                assert await anext(events) == Event(1, "scan.started", {"n": 1}, 5)


async def test_events_are_persisted_before_any_subscriber_sees_them(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = GatedLog()
    log.gate = trio.Event()
    bus = EventBus(log)
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe() as events:
                publish_many(bus, 3)
                with trio.move_on_after(10):
                    await anext(events)
                    pytest.fail("delivered before it was persisted")
                assert bus.last_seq == 0
                log.gate.set()
                for item in await read(events, 3):
                    assert item in log.events


async def test_a_failing_append_is_retried_and_nothing_is_lost(
    autojump_clock: trio.abc.Clock, caplog: pytest.LogCaptureFixture
) -> None:
    log = FlakyLog(failures=4)
    bus = EventBus(log)
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe() as events:
                publish_many(bus, 3)
                assert seqs(await read(events, 3)) == [1, 2, 3]
    assert log.attempts == 5
    assert [event.seq for event in log.events] == [1, 2, 3]
    assert "database is locked" in caplog.text


async def test_an_append_that_stored_but_failed_is_retried_without_duplicates(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = FlakyLog(failures=1, store_first=True)
    bus = EventBus(log)
    with trio.fail_after(CAP):
        async with running(bus):
            async with bus.subscribe() as events:
                publish_many(bus, 2)
                assert seqs(await read(events, 2)) == [1, 2]
                publish_many(bus, 1)
                assert seqs(await read(events, 1)) == [3]
    assert [event.seq for event in log.events] == [1, 2, 3]


async def test_events_published_before_run_are_numbered_once_it_starts(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = MemoryEventLog([Event(1, "scan.started", {}, 0)])
    bus = EventBus(log)
    publish_many(bus, 2)
    with trio.fail_after(CAP):
        async with running(bus):
            await trio.testing.wait_all_tasks_blocked()
    assert [event.seq for event in log.events] == [1, 2, 3]


async def test_publish_queue_is_bounded_and_refusals_are_counted_and_logged(
    autojump_clock: trio.abc.Clock, caplog: pytest.LogCaptureFixture
) -> None:
    log = MemoryEventLog()
    bus = EventBus(log, max_pending=5)
    publish_many(bus, 7)  # the bus is not running yet: nothing drains the queue
    assert bus.dropped_count == 2
    assert "publish queue full" in caplog.text
    with trio.fail_after(CAP):
        async with running(bus):
            await trio.testing.wait_all_tasks_blocked()
    assert [event.seq for event in log.events] == [1, 2, 3, 4, 5]


async def test_stopping_persists_what_is_queued_and_ends_subscriptions(
    autojump_clock: trio.abc.Clock,
) -> None:
    log = MemoryEventLog()
    bus = EventBus(log)
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await nursery.start(bus.run)
            async with bus.subscribe() as events:
                publish_many(bus, 3)
                nursery.cancel_scope.cancel()  # before the bus task ran at all
                with trio.CancelScope(shield=True):
                    received = [item async for item in events]
    assert [event.seq for event in log.events] == [1, 2, 3]
    assert seqs(received) == [1, 2, 3]
    bus.publish("scan.started", {})  # never raises, even now
    assert bus.dropped_count == 1


async def test_subscribe_before_run_is_an_error() -> None:
    bus = EventBus(MemoryEventLog())
    with pytest.raises(RuntimeError):
        async with bus.subscribe():
            pass


async def test_memory_log_rejects_a_hole_in_the_seqs() -> None:
    log = MemoryEventLog()
    event = functools.partial(Event, kind="k", data={}, at_ms=0)
    await log.append([event(1), event(2)])
    with pytest.raises(ValueError):
        await log.append([event(4)])
    await log.append([event(2), event(3)])  # 2 again is skipped
    assert [e.seq for e in log.events] == [1, 2, 3]
    assert await log.last_seq() == 3
    assert [e.seq for e in await log.tail(2)] == [2, 3]


class NullLog(MemoryEventLog):
    """Keeps nothing: what stays in memory after publishing is the bus's own."""

    async def append(self, events: Sequence[Event]) -> None:
        await trio.lowlevel.checkpoint()


def scan_status(n: int) -> dict[str, object]:
    """A ScanStatus as scans publish it, its strings distinct per event as in a real scan."""
    root = "/srv/media/films"
    return {"libraryId": "7a3c909dae498be768056a9eb7132ebd", "state": "running", "processed": n, "errors": 0,
            "added": 0, "changed": n % 7, "missing": 0, "total": 1002, "phase": "write",
            "currentDir": f"{root}/Zero Zero Heart Ice {n} (2002)", "startedAt": f"2026-11-28T15:25:{n % 60:02d}.{n % 1000:03d}Z",
            "roots": [{"path": root, "online": True, "checkedAt": f"2026-11-28T15:25:17.{n % 1000:03d}Z",
                       "lastOnline": f"2026-11-28T15:25:17.{n % 1000:03d}Z"}], "watch": "disabled"}  # fmt: skip


async def test_a_full_replay_buffer_of_scan_events_takes_under_eight_megabytes(
    autojump_clock: trio.abc.Clock,
) -> None:
    bus = EventBus(NullLog())
    tracemalloc.start()
    try:
        with trio.fail_after(CAP):
            async with running(bus):
                before = tracemalloc.get_traced_memory()[0]
                for n in range(REPLAY_CAPACITY + 1_000):  # past the capacity: the oldest leave
                    bus.publish("scan.progress", scan_status(n))
                    if n % 500 == 0:
                        await trio.testing.wait_all_tasks_blocked()
                await trio.testing.wait_all_tasks_blocked()
                gc.collect()
                kept = tracemalloc.get_traced_memory()[0] - before
                async with bus.subscribe(after=1_000) as events:  # the oldest kept, as published
                    [first] = await read(events, 1)
    finally:
        tracemalloc.stop()
    assert kept < 8_000_000
    assert isinstance(first, Event) and first.seq == 1_001 and dict(first.data) == scan_status(1_000)
