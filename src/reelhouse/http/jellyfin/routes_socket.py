"""GET /socket: Jellyfin's WebSocket, the remote-control channel of a signed-in player.

The same channel as the native ``/sessions/socket`` (``http/remote_control``)
in Jellyfin's framing: the socket is attached to the PlaybackRegistry as
the device's control socket, so the device's sessions are ``stoppable``
while it is open, and an administrator's ``POST
/admin/playback/sessions/{id}/stop`` arrives here and goes down as
``{"MessageType": "Playstate", "Data": {"Command": "Stop"}}``.

Keep-alive as Jellyfin's: the server sends ``ForceKeepAlive`` with a
timeout in seconds on connect; the client then sends ``KeepAlive`` every
half of it and is answered ``KeepAlive``.  A socket that sends nothing for
the whole timeout is dead and closed.  The token comes as Jellyfin's
clients send it (the ``Authorization`` header, or ``api_key`` / ``ApiKey``
in the query); only a member's device holds a socket.
"""

from __future__ import annotations

import json
import logging
import uuid

import trio
from quart import websocket
from quart_schema import hide

from reelhouse import errors
from reelhouse.actors.playback.messages import SocketGrant, StopCommand

from ..device_auth import signed_in_member
from ..remote_control import attached_socket
from .surface import new_blueprint

blueprint = new_blueprint("socket")
log = logging.getLogger(__name__)

KEEPALIVE_SECONDS = 60
"""The ForceKeepAlive timeout: clients send KeepAlive every half of it; silence for all of it closes the socket."""
CLOSE_SILENT = 1011
CLOSE_REPLACED = 1000
MAX_MESSAGE_CHARS = 4096


@blueprint.websocket("/socket")
@hide
async def socket() -> None:
    member = signed_in_member()
    if member is None:
        raise errors.Forbidden("A member's sign-in is required: an API key has no device to control.")
    async with attached_socket(member.device_id) as (_registry, grant):
        await websocket.accept()
        await _Channel(grant).run()


class _Channel:
    """One socket: control messages down, keep-alives both ways."""

    def __init__(self, grant: SocketGrant) -> None:
        self._control = grant.control
        self._heard = trio.current_time()

    async def run(self) -> None:
        await _send("ForceKeepAlive", KEEPALIVE_SECONDS)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._read)
            close_code = await self._send_commands()
            nursery.cancel_scope.cancel()
        await websocket.close(close_code)

    async def _send_commands(self) -> int:
        while True:
            command: StopCommand | None = None
            with trio.move_on_at(self._heard + KEEPALIVE_SECONDS):  # only the wait: a send is never cut
                try:
                    command = await self._control.receive()
                except (trio.EndOfChannel, trio.ClosedResourceError):
                    return CLOSE_REPLACED
            if command is not None:
                await self._send_stop(command)
            elif trio.current_time() >= self._heard + KEEPALIVE_SECONDS:
                log.info("jellyfin socket: nothing heard for %d s; closed", KEEPALIVE_SECONDS)
                return CLOSE_SILENT

    async def _send_stop(self, command: StopCommand) -> None:
        sent = False
        try:
            await _send("Playstate", {"Command": "Stop"})
            sent = True
        finally:  # also when cancelled: the stop route is waiting for this answer
            try:
                command.answer.send_nowait(sent)
            except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # the stop route gave up waiting

    async def _read(self) -> None:
        while True:
            data = await websocket.receive()
            self._heard = trio.current_time()
            if _message_type(data) == "KeepAlive":
                await _send("KeepAlive")
            # Everything else (SessionsStart and the other subscriptions) is not offered: ignored.


def _message_type(data: str | bytes) -> str | None:
    if isinstance(data, bytes) or len(data) > MAX_MESSAGE_CHARS:
        return None
    try:
        message = json.loads(data)
    except ValueError:
        return None
    kind = message.get("MessageType") if isinstance(message, dict) else None
    return kind if isinstance(kind, str) else None


async def _send(message_type: str, data: object = None) -> None:
    message: dict[str, object] = {"MessageType": message_type, "MessageId": uuid.uuid4().hex}
    if data is not None:
        message["Data"] = data
    await websocket.send(json.dumps(message))
