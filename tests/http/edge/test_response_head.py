"""The response head as the edge writes it: the server's headers (Date formatted once a
second, with a fake clock) and the writes a response takes (none of them empty)."""

from __future__ import annotations

from typing import Any
from wsgiref.handlers import format_date_time

import hypercorn.config
import pytest
from hypercorn.config import Config
from hypercorn.events import Event, RawData, Updated
from hypercorn.protocol.events import Body, EndBody, Response, StreamClosed
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState

from reelhouse.http.edge.date_header import DateHeader, server_headers
from reelhouse.http.edge.protocol import ReelhouseH11Protocol


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_date_is_formatted_again_when_the_clocks_second_changes() -> None:
    clock = FakeClock(1_700_000_000.2)
    date = DateHeader(clock)
    first = date.value()
    clock.now = 1_700_000_000.999
    assert date.value() is first  # the same second: the bytes made once
    clock.now = 1_700_000_001.0
    assert date.value() == format_date_time(1_700_000_001).encode("ascii") != first
    clock.now = 1_700_000_000.5  # a clock set back: the date follows it
    assert date.value() == first


def test_the_server_headers_are_hypercorns_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hypercorn.config, "time", lambda: 1_700_000_000.7)
    config = Config()
    assert server_headers(config, DateHeader(lambda: 1_700_000_000.7)) == config.response_headers("h11")
    config.include_server_header = False
    assert server_headers(config, DateHeader(lambda: 1_700_000_000.7)) == config.response_headers("h11")
    config.alt_svc_headers = ['h3=":443"']  # not covered here: Hypercorn's
    assert server_headers(config, DateHeader(lambda: 0.0)) == config.response_headers("h11")


class _Recorded:
    def __init__(self) -> None:
        self.events: list[Event] = []

    async def __call__(self, event: Event) -> None:
        self.events.append(event)

    def writes(self) -> list[bytes]:
        return [event.data for event in self.events if isinstance(event, RawData)]


async def _answered(headers: list[tuple[bytes, bytes]], body: bytes) -> _Recorded:
    """The events the protocol sent for a GET answered with ``headers`` and ``body``."""
    sent = _Recorded()
    args: tuple[Any, ...] = (None, Config(), WorkerContext(None), None, ConnectionState({}), False, None, None, sent)
    protocol = ReelhouseH11Protocol(*args)
    protocol.connection.receive_data(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n")
    protocol.connection.next_event()  # the request
    protocol.connection.next_event()  # its end
    await protocol.stream_send(Response(stream_id=1, status_code=200, headers=headers))
    await protocol.stream_send(Body(stream_id=1, data=body))
    await protocol.stream_send(EndBody(stream_id=1))
    await protocol.stream_send(StreamClosed(stream_id=1))
    return sent


async def test_a_sized_response_is_one_write_and_no_empty_one() -> None:
    sent = await _answered([(b"content-length", b"2")], b"ok")
    writes = sent.writes()
    assert len(writes) == 1
    assert writes[0].startswith(b"HTTP/1.1 200 ") and writes[0].endswith(b"\r\n\r\nok")
    assert b"\r\ndate: " in writes[0] and b"\r\nserver: hypercorn-h11\r\n" in writes[0]
    assert isinstance(sent.events[-1], Updated) and sent.events[-1].idle  # ready for the next request


async def test_a_chunked_response_still_ends_with_its_last_chunk() -> None:
    sent = await _answered([(b"content-type", b"text/plain")], b"ok")
    head, chunk, end = sent.writes()
    assert head.startswith(b"HTTP/1.1 200 ") and b"\r\ntransfer-encoding: chunked\r\n" in head.lower()
    assert (chunk, end) == (b"2\r\nok\r\n", b"0\r\n\r\n")


async def test_the_last_request_hypercorn_keeps_alive_for_is_answered_with_close() -> None:
    sent = _Recorded()
    config = Config()
    args: tuple[Any, ...] = (None, config, WorkerContext(None), None, ConnectionState({}), False, None, None, sent)
    protocol = ReelhouseH11Protocol(*args)
    protocol.keep_alive_requests = config.keep_alive_max_requests
    protocol.connection.receive_data(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n")
    protocol.connection.next_event()
    protocol.connection.next_event()
    await protocol.stream_send(Response(stream_id=1, status_code=200, headers=[(b"content-length", b"0")]))
    await protocol.stream_send(EndBody(stream_id=1))
    (write,) = sent.writes()
    assert write.endswith(b"\r\nconnection: close\r\n\r\n")
