"""The stream's byte counter tells a real actor StreamedBytes in batches, and never waits for it."""

from __future__ import annotations

import trio
import trio.testing

from reelhouse.actors.playback.messages import StreamedBytes
from reelhouse.http.stream_meter import BATCH_BYTES, BATCH_SECONDS, StreamMeter
from reelhouse.runtime import Actor, ActorRef, spawn

CHUNK = 256 * 1024


class Registry(Actor):
    """Stands in for the PlaybackRegistry: records what it is told; holds its mailbox while ``busy``."""

    def __init__(self) -> None:
        self.told: list[StreamedBytes] = []
        self.busy = trio.Event()
        self.busy.set()

    async def handle(self, msg: object) -> object:
        await self.busy.wait()
        assert isinstance(msg, StreamedBytes)
        self.told.append(msg)
        return None


async def started(nursery: trio.Nursery, mailbox_size: int = 64) -> tuple[Registry, ActorRef]:
    registry = Registry()
    return registry, await spawn(nursery, registry, "playback", mailbox_size=mailbox_size)


async def test_bytes_are_told_per_mebibyte_and_the_rest_at_the_end(nursery: trio.Nursery) -> None:
    registry, ref = await started(nursery)
    meter = StreamMeter(ref, "dev1", "item1")
    for _ in range(9):  # 2.25 MiB in quarter-MiB chunks, no time passing
        meter.add(CHUNK)
    meter.flush()
    await trio.testing.wait_all_tasks_blocked()
    assert [m.nbytes for m in registry.told] == [BATCH_BYTES, BATCH_BYTES, CHUNK]
    assert {(m.device_id, m.item_id) for m in registry.told} == {("dev1", "item1")}


async def test_a_slow_stream_tells_its_bytes_every_second(nursery: trio.Nursery, autojump_clock: trio.abc.Clock) -> None:
    registry, ref = await started(nursery)
    meter = StreamMeter(ref, "dev1", "item1")
    meter.add(1000)
    await trio.sleep(BATCH_SECONDS / 2)
    meter.add(1000)
    await trio.testing.wait_all_tasks_blocked()
    assert registry.told == []
    await trio.sleep(BATCH_SECONDS)
    meter.add(500)
    await trio.testing.wait_all_tasks_blocked()
    assert [m.nbytes for m in registry.told] == [2500]


async def test_a_full_mailbox_drops_the_batch_without_waiting(nursery: trio.Nursery) -> None:
    registry, ref = await started(nursery, mailbox_size=1)
    registry.busy = trio.Event()  # the registry is stuck on its first message
    meter = StreamMeter(ref, "dev1", "item1")
    with trio.fail_after(5):  # never blocks: a blocking tell would hang here
        for _ in range(4 * 4):
            meter.add(CHUNK)  # four batches: one handled (stuck), one queued, two dropped
            await trio.testing.wait_all_tasks_blocked()
    assert meter.dropped == 2
    registry.busy.set()
    await trio.testing.wait_all_tasks_blocked()
    assert [m.nbytes for m in registry.told] == [BATCH_BYTES, BATCH_BYTES]


async def test_a_stopped_registry_or_none_counts_nothing() -> None:
    async with trio.open_nursery() as actor_nursery:
        _registry, ref = await started(actor_nursery)
        actor_nursery.cancel_scope.cancel()  # the registry ends, as at shutdown
    assert not ref.alive
    stopped = StreamMeter(ref, "dev1", "item1")
    stopped.add(BATCH_BYTES)  # must not raise into the stream
    stopped.flush()
    absent = StreamMeter(None, "dev1", "item1")
    absent.add(BATCH_BYTES)
    assert stopped.dropped == 0 and absent.dropped == 0


async def test_nothing_sent_tells_nothing(nursery: trio.Nursery) -> None:
    registry, ref = await started(nursery)
    meter = StreamMeter(ref, "dev1", "item1")
    meter.add(0)
    meter.flush()
    await trio.testing.wait_all_tasks_blocked()
    assert registry.told == []
