"""A WebSocket on one connection: Hypercorn's WSStream with the whole message bounded.

Every socket the edge upgrades is one of these, whatever route serves it,
so the rule is kept once, here.  Hypercorn's own stream checks its buffer
only after adding a frame, and once over its limit it sends close 1009 but
keeps the connection and goes on buffering every frame that follows: a
client that sent a text frame with FIN=0 and then continuation frames for
ever grew the server by what it sent (400 MiB sent, +421 MiB RSS).

Here a message that would grow past ``websocket_max_message_size`` bytes
(``[http] websocket_max_message_bytes``; a text message counts its UTF-8
bytes), however many frames it comes in, is refused before it is stored:
its buffer is dropped, close 1009 "message too big" is sent, nothing more
is read from the socket, and the connection closes (with the bounded
lingering read of connection.py, so the peer reads the close frame rather
than a reset).  The app's task ends with the connection.

Compression (permessage-deflate) is not offered: a compressed frame
inflates (up to about 1000 times) before any bound could be checked, and
the sockets carry small JSON messages.
"""

from __future__ import annotations

from hypercorn.protocol.events import StreamClosed
from hypercorn.protocol.ws_stream import WSStream
from hypercorn.typing import WebsocketAcceptEvent
from wsproto.connection import ConnectionState
from wsproto.events import CloseConnection, Message, Ping, TextMessage
from wsproto.frame_protocol import CloseReason

MESSAGE_TOO_BIG_REASON = "message too big"


class BoundedWSStream(WSStream):
    """WSStream whose messages are bounded as a whole; ``overflowed`` once one was refused."""

    overflowed = False
    _message_bytes = 0

    async def _accept(self, message: WebsocketAcceptEvent) -> None:
        self.handshake.extensions = None  # no permessage-deflate: see the module's note
        await super()._accept(message)

    async def _handle_events(self) -> None:
        for event in self.connection.events():
            if isinstance(event, Message):
                if not await self._take(event):
                    return
            elif isinstance(event, Ping):
                await self._send_wsproto_event(event.response())
            elif isinstance(event, CloseConnection):
                if self.connection.state == ConnectionState.REMOTE_CLOSING:
                    await self._send_wsproto_event(event.response())
                await self.send(StreamClosed(stream_id=self.stream_id))

    async def _take(self, event: Message) -> bool:
        """Add a piece of a message; hand a finished one to the app.  False
        once the message is over the bound (the socket is being closed)."""
        size = len(event.data.encode()) if isinstance(event, TextMessage) else len(event.data)
        self._message_bytes += size
        if self._message_bytes > self.config.websocket_max_message_size:
            await self._refuse_message()
            return False
        self.buffer.extend(event)
        if event.message_finished:
            assert self.app_put is not None
            await self.app_put(self.buffer.to_message())
            self.buffer.clear()
            self._message_bytes = 0
        return True

    async def _refuse_message(self) -> None:
        self.buffer.clear()
        self.overflowed = True
        await self._send_wsproto_event(CloseConnection(code=CloseReason.MESSAGE_TOO_BIG, reason=MESSAGE_TOO_BIG_REASON))
        self.closed = True  # nothing more is read or buffered
        await self.send(StreamClosed(stream_id=self.stream_id))  # the connection closes
