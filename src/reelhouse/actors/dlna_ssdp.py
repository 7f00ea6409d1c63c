"""SSDP for the DLNA MediaServer: a task in the actor tree's nursery, only on ``[dlna] interfaces``.

One UDP socket per configured interface, on port 1900, in the SSDP group
on that interface alone (``IP_MULTICAST_ALL`` off: a datagram that came
in on another interface is not ours to answer).  The sockets are bound to
the wildcard address (a socket bound to the group or to the interface's
address would miss the searches sent to the other), so a unicast M-SEARCH
sent to any of the host's addresses reaches them whatever interface it
came in on: each datagram's arrival interface is read (``IP_PKTINFO``),
one that came in on an interface not configured is dropped, and one that
came in on a configured interface is answered with that interface's
LOCATION (whichever of the sockets the kernel gave it to).  At start every target is
announced alive, again every :data:`REANNOUNCE_SECONDS` (a third of the
max-age, so a television's cache never runs out), and byebye is sent as
the task stops (the tree's graceful stop cancels it; the farewell is
shielded for at most :data:`BYEBYE_SECONDS`).  An M-SEARCH is answered
by unicast after a random wait within its MX (at most 5 s); at most
:data:`MAX_PENDING_ANSWERS` answers wait at once, further searches are
dropped, so a flood costs bounded memory and no task per datagram.
An interface that does not exist or has no IPv4 address is logged and skipped.
"""

from __future__ import annotations

import fcntl
import logging
import random
import socket
import struct
from dataclasses import dataclass
from email.utils import formatdate
from typing import cast

import trio

from reelhouse.media.dlna import ssdp

log = logging.getLogger(__name__)

REANNOUNCE_SECONDS = ssdp.MAX_AGE_SECONDS / 3
BYEBYE_SECONDS = 1.0
MAX_PENDING_ANSWERS = 32
SIOCGIFADDR = 0x8915
IP_MULTICAST_ALL = getattr(socket, "IP_MULTICAST_ALL", 49)  # Linux's value; not in every Python build
IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)  # Linux's value
_PKTINFO = struct.Struct("=i4s4s")  # struct in_pktinfo: ipi_ifindex, ipi_spec_dst, ipi_addr


@dataclass(frozen=True, slots=True)
class SsdpConfig:
    interfaces: tuple[str, ...]
    port: int  # the HTTP server's port: LOCATION is http://<interface address>:<port>/dlna/description.xml
    udn: str
    server: str  # the SERVER header: "Linux/1.0 UPnP/1.0 Reelhouse/<version>"


@dataclass(frozen=True, slots=True)
class Interface:
    name: str
    address: str
    sock: trio.socket.SocketType
    index: int  # the interface's index: a datagram's IP_PKTINFO names the interface it came in on by it

    def location(self, port: int) -> str:
        return f"http://{self.address}:{port}/dlna/description.xml"


def interface_address(name: str) -> str:
    """The interface's IPv4 address (Linux ``SIOCGIFADDR``); OSError when it has none or does not exist."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        packed = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
    return socket.inet_ntoa(packed[20:24])


async def run_ssdp(config: SsdpConfig, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    interfaces = await _open(config.interfaces)
    try:
        await serve_ssdp(interfaces, config, task_status)
    finally:
        for interface in interfaces:
            interface.sock.close()


async def serve_ssdp(interfaces: list[Interface], config: SsdpConfig,
                     task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:  # fmt: skip
    """Announce, answer and re-announce on the opened ``interfaces`` until cancelled, then say byebye."""
    try:
        async with trio.open_nursery() as nursery:
            answers = trio.Semaphore(MAX_PENDING_ANSWERS)
            by_index = {interface.index: interface for interface in interfaces}
            for interface in interfaces:
                nursery.start_soon(_listen, interface.sock, by_index, config, answers, nursery)
            await _announce(interfaces, config, "ssdp:alive")
            task_status.started()
            while True:
                await trio.sleep(REANNOUNCE_SECONDS)
                await _announce(interfaces, config, "ssdp:alive")
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(BYEBYE_SECONDS):
            await _announce(interfaces, config, "ssdp:byebye")


async def _open(names: tuple[str, ...]) -> list[Interface]:
    opened: list[Interface] = []
    for name in names:
        try:
            address = interface_address(name)
            index = socket.if_nametoindex(name)
            sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.IPPROTO_IP, IP_MULTICAST_ALL, 0)
            sock.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
            await sock.bind(("", ssdp.PORT))
            group = socket.inet_aton(ssdp.MULTICAST_ADDRESS) + socket.inet_aton(address)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, group)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 2)
        except OSError as exc:
            log.warning("DLNA: SSDP cannot use interface %s (%s); skipped", name, exc)
            continue
        opened.append(Interface(name, address, sock, index))
        log.info("DLNA: SSDP on %s (%s)", name, address)
    return opened


async def _announce(interfaces: list[Interface], config: SsdpConfig, nts: str) -> None:
    for interface in interfaces:
        for nt, usn in ssdp.targets(config.udn):
            datagram = ssdp.notify(nts, nt, usn, interface.location(config.port), config.server)
            try:
                await interface.sock.sendto(datagram, (ssdp.MULTICAST_ADDRESS, ssdp.PORT))
            except OSError as exc:  # the interface went down: announce again next time
                log.warning("DLNA: SSDP %s on %s failed (%s)", nts, interface.name, exc)
                break


async def _listen(sock: trio.socket.SocketType, by_index: dict[int, Interface], config: SsdpConfig,
                  answers: trio.Semaphore, nursery: trio.Nursery) -> None:  # fmt: skip
    while True:
        datagram, ancillary, _flags, address = await sock.recvmsg(ssdp.MAX_DATAGRAM_BYTES + 1,
                                                                 socket.CMSG_SPACE(_PKTINFO.size))  # fmt: skip
        index = arrival_index(ancillary)
        interface = None if index is None else by_index.get(index)
        if interface is None:
            continue  # it came in on an interface not configured (a unicast search to one of its addresses)
        search = ssdp.parse_search(datagram)
        if search is None or not ssdp.matching(search, config.udn):
            continue
        try:
            answers.acquire_nowait()
        except trio.WouldBlock:
            continue  # too many answers waiting: this search is dropped (the client searches again)
        sender = cast(tuple[str, int], address)  # AF_INET: (host, port)
        nursery.start_soon(_answer, interface, config, search, sender, answers)


def arrival_index(ancillary: list[tuple[int, int, bytes]]) -> int | None:
    """The index of the interface a datagram came in on, from its ``IP_PKTINFO``; None without one."""
    for level, kind, data in ancillary:
        if level == socket.IPPROTO_IP and kind == IP_PKTINFO and len(data) >= _PKTINFO.size:
            index: int = _PKTINFO.unpack_from(data)[0]
            return index
    return None


async def _answer(
    interface: Interface, config: SsdpConfig, search: ssdp.Search, sender: tuple[str, int], answers: trio.Semaphore
) -> None:
    try:
        await trio.sleep(random.uniform(0, search.max_wait))
        date = formatdate(usegmt=True)
        for st, usn in ssdp.matching(search, config.udn):
            datagram = ssdp.search_response(st, usn, interface.location(config.port), config.server, date)
            await interface.sock.sendto(datagram, sender)
    except OSError as exc:
        log.debug("DLNA: SSDP answer to %s failed (%s)", sender[0], exc)
    finally:
        answers.release()
