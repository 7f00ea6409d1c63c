"""The cluster's one Scheduler: it runs on the node holding the ``scheduler`` lease.

Each due task must run once in the cluster, so one Scheduler runs at a time.
:class:`SchedulerSeat` (a task of the actor tree's nursery) takes the lease
when nobody holds it, renews it (:mod:`.renewal`, the same schedule as a
library's lease), and starts the Scheduler as a child of the
root inside the lease's fence (a scheduler that lost its lease cannot
record a run); a lost lease stops it.  :class:`SeatRef` is what the rest of
the node holds as the scheduler's ref: the local actor where it runs, else
a RemoteRef to the holder (through the database, like a library's leader).
A new holder's Scheduler starts from the stored rules and last starts, and
records the runs the old holder left unfinished as failed.
"""

from __future__ import annotations

import logging
from typing import Any

import trio

from reelhouse import errors
from reelhouse.runtime import ActorRef, ActorStopped, ChildSpec, RootActor
from reelhouse.storage import StoreError
from reelhouse.storage.cluster_fence import Fence, fenced
from reelhouse.storage.cluster_leases import acquire_lease

from .inbox import serve_commands
from .node import ClusterNode
from .remote import SCHEDULER, RemoteRef
from .renewal import keep_renewing

log = logging.getLogger(__name__)


class SchedulerSeat:
    def __init__(self, node: ClusterNode, root: RootActor, spec: ChildSpec) -> None:
        self._node = node
        self._root = root
        self._spec = spec
        self._epoch: int | None = None
        self._renewed_at = -float("inf")
        self._changing = trio.Lock()  # starting or stopping the Scheduler, one at a time
        self._remote = RemoteRef(node, SCHEDULER)
        self.ref = SeatRef(self)

    def current(self) -> ActorRef:
        local = self._root.child(self._spec.name)
        return local if local is not None else self._remote

    def is_local(self) -> bool:
        return self._root.child(self._spec.name) is not None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Hold the seat when free (at once, before reporting started), until cancelled: the lease is
        renewed on its own schedule (:mod:`.renewal`), a free seat looked for every renewal interval."""
        await self._take_if_free()
        task_status.started()
        async with trio.open_nursery() as nursery:
            targets = lambda: [SCHEDULER] if self._epoch is not None else []  # noqa: E731
            nursery.start_soon(serve_commands, self._node, targets, lambda _target: self._root.child(self._spec.name))
            nursery.start_soon(keep_renewing, self._node, self, "the scheduler's lease")
            while True:
                await trio.sleep(self._node.config.renew_seconds)
                await self._take_if_free()

    # LeaseHolder (.renewal): the one lease, while held.
    def holding(self) -> dict[str, tuple[int, float]]:
        return {} if self._epoch is None else {SCHEDULER: (self._epoch, self._renewed_at)}

    def renewed(self, name: str, epoch: int, started: float) -> None:
        if self._epoch == epoch:
            self._renewed_at = started

    async def lost(self, name: str, epoch: int) -> None:
        if self._epoch != epoch:
            return
        log.warning("lost the scheduler's lease")
        try:
            await self._leave()
        except ActorStopped:
            pass  # the tree is stopping

    async def _take_if_free(self) -> None:
        if self._epoch is not None:
            return
        try:
            await self._take()
        except StoreError as error:
            log.warning("taking the scheduler's lease failed: %s", error)
        except ActorStopped:
            pass  # the tree is stopping

    async def _take(self) -> None:
        node = self._node
        lease = None
        started = trio.current_time()  # the lease's term began no earlier, by this node's clock
        with trio.move_on_after(node.config.renew_seconds):  # a hung connection: next round
            lease = await acquire_lease(node.store, SCHEDULER, node.node_id, node.config.lease_ms)
        if lease is None:
            return
        async with self._changing:  # renewed from now on; a loss meanwhile waits for the start
            self._epoch, self._renewed_at = lease.epoch, started
            with fenced(Fence(SCHEDULER, node.node_id, lease.epoch)):  # the Scheduler's tasks inherit it
                await self._root.start_child(self._spec)
        log.info("running the cluster's scheduler (epoch %d)", lease.epoch)

    async def _leave(self) -> None:
        async with self._changing:
            self._epoch = None
            await self._root.stop_child(self._spec.name)


class SeatRef(ActorRef):
    """The Scheduler's ref on every node: local where it runs, remote elsewhere."""

    __slots__ = ("_seat",)

    def __init__(self, seat: SchedulerSeat) -> None:  # no mailbox of its own
        self._seat = seat

    @property
    def name(self) -> str:
        return SCHEDULER

    @property
    def alive(self) -> bool:
        return True

    async def ask(self, msg: object, *, timeout: float | None = None) -> Any:
        return await self._seat.current().ask(msg, timeout=timeout)

    async def tell(self, msg: object) -> None:
        try:
            await self._seat.current().tell(msg)
        except errors.Unavailable:
            pass  # no node runs the scheduler right now: a hint (playback, a scan) it can do without

    def try_tell(self, msg: object) -> bool:
        return self._seat.is_local() and self._seat.current().try_tell(msg)
