"""One leader per library: the leases a LibraryRegistry holds, renews and takes over.

:func:`keep_leading` runs in the registry's nursery, as two tasks.  One
renews the leases this node holds on their own schedule (:mod:`.renewal`):
one lost, or not confirmed in time, is told to the registry as
:class:`LeaseLost` (the library's actor stops).  The other, every renewal
interval, offers to lead every library that no node leads and whose
folders this node sees (one root or more: a library no node can see is
offline, never empty), telling each lease won as :class:`LeaseWon`: the
registry starts the library's actor inside the lease's fence.  A lease won
is renewed from the moment it is won, before the registry's turn gets to
it.  The registry's turn alone changes what it leads.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import trio

from reelhouse.runtime import ActorRef, ActorStopped
from reelhouse.storage import StoreError
from reelhouse.storage.cluster_fence import Fence
from reelhouse.storage.cluster_leases import Lease, acquire_lease, live_lease_names, release_lease
from reelhouse.storage.libraries import LibraryRecord, list_libraries

from .node import ClusterNode
from .remote import library_target
from .renewal import keep_renewing

log = logging.getLogger(__name__)

ROOTS_LOOK_TIMEOUT_SECONDS = 2.0  # a hung network mount counts as not seen


@dataclass(frozen=True, slots=True)
class LeaseWon:
    """Tell (to the registry): this node now leads ``record``'s library under ``lease``."""

    record: LibraryRecord
    lease: Lease


@dataclass(frozen=True, slots=True)
class LeaseLost:
    """Tell (to the registry): this node no longer leads the library (lease ``epoch``)."""

    library_id: str
    epoch: int


class Leadership:
    """The leases this node holds for libraries: those it leads (the registry runs their actors) and
    those won and not yet handed to the registry, each with when its last renewal started."""

    def __init__(self, node: ClusterNode) -> None:
        self.node = node
        self.epochs: dict[str, int] = {}  # led
        self._won: dict[str, int] = {}  # won, the registry not told yet: renewed all the same
        self._renewed_at: dict[str, float] = {}  # led or won, until told lost

    def fence(self, library_id: str) -> Fence:
        return Fence(library_target(library_id), self.node.node_id, self.epochs[library_id])

    def leads(self, library_id: str) -> bool:
        """Whether this node holds the library's lease (led, or won and about to be)."""
        return library_id in self.epochs or library_id in self._won

    def epoch_of(self, library_id: str) -> int | None:
        return self.epochs.get(library_id, self._won.get(library_id))

    def held(self, lease: Lease) -> bool:
        """Lead the library of ``lease``, won by :meth:`acquire`; False when it was lost meanwhile."""
        library_id = lease.name.split(":", 1)[1]
        if self._won.get(library_id) != lease.epoch:
            return False
        del self._won[library_id]
        self.epochs[library_id] = lease.epoch
        return True

    def dropped(self, library_id: str, epoch: int | None = None) -> bool:
        """Forget the lease (of ``epoch`` if given), led or won; whether it was held."""
        held = self.epoch_of(library_id)
        if held is None or (epoch is not None and held != epoch):
            return False
        self.epochs.pop(library_id, None)
        self._won.pop(library_id, None)
        self._renewed_at.pop(library_id, None)
        return True

    async def acquire(self, library_id: str) -> Lease | None:
        """Take the library's lease if nobody holds it; renewed from then on, led once :meth:`held`."""
        started = trio.current_time()  # the lease's term began no earlier, by this node's clock
        lease = await acquire_lease(self.node.store, library_target(library_id), self.node.node_id,
                                    self.node.config.lease_ms)
        if lease is not None:
            self._won[library_id] = lease.epoch
            self._renewed_at[library_id] = started
        return lease

    def holding(self) -> dict[str, tuple[int, float]]:
        """Every lease to renew, led or won (see :class:`.renewal.LeaseHolder`)."""
        return {library_target(library_id): (epoch, self._renewed_at[library_id])
                for library_id, epoch in (*self.epochs.items(), *self._won.items())
                if library_id in self._renewed_at}

    def renewed(self, name: str, epoch: int, started: float) -> None:
        library_id = name.split(":", 1)[1]
        if self.epoch_of(library_id) == epoch and library_id in self._renewed_at:
            self._renewed_at[library_id] = started

    def lose(self, library_id: str, epoch: int) -> bool:
        """Renew the lease no more; whether the registry must stop the library's actor (it leads it)."""
        if self._won.get(library_id) == epoch:  # no actor runs yet: forgotten here, nothing to stop
            self.dropped(library_id, epoch)
            log.warning("lost the lease of library %s before leading it", library_id)
            return False
        if self.epochs.get(library_id) != epoch:
            return False
        self._renewed_at.pop(library_id, None)  # the registry's turn drops it (LeaseLost)
        return True

    async def release(self, library_id: str, epoch: int) -> None:
        try:
            await release_lease(self.node.store, library_target(library_id), self.node.node_id, epoch)
        except StoreError as error:
            log.warning("could not release the lease of library %s: %s", library_id, error)


class _Renewals:
    """The library leases as :func:`keep_renewing` sees them; a led one lost is told to the registry."""

    def __init__(self, leadership: Leadership, registry: ActorRef) -> None:
        self._leadership = leadership
        self._registry = registry

    def holding(self) -> dict[str, tuple[int, float]]:
        return self._leadership.holding()

    def renewed(self, name: str, epoch: int, started: float) -> None:
        self._leadership.renewed(name, epoch, started)

    async def lost(self, name: str, epoch: int) -> None:
        library_id = name.split(":", 1)[1]
        if self._leadership.lose(library_id, epoch):
            log.warning("lost the lease of library %s", library_id)
            await self._registry.tell(LeaseLost(library_id, epoch))


async def keep_leading(leadership: Leadership, registry: ActorRef) -> None:
    """Renew the leases held (on their own schedule, :mod:`.renewal`), and offer to lead the
    libraries nobody leads every renewal interval, until cancelled or the registry stops."""
    async with trio.open_nursery() as nursery:

        async def until_the_registry_stops(work: Callable[[], Awaitable[None]]) -> None:
            try:
                await work()
            except ActorStopped:
                nursery.cancel_scope.cancel()  # the registry is stopping

        renewals = _Renewals(leadership, registry)
        nursery.start_soon(until_the_registry_stops,
                           lambda: keep_renewing(leadership.node, renewals, "this node's leases"))
        nursery.start_soon(until_the_registry_stops, lambda: _keep_offering(leadership, registry))


async def _keep_offering(leadership: Leadership, registry: ActorRef) -> None:
    while True:
        await trio.sleep(leadership.node.config.renew_seconds)
        try:
            with trio.move_on_after(leadership.node.config.renew_seconds) as scope:
                await _offer_round(leadership, registry)
        except StoreError as error:
            log.warning("looking for libraries to lead failed: %s", error)
            continue
        if scope.cancelled_caught:
            log.warning("looking for libraries to lead did not finish in time; next round")


async def _offer_round(leadership: Leadership, registry: ActorRef) -> None:
    records = await list_libraries(leadership.node.store)
    existing = {record.id for record in records}
    for library_id, epoch in list(leadership.epochs.items()):
        if library_id not in existing:  # deleted on another node
            await registry.tell(LeaseLost(library_id, epoch))
    won = await offer_to_lead(leadership, records)
    try:
        while won:
            await registry.tell(LeaseWon(*won[0]))
            won.pop(0)
    finally:
        for record, lease in won:  # cut before the registry heard of it: renewed no more, it expires
            leadership.dropped(record.id, lease.epoch)


async def offer_to_lead(leadership: Leadership, records: Sequence[LibraryRecord]) -> list[tuple[LibraryRecord, Lease]]:
    """Take the lease of every library in ``records`` nobody leads whose folders this node sees."""
    live = await live_lease_names(leadership.node.store)
    won: list[tuple[LibraryRecord, Lease]] = []
    try:
        for record in records:
            if leadership.leads(record.id) or library_target(record.id) in live:
                continue
            if not await sees_roots(record.paths):
                continue
            lease = await leadership.acquire(record.id)
            if lease is not None:
                won.append((record, lease))
    except BaseException:
        for record, lease in won:  # nobody will lead them: renewed no more, they expire
            leadership.dropped(record.id, lease.epoch)
        raise
    return won


async def sees_roots(paths: Sequence[str]) -> bool:
    """Whether one root or more is a directory here (a hung mount counts as not seen)."""
    with trio.move_on_after(ROOTS_LOOK_TIMEOUT_SECONDS):
        return await trio.to_thread.run_sync(_any_directory, tuple(paths), abandon_on_cancel=True)
    return False


def _any_directory(paths: Sequence[str]) -> bool:
    return any(os.path.isdir(path) for path in paths)


