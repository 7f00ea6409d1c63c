"""WebSockets at the edge over a real socket, frames written by hand: the
bound on a whole message, whatever route serves the socket."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request
from wsproto.extensions import PerMessageDeflate

from ..conftest import RunningServer, start_server
from ..members import add_member, token_for
from .rawhttp import connect

LIMIT_S = 30
PASSWORD = "correct horse battery"
FRAGMENT = b"x" * 4096
OPCODE_TEXT, OPCODE_CONTINUATION, OPCODE_CLOSE = 0x1, 0x0, 0x8
# The edge's rule, not the store's: one backend is enough.
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)


def client_frame(opcode: int, payload: bytes, *, fin: bool) -> bytes:
    """One masked client frame (mask key zero: the payload goes as it is)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


async def open_remote_control(server: RunningServer, **request: object) -> tuple[trio.SocketStream, AcceptConnection]:
    """A signed-in player's remote-control socket, upgraded by hand."""
    await add_member(server, "Cat", password=PASSWORD)
    token = await token_for(server, "Cat", password=PASSWORD)
    stream = await connect(server.base_url)
    handshake = WSConnection(ConnectionType.CLIENT)
    await stream.send_all(handshake.send(Request(
        host="test", target="/api/v1/sessions/socket",
        extra_headers=[(b"authorization", f"Bearer {token}".encode())], **request,  # type: ignore[arg-type]
    )))  # fmt: skip
    while True:
        handshake.receive_data(await stream.receive_some(65536))
        for event in handshake.events():
            assert isinstance(event, AcceptConnection), event
            return stream, event


async def read_until_closed(stream: trio.SocketStream) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    try:
        while data := await stream.receive_some(65536):
            received += data
    except trio.BrokenResourceError:
        pass  # reset once the server stopped reading: closed all the same
    return received


async def send_fragments_for_ever(stream: trio.SocketStream) -> None:
    """A text message that never ends: FIN=0, then continuation frames."""
    try:
        await stream.send_all(client_frame(OPCODE_TEXT, FRAGMENT, fin=False))
        while True:
            await stream.send_all(client_frame(OPCODE_CONTINUATION, FRAGMENT, fin=False))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the server closed the connection


@SQLITE_ONLY
async def test_a_websocket_message_that_never_ends_is_closed_with_1009_and_the_connection_dropped(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await start_server(nursery, database_url, tmp_path / "data")
    with trio.fail_after(LIMIT_S):  # Hypercorn alone never closed: it buffered every fragment
        stream, _ = await open_remote_control(server)
        async with trio.open_nursery() as sending:
            sending.start_soon(send_fragments_for_ever, stream)
            received = await read_until_closed(stream)
            sending.cancel_scope.cancel()
        await stream.aclose()
    assert received[0] == 0x80 | OPCODE_CLOSE, received[:16]
    length = received[1]
    code, reason = int.from_bytes(received[2:4], "big"), received[4 : 2 + length].decode()
    assert (code, reason) == (1009, "message too big")
    assert len(received) == 2 + length  # nothing after the close frame
    server.shutdown.set()


@SQLITE_ONLY
async def test_websocket_compression_is_not_negotiated(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await start_server(nursery, database_url, tmp_path / "data")
    with trio.fail_after(LIMIT_S):  # a compressed frame would inflate before the bound is checked
        stream, accepted = await open_remote_control(server, extensions=[PerMessageDeflate()])
        await stream.aclose()
    assert accepted.extensions == []
    server.shutdown.set()
