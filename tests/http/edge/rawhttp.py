"""HTTP/1.1 by hand over a raw socket: for what a client library hides
(early responses, malformed requests, connections that stay idle)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import trio


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


async def connect(base_url: str) -> trio.SocketStream:
    address = urlsplit(base_url)
    assert address.hostname is not None and address.port is not None
    return await trio.open_tcp_stream(address.hostname, address.port)


class Reader:
    """Reads responses (content-length framed) off one stream."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def _fill(self) -> bool:
        chunk = await self.stream.receive_some(65536)
        self.buffer += chunk
        return bool(chunk)

    async def response(self) -> RawResponse:
        while b"\r\n\r\n" not in self.buffer:
            if not await self._fill():
                raise EOFError(f"connection closed before a response head: {self.buffer!r}")
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            if not await self._fill():
                raise EOFError("connection closed inside a response body")
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return RawResponse(int(status_line.split()[1]), headers, body)

    async def at_eof(self) -> bool:
        """True once the server closed the connection with nothing more sent."""
        try:
            return not await self._fill() and not self.buffer
        except trio.BrokenResourceError:
            return not self.buffer  # reset by the server: closed all the same


def request(method: str, path: str, *headers: str, body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: test", *headers]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body
