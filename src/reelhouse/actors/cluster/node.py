"""This server as a node of a cluster on one PostgreSQL database.

:class:`ClusterNode` is what the actors that coordinate through the
database share: the store, this node's id and address, the notification
channel and the :class:`Wakeups` its notifications set.  :func:`run_node`
(a task of the actor tree's nursery, like the EventBus) registers the node,
listens, heartbeats, deletes nodes silent past the expiry and commands
nobody waits for, and on a clean stop deletes the node's row and leases so
another node takes its libraries over at once.  A SQLite server has no
ClusterNode: it is a cluster of one and runs none of this.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field

import trio

from reelhouse.shutdown import bounded_shield
from reelhouse.storage import Store, StoreError
from reelhouse.storage.cluster_commands import purge_stale_commands
from reelhouse.storage.cluster_leases import open_lease_lane
from reelhouse.storage.cluster_nodes import expire_dead_nodes, heartbeat, remove_node
from reelhouse.storage.cluster_notify import RECONNECTED, channel_name, listen

log = logging.getLogger(__name__)

LEAVE_TIMEOUT_SECONDS = 2.0  # deleting the node's row and leases on a clean stop
WAKEUP_QUEUE = 1024


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    lease_seconds: float = 10.0
    heartbeat_seconds: float = 2.0
    node_expiry_seconds: float = 15.0
    command_poll_seconds: float = 1.0
    session_sweep_seconds: float = 15.0

    @property
    def lease_ms(self) -> int:
        return int(self.lease_seconds * 1000)

    @property
    def renew_seconds(self) -> float:
        """Renewals come three times a lease: one lost round trip does not lose it."""
        return self.lease_seconds / 3


class Wakeups:
    """One trio.Event per notification key, set (and forgotten) when that key is notified.

    A waiter takes the event *before* it looks in the database and waits on it
    after, so a notification between the two is never missed.
    """

    def __init__(self) -> None:
        self._events: dict[str, trio.Event] = {}

    def event(self, key: str) -> trio.Event:
        return self._events.setdefault(key, trio.Event())

    def wake(self, key: str) -> None:
        event = self._events.pop(key, None)
        if event is not None:
            event.set()

    def wake_all(self) -> None:
        events, self._events = self._events, {}
        for event in events.values():
            event.set()

    async def run(self, receive: trio.MemoryReceiveChannel[str]) -> None:
        async for payload in receive:
            if payload == RECONNECTED:
                self.wake_all()  # some notifications may be lost: everyone looks
                continue
            self.wake(payload)
            self.wake(payload.partition(":")[0])  # "c": any new command


@dataclass(frozen=True, slots=True)
class ClusterNode:
    store: Store
    node_id: str
    address: str
    channel: str
    config: ClusterConfig
    wakeups: Wakeups = field(default_factory=Wakeups)

    async def wait(self, event: trio.Event, *, deadline: float = float("inf")) -> None:
        """Until ``event`` is set, a poll interval passes or ``deadline``, whichever comes first."""
        with trio.move_on_at(min(deadline, trio.current_time() + self.config.command_poll_seconds)):
            await event.wait()


def new_cluster_node(store: Store, address: str, config: ClusterConfig) -> ClusterNode:
    """A node with a fresh id (a restarted server is a new node; its old row expires)."""
    schema = getattr(store, "schema", None)
    return ClusterNode(store, secrets.token_hex(6), address, channel_name(schema), config)


async def run_node(node: ClusterNode, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Register, listen and heartbeat until cancelled; then leave (row and leases deleted)."""
    await heartbeat(node.store, node.node_id, node.address)
    await open_lease_lane(node.store)  # before any lease is taken: renewals find it connected
    log.info("cluster node %s at %s", node.node_id, node.address)
    try:
        send, receive = trio.open_memory_channel[str](WAKEUP_QUEUE)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(node.wakeups.run, receive)
            await nursery.start(listen, getattr(node.store, "dsn", ""), node.channel, send)
            nursery.start_soon(_keep_alive, node)
            task_status.started()
    finally:
        with bounded_shield(LEAVE_TIMEOUT_SECONDS):
            try:
                await remove_node(node.store, node.node_id)
            except StoreError as error:
                log.warning("cluster node %s could not leave cleanly: %s", node.node_id, error)


async def _keep_alive(node: ClusterNode) -> None:
    expiry_ms = int(node.config.node_expiry_seconds * 1000)
    while True:
        await trio.sleep(node.config.heartbeat_seconds)
        # Bounded: a hung connection must not stop the heartbeats for good.
        with trio.move_on_after(node.config.node_expiry_seconds / 3) as scope:
            try:
                await heartbeat(node.store, node.node_id, node.address)
                for dead in await expire_dead_nodes(node.store, expiry_ms):
                    log.warning("cluster node %s stopped answering; removed", dead)
                await purge_stale_commands(node.store)
            except StoreError as error:
                log.warning("cluster heartbeat of node %s failed: %s", node.node_id, error)
        if scope.cancelled_caught:
            log.warning("cluster heartbeat of node %s did not finish in time", node.node_id)
