"""One EventBus subscriber: replayed events first, then a bounded live queue."""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import trio

from ._eventlog import PackedEvent

if TYPE_CHECKING:
    from ._eventbus import Event

# Live events a subscriber may have unread before it is dropped.
SUBSCRIBER_QUEUE_SIZE = 1_000


class SubscriberDropped(Exception):
    """The subscriber fell too far behind and was dropped; reconnect with the last seq."""


@dataclass(frozen=True, slots=True)
class Gap:
    """Events after ``after`` are no longer kept: the subscriber missed some.

    Yielded once, first; what follows is live: events with seq > ``live_after``
    (the bus's last seq when the subscription began). The SSE endpoint sends
    a snapshot of the current state here.
    """

    after: int
    live_after: int


class Subscription:
    """Async iterator over ``Event | Gap`` for one subscriber.

    Ends (StopAsyncIteration) when the bus stops; raises SubscriberDropped
    at the next read once its live queue overflowed. Obtain it from
    ``EventBus.subscribe``. Live events wait in a memory channel of
    ``capacity``; a publisher never waits on it (``send_nowait``), and one
    that finds it full drops the subscriber.
    """

    def __init__(self, replay: Sequence[Event | PackedEvent | Gap], capacity: int = SUBSCRIBER_QUEUE_SIZE) -> None:
        self._replay: collections.deque[Event | PackedEvent | Gap] = collections.deque(replay)
        channel: tuple[trio.MemorySendChannel[Event], trio.MemoryReceiveChannel[Event]]
        channel = trio.open_memory_channel(capacity)
        self._send, self._receive = channel
        self._dropped = False
        self._on_drop: Callable[[], None] | None = None

    @property
    def dropped(self) -> bool:
        return self._dropped

    def on_drop(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the subscriber is dropped (at once if it was).

        It runs in the publisher's task and must not block or raise: a
        reader that is stuck elsewhere (an SSE stream waiting on its socket)
        learns of the drop only this way.
        """
        self._on_drop = callback
        if self._dropped:
            callback()

    def push(self, events: Iterable[Event]) -> bool:
        """Queue live events; never blocks. False (and dropped) if they do not fit."""
        try:
            for event in events:
                self._send.send_nowait(event)
        except trio.WouldBlock:
            self._drop()
        except trio.ClosedResourceError:
            pass  # closed or dropped already
        return not self._dropped

    def _drop(self) -> None:
        self._dropped = True
        self._replay.clear()
        self._send.close()  # wakes a waiting reader, which then raises SubscriberDropped
        if self._on_drop is not None:
            self._on_drop()

    def close(self) -> None:
        """End the iteration once what is queued has been read."""
        self._send.close()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event | Gap:
        await trio.lowlevel.checkpoint()
        if self._dropped:
            raise SubscriberDropped("subscriber fell behind and was dropped")
        if self._replay:
            kept = self._replay.popleft()
            return kept.unpack() if isinstance(kept, PackedEvent) else kept  # unpacked as read: no stall
        try:
            event = await self._receive.receive()
        except trio.EndOfChannel:
            event = None
        if self._dropped:
            raise SubscriberDropped("subscriber fell behind and was dropped")
        if event is None:
            raise StopAsyncIteration
        return event
