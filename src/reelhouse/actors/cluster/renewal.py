"""Keeping leases alive: renewals on a fixed schedule, retried at once, a step-down by deadline.

Shared by the leases of the libraries a node leads (:mod:`.leadership`)
and the scheduler's seat (:mod:`.seat`).  What it promises:

- **On schedule.**  Each lease is renewed one renewal interval
  (``lease_seconds / 3``) after its last renewal *started*, whatever else
  the node does: the look for libraries to lead runs in a task of its own,
  so a slow look never pushes a renewal back.  (Before, a node slept a
  renewal interval *after* a round of renewal plus look, each capped at an
  interval: two renewals could be a whole lease apart, and one slow round
  under load let the lease expire in the database while nobody else wanted
  it; the lone node stepped down.)
- **Retried at once.**  A renewal that fails or does not answer within an
  interval is tried again after :data:`RETRY_FRACTION` of an interval, not
  a whole round later.  Renewals run in the store's lease lane
  (:func:`reelhouse.storage.cluster_leases.renew_leases`): a connection of
  their own, never queued behind a scan's writes.
- **A step-down by deadline.**  A lease with no renewal confirmed for
  :data:`STEP_DOWN_FRACTION` of ``lease_seconds`` by this node's clock is
  given up, even while a renewal is still waiting for its answer (the
  renewal is cut at that deadline): cut off from the database, a node stops
  before its lease can have expired there, so before another node can take
  it.  Its time counts from when the last confirmed renewal (or the take)
  *started*, which is never later than the database's own start of the
  lease's new term.
- **An answer is the truth.**  A renewal answered "not held" (another node
  took the lease, or its row is gone) is lost at once; one answered "held"
  extends even a lease that expired in the database, as long as its row
  still names this node and epoch (:mod:`reelhouse.storage.cluster_leases`).
"""

from __future__ import annotations

import logging
from typing import Protocol

import trio

from reelhouse.storage import StoreError
from reelhouse.storage.cluster_leases import renew_leases

from .node import ClusterNode

log = logging.getLogger(__name__)

STEP_DOWN_FRACTION = 0.8  # of lease_seconds: the margin covers clock drift and stopping what the lease ran
RETRY_FRACTION = 1 / 6  # of a renewal interval, between a failed renewal and the next try


class LeaseHolder(Protocol):
    """What holds leases: which, the confirmation of a renewal, and what losing one does."""

    def holding(self) -> dict[str, tuple[int, float]]:
        """Every lease to renew: name -> (epoch, when its last confirmed renewal or take started)."""
        ...

    def renewed(self, name: str, epoch: int, started: float) -> None:
        """``name`` (of ``epoch``) was renewed by a renewal that started at ``started``."""
        ...

    async def lost(self, name: str, epoch: int) -> None:
        """Give up ``name`` (of ``epoch``): it is gone, or may have expired. Called once per loss."""
        ...


async def keep_renewing(node: ClusterNode, holder: LeaseHolder, what: str) -> None:
    """Renew ``holder``'s leases on schedule until cancelled (``what`` names them in logs)."""
    interval = node.config.renew_seconds
    retry_at: float | None = None
    while True:
        held = holder.holding()
        if retry_at is not None:
            wake = retry_at
        elif held:
            wake = min(since for _epoch, since in held.values()) + interval
        else:
            wake = trio.current_time() + interval  # nothing held: a lease taken meanwhile is due later
        await trio.sleep_until(wake)
        held = holder.holding()  # leases taken or given up while this task slept
        if not held:
            retry_at = None
            continue
        renewed = await renew_once(node, holder, held, what)
        retry_at = None if renewed else trio.current_time() + interval * RETRY_FRACTION


async def renew_once(node: ClusterNode, holder: LeaseHolder, held: dict[str, tuple[int, float]], what: str) -> bool:
    """Renew ``held`` once; whether the database answered (lost leases told to ``holder`` either way)."""
    started = trio.current_time()
    margin = node.config.lease_seconds * STEP_DOWN_FRACTION
    deadline = min(since for _epoch, since in held.values()) + margin
    kept: set[str] | None = None
    with trio.move_on_at(min(started + node.config.renew_seconds, deadline)) as scope:
        try:
            kept = await renew_leases(node.store, node.node_id, [(name, epoch) for name, (epoch, _s) in held.items()],
                                      node.config.lease_ms)
        except StoreError as error:
            log.warning("renewing %s failed: %s", what, error)
    if scope.cancelled_caught:
        log.warning("renewing %s did not finish within %.1f s", what, trio.current_time() - started)
    if kept is not None:
        for name, (epoch, _since) in held.items():
            if name in kept:
                holder.renewed(name, epoch, started)
            else:  # another node took it, or its row is gone: the database says so
                await holder.lost(name, epoch)
        return True
    now = trio.current_time()
    for name, (epoch, since) in held.items():
        if now >= since + margin:  # as the deadline above is reckoned: the lease it cut is lost
            await holder.lost(name, epoch)  # may expire before the next try: stop before another node can lead
    return False
