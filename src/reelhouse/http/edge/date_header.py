"""The headers the server adds to every response (``Date``, ``Server``), formatted once a second.

Hypercorn formats them for each response (``Config.response_headers``:
``wsgiref``'s ``format_date_time`` of the current time, then encoded),
about 1 % of a cheap request's time on the event loop.  ``Date`` has a
resolution of one second (RFC 9110, section 6.6.1), so the bytes are
kept until the clock's second changes.  A configuration this does not
cover (Alt-Svc headers, QUIC) gets Hypercorn's own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from wsgiref.handlers import format_date_time

from hypercorn.config import Config

Headers = list[tuple[bytes, bytes]]


class DateHeader:
    """``Date``'s value for the clock's current second; reformatted when the second changes."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._second = -1
        self._value = b""

    def value(self) -> bytes:
        second = int(self._clock())
        if second != self._second:
            self._value = format_date_time(second).encode("ascii")
            self._second = second
        return self._value


_DATE = DateHeader()
_SERVER = b"hypercorn-h11"  # what Hypercorn sends for HTTP/1.1 (its Server header names the protocol)


def server_headers(config: Config, date: DateHeader = _DATE) -> Headers:
    """``config.response_headers("h11")``, with the date from ``date``."""
    if config.alt_svc_headers or config._quic_addresses:
        return config.response_headers("h11")
    headers: Headers = []
    if config.include_date_header:
        headers.append((b"date", date.value()))
    if config.include_server_header:
        headers.append((b"server", _SERVER))
    return headers
