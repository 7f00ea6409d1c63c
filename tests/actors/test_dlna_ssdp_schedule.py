"""SSDP's schedule and its limit, on Trio's mock clock with a fake socket: alive at start and again every
REANNOUNCE_SECONDS, byebye when stopped, a flood of M-SEARCHes gets at most MAX_PENDING_ANSWERS answers, and
a search that came in on an interface not configured gets none."""

from __future__ import annotations

import socket
import struct
from typing import Any, cast

import trio
from trio.testing import MockClock

from reelhouse.actors.dlna_ssdp import (
    IP_PKTINFO,
    MAX_PENDING_ANSWERS,
    REANNOUNCE_SECONDS,
    Interface,
    SsdpConfig,
    serve_ssdp,
)
from reelhouse.media.dlna.ssdp import MULTICAST_ADDRESS, targets

UDN = "uuid:0b7a6c8e-1111-2222-3333-444455556666"
CONFIG = SsdpConfig(interfaces=("eth0",), port=8096, udn=UDN, server="Linux/1.0 UPnP/1.0 Reelhouse/test")
SEARCHER = ("192.0.2.7", 50000)
ETH0 = 2  # the configured interface's index


class FakeSocket:
    """What SSDP sends (datagram, address) and a channel of what it receives."""

    def __init__(self) -> None:
        self.sent: list[tuple[bytes, Any]] = []
        self.incoming, self._received = trio.open_memory_channel[tuple[bytes, Any, int]](1000)

    async def sendto(self, datagram: bytes, address: Any) -> int:
        self.sent.append((datagram, address))
        return len(datagram)

    def arrive(self, datagram: bytes, sender: Any, index: int = ETH0) -> None:
        """``datagram`` comes in from ``sender`` on the interface of ``index``."""
        self.incoming.send_nowait((datagram, sender, index))

    async def recvmsg(self, _size: int, _ancillary_size: int) -> tuple[bytes, list[tuple[int, int, bytes]], int, Any]:
        datagram, sender, index = await self._received.receive()
        pktinfo = struct.pack("=i4s4s", index, socket.inet_aton("192.0.2.1"), socket.inet_aton("192.0.2.1"))
        return datagram, [(socket.IPPROTO_IP, IP_PKTINFO, pktinfo)], 0, sender

    def kinds(self, nts: str) -> int:
        return sum(1 for datagram, address in self.sent if address[0] == MULTICAST_ADDRESS and nts.encode() in datagram)

    def answers(self) -> int:
        return sum(1 for _, address in self.sent if address == SEARCHER)


def m_search(st: str) -> bytes:
    return f'M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 3\r\nST: {st}\r\n\r\n'.encode()


async def test_alive_at_start_again_on_schedule_and_byebye_when_stopped(autojump_clock: MockClock) -> None:
    sock = FakeSocket()
    every = len(targets(UDN))
    async with trio.open_nursery() as nursery:
        await nursery.start(serve_ssdp, [Interface("eth0", "192.0.2.1", cast(Any, sock), ETH0)], CONFIG)
        assert sock.kinds("ssdp:alive") == every
        await trio.sleep(REANNOUNCE_SECONDS * 2 + 1)
        assert sock.kinds("ssdp:alive") == 3 * every
        assert sock.kinds("ssdp:byebye") == 0
        nursery.cancel_scope.cancel()
    assert sock.kinds("ssdp:byebye") == every
    assert all(b"LOCATION: http://192.0.2.1:8096/dlna/description.xml" in d for d, _ in sock.sent if b"alive" in d)


async def test_a_flood_of_searches_gets_at_most_the_pending_limit_of_answers(autojump_clock: MockClock) -> None:
    sock = FakeSocket()
    async with trio.open_nursery() as nursery:
        await nursery.start(serve_ssdp, [Interface("eth0", "192.0.2.1", cast(Any, sock), ETH0)], CONFIG)
        for _ in range(5 * MAX_PENDING_ANSWERS):
            sock.arrive(m_search(UDN), SEARCHER)
        await trio.sleep(10)  # past every MX wait
        assert sock.answers() == MAX_PENDING_ANSWERS  # one datagram per answer (ST: the UDN); the rest dropped
        sock.arrive(m_search("upnp:rootdevice"), SEARCHER)
        sock.arrive(m_search("urn:example:other"), SEARCHER)  # not ours: no answer
        await trio.sleep(10)
        assert sock.answers() == MAX_PENDING_ANSWERS + 1  # the limit frees as answers go
        nursery.cancel_scope.cancel()


async def test_a_search_that_came_in_on_an_interface_not_configured_is_not_answered(autojump_clock: MockClock) -> None:
    sock = FakeSocket()
    async with trio.open_nursery() as nursery:
        await nursery.start(serve_ssdp, [Interface("eth0", "192.0.2.1", cast(Any, sock), ETH0)], CONFIG)
        sock.arrive(m_search(UDN), SEARCHER, index=ETH0 + 1)  # sent to one of the host's addresses, via eth1
        await trio.sleep(10)  # past every MX wait
        assert sock.answers() == 0
        sock.arrive(m_search(UDN), SEARCHER)
        await trio.sleep(10)
        assert sock.answers() == 1
        nursery.cancel_scope.cancel()
