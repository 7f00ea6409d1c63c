"""Playback across nodes: every node's live sessions in one list, a stop sent to any node.

Live sessions stay in the memory of the node the player reports to (its
PlaybackRegistry, with the player's remote-control socket).
:class:`ClusterPlaybackRef` is what the HTTP edge holds as the registry on a
cluster node: :class:`ListSessions` gathers the local sessions and every
other live node's (asked through the database, ``playback:<node id>``, the
way a library's leader is asked), oldest first; :class:`StopSession` goes to
the local registry and, when it has no such session, to every other node
at once: the one that has it sends ``stop`` down the player's socket there
and answers (204, or 409 ``session_not_stoppable``).  Everything else the
edge asks of playback (reports, sockets) is this node's own.
:func:`serve_playback` answers the other nodes' asks with the local registry.

A node that does not answer in time is left out of a list (logged); its
sessions come back once it answers again, or are recorded as ended by a
crash once it is dead (``storage/live_sessions.py``).
"""

from __future__ import annotations

import logging
from typing import Any

import trio

from reelhouse import errors
from reelhouse.runtime import ActorError, ActorRef
from reelhouse.storage import StoreError
from reelhouse.storage.cluster_nodes import live_nodes

from ..playback.messages import ListSessions, SessionView, StopSession
from .inbox import serve_commands
from .node import ClusterNode
from .remote import PLAYBACK, RemoteRef

log = logging.getLogger(__name__)

REMOTE_ASK_SECONDS = 3.0  # one node's answer to a list or a stop


def playback_target(node_id: str) -> str:
    return PLAYBACK + node_id


async def serve_playback(node: ClusterNode, local: ActorRef) -> None:
    """Answer other nodes' asks of this node's PlaybackRegistry until cancelled."""
    own = playback_target(node.node_id)
    await serve_commands(node, lambda: [own], lambda target: local if target == own else None)


class ClusterPlaybackRef(ActorRef):
    """The PlaybackRegistry as a cluster node's HTTP edge sees it (see the module's doc)."""

    __slots__ = ("_local", "_node")

    def __init__(self, node: ClusterNode, local: ActorRef) -> None:  # no mailbox of its own
        self._node = node
        self._local = local

    @property
    def name(self) -> str:
        return self._local.name

    @property
    def alive(self) -> bool:
        return self._local.alive

    async def ask(self, msg: object, *, timeout: float | None = None) -> Any:
        if isinstance(msg, ListSessions):
            return await self._list(msg, timeout)
        if isinstance(msg, StopSession):
            return await self._stop(msg, timeout)
        return await self._local.ask(msg, timeout=timeout)

    async def tell(self, msg: object) -> None:
        await self._local.tell(msg)

    def try_tell(self, msg: object) -> bool:
        return self._local.try_tell(msg)

    async def _others(self) -> list[RemoteRef]:
        node = self._node
        try:
            rows = await live_nodes(node.store, int(node.config.node_expiry_seconds * 1000))
        except StoreError as error:
            log.warning("could not read the cluster's nodes: %s", error)
            return []
        return [RemoteRef(node, playback_target(row.id)) for row in rows if row.id != node.node_id]

    async def _list(self, msg: ListSessions, timeout: float | None) -> list[SessionView]:
        views: list[SessionView] = list(await self._local.ask(msg, timeout=timeout))

        async def gather(remote: RemoteRef) -> None:
            try:
                views.extend(await remote.ask(msg, timeout=REMOTE_ASK_SECONDS))
            except (errors.DomainError, ActorError) as error:
                log.warning("the live sessions of %s are left out of the list: %s", remote.name, error)

        async with trio.open_nursery() as nursery:
            for remote in await self._others():
                nursery.start_soon(gather, remote)
        return sorted(views, key=lambda view: (view.started_at_ms, view.id))

    async def _stop(self, msg: StopSession, timeout: float | None) -> None:
        try:
            await self._local.ask(msg, timeout=timeout)
            return
        except errors.NotFound as error:
            not_here = error
        failures: list[BaseException] = []
        stopped: list[str] = []

        async def ask_one(remote: RemoteRef) -> None:
            try:
                await remote.ask(msg, timeout=REMOTE_ASK_SECONDS)
                stopped.append(remote.name)
            except errors.NotFound:
                pass  # not that node's session
            except (errors.DomainError, ActorError) as error:
                failures.append(error)

        async with trio.open_nursery() as nursery:
            for remote in await self._others():
                nursery.start_soon(ask_one, remote)
        if not stopped:
            raise failures[0] if failures else not_here
