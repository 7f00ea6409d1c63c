"""GET /sessions/socket: the players' remote-control channel (api-decisions.md, "Outside the reference").

Served by Quart-Trio's own WebSocket support (``@blueprint.websocket``),
not a second server with trio-websocket: our edge (``http/edge``) runs
Hypercorn's h11 protocol, which upgrades the connection and hands it to
the app as an ASGI ``websocket`` scope, so the socket shares the port, the
connection cap, the shutdown (streams close at once) and the app's
authentication (``before_websocket`` in ``http/auth.py``: a device token in
``Authorization``, checked before the upgrade is accepted).  trio-websocket
is the client the tests talk to it with.

Messages are JSON text frames with a ``type``.  Server to player:
``{"type": "stop", "sessionId"}`` and ``{"type": "ping"}`` every
``[playback] ping_interval_seconds``; player to server: ``{"type":
"pong"}`` and ``{"type": "stopped", "sessionId", "positionSec"}``.  A
socket whose player sends no pong within ``pong_timeout_seconds`` of a
ping is dead: it is closed.

Asks flow down: this route asks the PlaybackRegistry to attach the socket
and gets a channel of control messages to send; it tells the registry when
the socket ends (a tell needs no await, so it works while cancelled).
A ``stop`` is answered on the command's own channel once it went down the
socket (the stop route's 204), or at once with False when the socket failed.  The
device's sessions are ``stoppable`` exactly while the socket is attached.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
from quart import Blueprint, websocket

from reelhouse import errors
from reelhouse.actors.playback.messages import AttachSocket, DetachSocket, EndSession, SocketGrant, StopCommand
from reelhouse.runtime import ActorError, ActorRef

from .asks import ask
from .context import app_context
from .device_auth import signed_in_member
from .openapi import may_answer, raw_response
from .playback_reports import registry_ref

blueprint = Blueprint("remote_control", __name__)

CLOSE_NO_PONG = 1011  # the player stopped answering pings
CLOSE_REPLACED = 1000  # the device opened a newer socket
MAX_MESSAGE_CHARS = 4096

log = logging.getLogger(__name__)


@blueprint.websocket("/sessions/socket")
@raw_response(101, None, "Switching Protocols: the WebSocket remote-control channel (JSON text frames).")
@may_answer((403, "An API key: only a player's device token holds a remote-control socket."), 503)
async def socket() -> None:
    """The remote-control channel of a signed-in player (device token)."""
    member = signed_in_member()
    if member is None:
        raise errors.Forbidden("A player's device token is required (POST /auth/login); an API key has no device.")
    async with attached_socket(member.device_id) as (registry, grant):
        await websocket.accept()
        await _Channel(registry, member.device_id, grant).run()


@asynccontextmanager
async def attached_socket(device_id: str) -> AsyncIterator[tuple[ActorRef, SocketGrant]]:
    """The registry's grant of the device's control socket, detached however the socket ends
    (the native channel and the Jellyfin surface's /socket share it)."""
    registry = registry_ref()
    grant: SocketGrant = await ask(registry, AttachSocket(device_id))
    try:
        yield registry, grant
    finally:
        grant.control.close()
        try:
            registry.try_tell(DetachSocket(device_id, grant.socket_id))
        except ActorError:
            pass  # the registry stopped: nothing is stoppable any more


class _Channel:
    """One socket: sends control messages and pings, reads pongs and stopped reports."""

    def __init__(self, registry: ActorRef, device_id: str, grant: SocketGrant) -> None:
        playback = app_context().settings.playback
        self._registry = registry
        self._device_id = device_id
        self._control = grant.control
        self._ping_every = playback.ping_interval_seconds
        self._pong_timeout = playback.pong_timeout_seconds
        self._pong_due = math.inf  # set by a ping, cleared by its pong

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._read)
            close_code = await self._send()
            nursery.cancel_scope.cancel()
        await websocket.close(close_code)

    async def _send(self) -> int:
        """Send what comes down the control channel, and pings; returns the close code when done."""
        next_ping = trio.current_time() + self._ping_every
        while True:
            command: StopCommand | None = None
            with trio.move_on_at(min(next_ping, self._pong_due)):  # only the wait: a send is never cut
                try:
                    command = await self._control.receive()
                except (trio.EndOfChannel, trio.ClosedResourceError):
                    return CLOSE_REPLACED
            if command is not None:
                await self._send_stop(command)
                continue
            now = trio.current_time()
            if now >= self._pong_due:
                log.info("remote-control socket of device %s: no pong; closed", self._device_id)
                return CLOSE_NO_PONG
            if now >= next_ping:
                await self._send_json({"type": "ping"})
                self._pong_due = min(self._pong_due, now + self._pong_timeout)
                next_ping = now + self._ping_every

    async def _send_stop(self, command: StopCommand) -> None:
        sent = False
        try:
            await self._send_json({"type": "stop", "sessionId": command.session_id})
            sent = True
        finally:  # also when cancelled: the stop route is waiting for this answer
            try:
                command.answer.send_nowait(sent)
            except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # the stop route gave up waiting

    async def _send_json(self, message: dict[str, object]) -> None:
        await websocket.send(json.dumps(message))

    async def _read(self) -> None:
        while True:
            data = await websocket.receive()
            message = _parse(data)
            if message is None:
                continue
            match message.get("type"):
                case "pong":
                    self._pong_due = math.inf
                case "stopped":
                    await self._stopped(message)
                case _:
                    pass  # unknown types are ignored, like unknown body fields

    async def _stopped(self, message: dict[str, object]) -> None:
        session_id, position = message.get("sessionId"), message.get("positionSec")
        if not isinstance(session_id, str):
            return
        if not isinstance(position, (int, float)) or isinstance(position, bool):
            position = None
        try:
            await ask(self._registry, EndSession(session_id, self._device_id, position, None))
        except errors.DomainError as error:
            log.info("remote-control socket of device %s: stopped for %s refused: %s",
                     self._device_id, session_id, error.message)  # fmt: skip


def _parse(data: str | bytes) -> dict[str, object] | None:
    if isinstance(data, bytes) or len(data) > MAX_MESSAGE_CHARS:
        return None
    try:
        message = json.loads(data)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None

