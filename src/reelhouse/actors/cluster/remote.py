"""RemoteRef: an ActorRef for an actor that runs on another node (the leader of a library).

It answers ``ask`` and ``tell`` as the actor would, through the database: the
message goes as a command row to whichever node leads the target
(:mod:`reelhouse.storage.cluster_commands`), the leader asks its own actor,
and the answer, or the DomainError it replied with (409s included), comes
back the same way.  The ask's deadline travels with the command: the
leader gives its actor only the time the asker has left.  A target that no
node leads (no node sees the library's folders) answers 503 at once.
"""

from __future__ import annotations

import math
from typing import Any

import trio

from reelhouse import errors
from reelhouse.runtime import DEFAULT_ASK_TIMEOUT_SECONDS, ActorRef, AskTimeout
from reelhouse.shutdown import bounded_shield
from reelhouse.storage import StoreError
from reelhouse.storage.cluster_commands import REPLY_WAKE, command_reply, forget_command, send_command
from reelhouse.storage.cluster_leases import lease_holder

from ..library_messages import GetScrapeQueue
from .codec import dumps, load_outcome
from .node import ClusterNode

FORGET_TIMEOUT_SECONDS = 2.0
RETRY_AFTER_SECONDS = 5
LIBRARY = "library:"
SCRAPE = "scrape:"
SCHEDULER = "scheduler"  # the lease, and the target, of the cluster's one Scheduler
PLAYBACK = "playback:"  # playback:<node id>: that node's PlaybackRegistry (no lease: the node serves it)


def library_target(library_id: str) -> str:
    return LIBRARY + library_id


def lease_of(target: str) -> str | None:
    """The lease whose holder serves ``target`` (a library's scrape queue runs with the library);
    None for a node's own target (``playback:<node id>``)."""
    if target == SCHEDULER:
        return SCHEDULER
    if target.startswith(PLAYBACK):
        return None
    return LIBRARY + target.split(":", 1)[1]


class RemoteRef(ActorRef):
    """The address of ``target`` (``library:<id>``, ``scrape:<id>``) on whichever node leads it."""

    __slots__ = ("_node", "_target")

    def __init__(self, node: ClusterNode, target: str) -> None:  # no mailbox: nothing local
        self._node = node
        self._target = target

    @property
    def name(self) -> str:
        return self._target

    @property
    def alive(self) -> bool:
        return True

    async def ask(self, msg: object, *, timeout: float | None = None) -> Any:
        if isinstance(msg, GetScrapeQueue) and self._target.startswith(LIBRARY):
            return RemoteRef(self._node, SCRAPE + self._target.removeprefix(LIBRARY))
        deadline = _deadline(timeout)
        with trio.move_on_at(deadline):
            return await self._send_and_wait(msg, deadline)
        raise AskTimeout(self.name, f"no answer from the node leading {self.name} before the ask's deadline")

    async def tell(self, msg: object) -> None:
        await self._send(msg, trio.current_time() + DEFAULT_ASK_TIMEOUT_SECONDS)

    def try_tell(self, msg: object) -> bool:
        return False  # a tell to another node waits for the database: callers that cannot wait skip it

    async def _send(self, msg: object, deadline: float) -> int:
        node = self._node
        try:
            lease = lease_of(self._target)
            if lease is not None and await lease_holder(node.store, lease) is None:
                raise errors.Unavailable(
                    "No node can see this library's folders now; it is offline.",
                    params={"retryAfterSeconds": RETRY_AFTER_SECONDS, "reason": "library_offline"},
                )
            timeout_ms = max(int((deadline - trio.current_time()) * 1000), 1)
            return await send_command(node.store, node.channel, self._target, dumps(msg), timeout_ms)
        except StoreError as error:
            raise _database_unavailable() from error

    async def _send_and_wait(self, msg: object, deadline: float) -> Any:
        node = self._node
        command_id = await self._send(msg, deadline)
        try:
            while True:
                answered = node.wakeups.event(f"{REPLY_WAKE}:{command_id}")  # before looking: never missed
                try:
                    reply = await command_reply(node.store, command_id)
                except StoreError as error:
                    raise _database_unavailable() from error
                if reply is not None:
                    return load_outcome(reply)
                await node.wait(answered, deadline=deadline)
        finally:
            with bounded_shield(FORGET_TIMEOUT_SECONDS):
                try:
                    await forget_command(node.store, command_id)
                except StoreError:
                    pass  # purged later by any node (purge_stale_commands)


def _deadline(timeout: float | None) -> float:
    inherited = trio.current_effective_deadline()
    if timeout is not None:
        return min(inherited, trio.current_time() + timeout)
    return trio.current_time() + DEFAULT_ASK_TIMEOUT_SECONDS if inherited == math.inf else inherited


def _database_unavailable() -> errors.Unavailable:
    return errors.Unavailable(
        "The database did not complete the request; try again shortly.",
        params={"retryAfterSeconds": RETRY_AFTER_SECONDS},
    )
