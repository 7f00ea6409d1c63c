"""One leader per library: the leases a LibraryRegistry holds, renews and takes over.

:func:`keep_leading` runs in the registry's nursery.  Every renewal
interval it renews the leases this node holds (one lost, or not renewed
within its length, is told to the registry as :class:`LeaseLost`: the
library's actor stops), then offers to lead every library that no node
leads and whose folders this node sees (one root or more: a library no
node can see is offline, never empty), telling each lease won as
:class:`LeaseWon`: the registry starts the library's actor inside the
lease's fence.  The registry's turn alone changes what it leads; this task
only reads it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass

import trio

from reelhouse.runtime import ActorRef, ActorStopped
from reelhouse.storage import StoreError
from reelhouse.storage.cluster_fence import Fence
from reelhouse.storage.cluster_leases import Lease, acquire_lease, live_lease_names, release_lease, renew_leases
from reelhouse.storage.libraries import LibraryRecord, list_libraries

from .node import ClusterNode
from .remote import library_target

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
    """The leases of the libraries this node leads: epoch and when each was last renewed."""

    def __init__(self, node: ClusterNode) -> None:
        self.node = node
        self.epochs: dict[str, int] = {}
        self._renewed_at: dict[str, float] = {}

    def fence(self, library_id: str) -> Fence:
        return Fence(library_target(library_id), self.node.node_id, self.epochs[library_id])

    def leads(self, library_id: str) -> bool:
        return library_id in self.epochs

    def held(self, lease: Lease) -> None:
        library_id = lease.name.split(":", 1)[1]
        self.epochs[library_id] = lease.epoch
        self._renewed_at[library_id] = trio.current_time()

    def dropped(self, library_id: str, epoch: int | None = None) -> bool:
        """Forget the lease (of ``epoch`` if given); whether it was held."""
        if library_id not in self.epochs or (epoch is not None and self.epochs[library_id] != epoch):
            return False
        del self.epochs[library_id]
        self._renewed_at.pop(library_id, None)
        return True

    async def acquire(self, library_id: str) -> Lease | None:
        return await acquire_lease(self.node.store, library_target(library_id), self.node.node_id,
                                   self.node.config.lease_ms)

    async def release(self, library_id: str, epoch: int) -> None:
        try:
            await release_lease(self.node.store, library_target(library_id), self.node.node_id, epoch)
        except StoreError as error:
            log.warning("could not release the lease of library %s: %s", library_id, error)

    async def renew(self) -> list[tuple[str, int]]:
        """Renew every held lease; the (library, epoch) pairs lost (or not renewed in time)."""
        held = dict(self.epochs)
        started = trio.current_time()
        pairs = [(library_target(library_id), epoch) for library_id, epoch in held.items()]
        kept = await renew_in_time(self.node, pairs, "this node's leases")
        lost = []
        for library_id, epoch in held.items():
            if kept is not None and library_target(library_id) in kept:
                self._renewed_at[library_id] = started
            elif kept is not None or self._expired_here(library_id):
                lost.append((library_id, epoch))
        return lost

    def _expired_here(self, library_id: str) -> bool:
        # By this node's clock, with a margin: cut off from the database, a
        # leader stops before its lease can have expired there.
        renewed = self._renewed_at.get(library_id, -float("inf"))
        return trio.current_time() - renewed > self.node.config.lease_seconds * 0.8


async def renew_in_time(node: ClusterNode, pairs: list[tuple[str, int]], what: str) -> set[str] | None:
    """The names of ``pairs`` renewed; None when the renewal failed or did not finish within a
    renewal interval (a connection cut while this process was paused must not hold it longer:
    the caller steps down once its lease may have expired)."""
    with trio.move_on_after(node.config.renew_seconds):
        try:
            return await renew_leases(node.store, node.node_id, pairs, node.config.lease_ms)
        except StoreError as error:
            log.warning("renewing %s failed: %s", what, error)
            return None
    log.warning("renewing %s did not finish within %.1f s", what, node.config.renew_seconds)
    return None


async def keep_leading(leadership: Leadership, registry: ActorRef) -> None:
    """Renew, and offer to lead the libraries nobody leads, every renewal interval, until cancelled."""
    while True:
        await trio.sleep(leadership.node.config.renew_seconds)
        try:
            await _one_round(leadership, registry)
        except StoreError as error:
            log.warning("cluster lease round failed: %s", error)
        except ActorStopped:
            return  # the registry is stopping


async def _one_round(leadership: Leadership, registry: ActorRef) -> None:
    for library_id, epoch in await leadership.renew():  # within a renewal interval
        log.warning("lost the lease of library %s", library_id)
        await registry.tell(LeaseLost(library_id, epoch))
    with trio.move_on_after(leadership.node.config.renew_seconds) as scope:
        await _offer_round(leadership, registry)
    if scope.cancelled_caught:
        log.warning("looking for libraries to lead did not finish in time; next round")


async def _offer_round(leadership: Leadership, registry: ActorRef) -> None:
    records = await list_libraries(leadership.node.store)
    existing = {record.id for record in records}
    for library_id, epoch in list(leadership.epochs.items()):
        if library_id not in existing:  # deleted on another node
            await registry.tell(LeaseLost(library_id, epoch))
    for record, lease in await offer_to_lead(leadership, records):
        await registry.tell(LeaseWon(record, lease))


async def offer_to_lead(leadership: Leadership, records: Sequence[LibraryRecord]) -> list[tuple[LibraryRecord, Lease]]:
    """Take the lease of every library in ``records`` nobody leads whose folders this node sees."""
    live = await live_lease_names(leadership.node.store)
    won = []
    for record in records:
        if leadership.leads(record.id) or library_target(record.id) in live:
            continue
        if not await sees_roots(record.paths):
            continue
        lease = await leadership.acquire(record.id)
        if lease is not None:
            won.append((record, lease))
    return won


async def sees_roots(paths: Sequence[str]) -> bool:
    """Whether one root or more is a directory here (a hung mount counts as not seen)."""
    with trio.move_on_after(ROOTS_LOOK_TIMEOUT_SECONDS):
        return await trio.to_thread.run_sync(_any_directory, tuple(paths), abandon_on_cancel=True)
    return False


def _any_directory(paths: Sequence[str]) -> bool:
    return any(os.path.isdir(path) for path in paths)


