"""Which local addresses DLNA answers on: those of ``[dlna] interfaces``, and loopback.

SSDP announces and answers only on the configured interfaces
(:mod:`reelhouse.actors.dlna_ssdp`), but the server's HTTP port usually
listens on every address (``bind = "0.0.0.0:8096"``, so that LOCATION can
be reached), and the ``/dlna/*`` routes need no key.  So a request is
admitted only when the local address it was sent to (the ASGI scope's
``server``: the accepted socket's own address) is an address of a
configured interface, IPv4 or IPv6; any other is 404, as if DLNA were off.
A loopback address is admitted too: Linux drops a datagram for 127.0.0.0/8
or ::1 that comes in on any other interface, so only this host can use it.
A request a reverse proxy relayed (``Forwarded``, ``X-Forwarded-For``,
``X-Real-IP``) is never admitted, on loopback or not: it came from a
network the proxy serves, not one DLNA was configured for, and the routes
ask for no key.  Renderers send none of these headers.

This checks the address, not the wire: with Linux's weak host model a
host on another network that routes a packet for a configured address
through this host still reaches it (``rp_filter`` or a firewall stops that;
docs/dlna.md).  The interfaces' addresses are read (``psutil``, getifaddrs)
at most every second, so an address a DHCP lease changes counts within it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Mapping
from typing import Any

import psutil

from ..context import app_context
from .remembered import remembered

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


async def arrived_on_configured_interface(scope: Mapping[str, Any]) -> bool:
    """Whether the request of ``scope`` was sent to a loopback address or one of a configured interface."""
    if relayed_by_proxy(scope):
        return False
    address = local_address(scope)
    if address is None:
        return False  # a Unix socket or no address: not the LAN's way in, and not one DLNA announces
    if address.is_loopback:
        return True
    names = tuple(app_context().settings.dlna.interfaces)
    if not names:
        return False

    async def read() -> frozenset[Address]:
        return interface_addresses(names)

    return address in await remembered("interfaces:" + "\n".join(names), read)


PROXY_HEADERS = frozenset({b"forwarded", b"x-forwarded-for", b"x-real-ip"})


def relayed_by_proxy(scope: Mapping[str, Any]) -> bool:
    """Whether a reverse proxy says it relayed the request (ASGI header names are lower case)."""
    return any(name in PROXY_HEADERS for name, _ in scope.get("headers", ()))


def local_address(scope: Mapping[str, Any]) -> Address | None:
    """The local address the request was sent to; an IPv4-mapped IPv6 address as the IPv4 one it is."""
    server = scope.get("server")
    if not server or not isinstance(server[0], str):
        return None
    return _parsed(server[0])


def interface_addresses(names: Iterable[str]) -> frozenset[Address]:
    """Every IPv4 and IPv6 address of the interfaces ``names`` (those that exist)."""
    found = psutil.net_if_addrs()
    return frozenset(
        parsed for name in names for entry in found.get(name, ())
        if entry.family in (socket.AF_INET, socket.AF_INET6) and (parsed := _parsed(entry.address)) is not None
    )  # fmt: skip


def _parsed(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.partition("%")[0])  # a link-local address's zone is not compared
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address
