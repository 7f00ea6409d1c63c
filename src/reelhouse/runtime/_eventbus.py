"""The EventBus: numbers events, persists them, then delivers them.

Persist first, deliver second: ``publish`` only queues; the bus's own task
(``await nursery.start(bus.run)``) takes queued events in batches, numbers
them, appends them to the :class:`EventLog`, and only then adds them to the
replay buffer and fans them out. So any event a subscriber ever saw is
persisted, and seqs are contiguous and never reused (the bus starts after
the log's last seq).

Memory bounds (the publisher is never blocked, so the queue is bounded by
refusing instead):
- publish queue: at most ``MAX_PENDING`` unpersisted events. It only fills
  while the log keeps failing; events published beyond it are refused,
  counted in ``dropped_count`` and logged as errors, never silently lost.
  A refused event gets no seq, so subscribers never see a hole in the
  numbering; the SSE snapshot on reconnect restores the state.
- replay buffer: the newest ``REPLAY_CAPACITY`` events (the reference's
  "at least the last 10,000"), each kept as JSON text (:class:`PackedEvent`):
  about 6 MB of ScanStatus events once full, whatever the uptime.
- each subscriber: ``SUBSCRIBER_QUEUE_SIZE`` unread live events, then it
  is dropped.

Shared (``shared=``, a cluster's nodes on one database): the log numbers
events, not the bus. The pump only appends what was published; a tail task
reads every node's events back in seq order (woken by the log's
``changed()``: a notification, or a poll) and delivers them. So every node's
subscribers see the same events with the same seqs, and a client resumes on
any node with ``Last-Event-ID``.
"""

from __future__ import annotations

import collections
import functools
import itertools
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import trio

from reelhouse.shutdown import bounded_shield

from ._eventlog import Event, EventLog, PackedEvent, SharedEventLog
from ._subscription import SUBSCRIBER_QUEUE_SIZE, Gap, Subscription

REPLAY_CAPACITY = 10_000
MAX_PENDING = 100_000
MAX_BATCH = 500
# Each call to the log; a hung store counts as a failed append and is retried.
LOG_CALL_TIMEOUT = 10.0
RETRY_FIRST_DELAY = 0.1
RETRY_MAX_DELAY = 5.0
# On shutdown, how long the bus may still try to persist what is queued.
FLUSH_ON_STOP_TIMEOUT = 2.0
# Shared mode: the tail also looks this often when no change was announced.
SHARED_POLL_SECONDS = 1.0
# Refused publishes are logged on the first and then every Nth.
_REFUSED_LOG_EVERY = 10_000

_log = logging.getLogger("reelhouse.actors.eventbus")

Clock = Callable[[], int]


def wall_clock_ms() -> int:
    """Wall-clock milliseconds since the epoch (display only)."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class _Published:
    kind: str
    data: Mapping[str, Any]
    at_ms: int


class EventBus:
    """Sequence numbers, persistence, a replay buffer and subscribers.

    Lifecycle: construct, ``await nursery.start(bus.run)`` (loads the last
    seq and the replay buffer from the log, then reports started), use,
    cancel. Publishing before ``run`` started is fine (events wait for it);
    subscribing is not.
    """

    def __init__(
        self,
        log: EventLog,
        *,
        clock: Clock = wall_clock_ms,
        replay_capacity: int = REPLAY_CAPACITY,
        subscriber_queue_size: int = SUBSCRIBER_QUEUE_SIZE,
        max_pending: int = MAX_PENDING,
        shared: SharedEventLog | None = None,
    ) -> None:
        self._log = log
        self._shared = shared
        self._clock = clock
        self._buffer: collections.deque[PackedEvent] = collections.deque(maxlen=replay_capacity)
        self._subscriber_queue_size = subscriber_queue_size
        self._max_pending = max_pending
        self._pending: collections.deque[_Published] = collections.deque()
        self._unpersisted: list[Event] = []
        self._subscribers: set[Subscription] = set()
        self._wakeup = trio.lowlevel.ParkingLot()
        self._state: Literal["new", "running", "stopped"] = "new"
        self._last_seq = 0
        self._last_numbered = 0
        self._refused = 0
        self._dropped_subscribers = 0

    @property
    def last_seq(self) -> int:
        """The seq of the last event persisted and delivered (0 if none ever)."""
        return self._last_seq

    @property
    def running(self) -> bool:
        """Started and not stopped: publishing and subscribing work."""
        return self._state == "running"

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    @property
    def dropped_subscribers(self) -> int:
        """Subscribers dropped for falling behind, since the bus started."""
        return self._dropped_subscribers

    @property
    def dropped_count(self) -> int:
        """Events refused by ``publish`` (queue full, or bus stopped)."""
        return self._refused

    def publish(self, kind: str, data: Mapping[str, Any]) -> None:
        """Queue an event for persistence and delivery; synchronous, never
        blocks, never raises. ``data`` is copied (shallowly) now."""
        try:
            if self._state == "stopped" or len(self._pending) >= self._max_pending:
                self._refuse(kind)
                return
            self._pending.append(_Published(kind, MappingProxyType(dict(data)), self._clock()))
            self._wakeup.unpark_all()
        except Exception:
            _log.exception("EventBus.publish(%r) failed", kind)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Persist and deliver events until cancelled.

        Reports started after loading the last seq and the replay buffer
        from the log (errors there are raised: the bus does not start). On
        cancellation it still tries, for ``FLUSH_ON_STOP_TIMEOUT`` seconds, to
        persist and deliver what is queued, then ends every subscription.
        """
        if self._state != "new":
            raise RuntimeError("EventBus.run may only be called once")
        await self._load()
        self._state = "running"
        task_status.started()
        try:
            await self._pump()
        finally:
            self._state = "stopped"
            await self._flush_on_stop()
            for subscription in self._subscribers:
                subscription.close()

    @asynccontextmanager
    async def subscribe(self, after: int | None = None) -> AsyncIterator[Subscription]:
        """Subscribe; yields an async iterator of ``Event | Gap``.

        - ``after=None``: live events only.
        - ``after=N``: every kept event with seq > N, then live ones, with no
          gap and no duplicate.
        - ``after=N`` older than what is kept (or not a seq this bus ever
          delivered): one :class:`Gap` first, then live events only.

        The iterator raises SubscriberDropped at its next read once it fell
        more than the subscriber queue size behind, and ends when the bus
        stops. Raises RuntimeError if ``run`` has not started.
        """
        await trio.lowlevel.checkpoint()
        if self._state == "new":
            raise RuntimeError("EventBus.subscribe before EventBus.run started")
        # No checkpoint from here to registration: nothing is delivered in
        # between, so replay and live meet exactly.
        subscription = Subscription(self._replay_after(after), self._subscriber_queue_size)
        if self._state == "stopped":
            subscription.close()
        else:
            self._subscribers.add(subscription)
        try:
            yield subscription
        finally:
            self._subscribers.discard(subscription)

    def _replay_after(self, after: int | None) -> list[PackedEvent | Gap]:
        last = self._last_seq
        if after is None or after == last:
            return []
        if after > last:
            return [Gap(after=after, live_after=last)]
        oldest = self._buffer[0].seq if self._buffer else last + 1
        if oldest > after + 1:
            return [Gap(after=after, live_after=last)]
        return list(itertools.islice(self._buffer, after + 1 - oldest, None))

    async def _load(self) -> None:
        with trio.fail_after(LOG_CALL_TIMEOUT):
            last = await self._log.last_seq()
            tail = await self._log.tail(self._buffer.maxlen or 0)
        # A log may return its own record type: replay always yields Event.
        # (Encoding a full buffer takes about 0.1 s, once, before the server serves.)
        self._buffer.extend(PackedEvent.of(Event(e.seq, e.kind, e.data, e.at_ms)) for e in tail)
        self._last_seq = max(last, tail[-1].seq if tail else 0)
        self._last_numbered = self._last_seq

    async def _pump(self) -> None:
        if self._shared is not None:
            await self._pump_shared(self._shared)
            return
        while True:
            while not self._pending and not self._unpersisted:
                await self._wakeup.park()
            if not self._unpersisted:
                self._unpersisted = self._number_batch()
            await self._append_with_retry(self._unpersisted)
            self._deliver(self._unpersisted)
            self._unpersisted = []

    async def _pump_shared(self, shared: SharedEventLog) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._tail, shared)
            while True:
                while not self._pending:
                    await self._wakeup.park()
                batch = [self._pending[i] for i in range(min(MAX_BATCH, len(self._pending)))]
                await self._retry("event log append", functools.partial(shared.append_published, _triples(batch)))
                for _ in batch:
                    self._pending.popleft()

    async def _tail(self, shared: SharedEventLog) -> None:
        """Deliver every appender's events, in seq order, as they are stored."""
        while True:
            changed = shared.changed()  # before looking: a change in between is not missed
            last = self._last_seq
            stored = await self._retry("event log read", functools.partial(shared.after, last, MAX_BATCH))
            if stored:
                self._deliver([Event(e.seq, e.kind, e.data, e.at_ms) for e in stored])
                continue
            with trio.move_on_after(SHARED_POLL_SECONDS):
                await changed.wait()

    async def _retry(self, what: str, call: Callable[[], Any]) -> Any:
        delay, attempt = RETRY_FIRST_DELAY, 1
        while True:
            try:
                with trio.fail_after(LOG_CALL_TIMEOUT):
                    return await call()
            except Exception as error:
                if attempt == 1:
                    _log.error("%s failed; retrying until it succeeds", what, exc_info=error)
            await trio.sleep(delay)
            delay, attempt = min(delay * 2, RETRY_MAX_DELAY), attempt + 1

    def _number_batch(self) -> list[Event]:
        batch: list[Event] = []
        while self._pending and len(batch) < MAX_BATCH:
            published = self._pending.popleft()
            self._last_numbered += 1
            batch.append(Event(self._last_numbered, published.kind, published.data, published.at_ms))
        return batch

    async def _append_with_retry(self, batch: list[Event]) -> None:
        """Append ``batch``, retrying with exponential backoff until it is stored."""
        delay = RETRY_FIRST_DELAY
        attempt = 1
        while True:
            try:
                with trio.fail_after(LOG_CALL_TIMEOUT):
                    await self._log.append(batch)
            except Exception as error:
                if attempt == 1:  # once, not once per retry (a database restarting fails them all)
                    _log.error(
                        "event log append of seq %d..%d failed; retrying until it is stored",
                        batch[0].seq, batch[-1].seq, exc_info=error,
                    )
            else:
                if attempt > 1:
                    _log.warning("event log append of seq %d..%d stored after %d attempts",
                                 batch[0].seq, batch[-1].seq, attempt)
                return
            await trio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_DELAY)
            attempt += 1

    def _deliver(self, batch: list[Event]) -> None:
        self._buffer.extend(PackedEvent.of(event) for event in batch)
        self._last_seq = batch[-1].seq
        for subscription in list(self._subscribers):
            if not subscription.push(batch):
                self._subscribers.discard(subscription)
                self._dropped_subscribers += 1
                _log.warning("dropped a slow event subscriber at seq %d", self._last_seq)

    async def _flush_on_stop(self) -> None:
        with bounded_shield(FLUSH_ON_STOP_TIMEOUT):  # and never past the shutdown deadline
            try:
                while self._shared is not None and self._pending:
                    batch = [self._pending.popleft() for _ in range(min(MAX_BATCH, len(self._pending)))]
                    await self._shared.append_published(_triples(batch))
                while self._unpersisted or self._pending:
                    if not self._unpersisted:
                        self._unpersisted = self._number_batch()
                    await self._log.append(self._unpersisted)
                    self._deliver(self._unpersisted)
                    self._unpersisted = []
            except Exception:
                _log.exception("event log append failed while stopping")
        lost = len(self._unpersisted) + len(self._pending)
        if lost:
            _log.error("event bus stopped with %d events not persisted", lost)

    def _refuse(self, kind: str) -> None:
        self._refused += 1
        if self._refused == 1 or self._refused % _REFUSED_LOG_EVERY == 0:
            reason = "bus stopped" if self._state == "stopped" else "publish queue full"
            _log.error("event %r refused (%s); %d refused so far", kind, reason, self._refused)


def _triples(batch: list[_Published]) -> list[tuple[str, Mapping[str, Any], int]]:
    return [(published.kind, published.data, published.at_ms) for published in batch]
