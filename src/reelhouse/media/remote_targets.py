"""Which remote (``.strm``) targets the server may reach: the library's ``remoteAllowedHosts`` rule.

Pure: the caller resolves the host and calls :func:`remote_target_allowed`
again for every redirect hop (the stream route's proxy, any reader of a
remote source). :func:`url_origin` and :func:`host_listed` serve the
provider image rule too (``actors/scrape/provider_images.py``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Origin:
    """A URL's scheme, host (lower case, an address in its normal form) and port (the scheme's default if none)."""

    scheme: str
    host: str
    port: int


def url_origin(url: str) -> Origin | None:
    """The origin of an ``http``/``https`` URL with a host; None for anything else."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = _normal_host(parts.hostname or "")
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return Origin(scheme, host, port if port is not None else DEFAULT_PORTS[scheme])


def host_listed(origin: Origin, allowed_hosts: Iterable[str]) -> bool:
    """Whether a ``remoteAllowedHosts`` entry names ``origin``: ``host:port`` that port, ``host`` any port."""
    entries = (_host_entry(entry) for entry in allowed_hosts)
    return any(entry is not None and entry[0] == origin.host and entry[1] in (None, origin.port) for entry in entries)


def remote_target_allowed(url: str, resolved_ips: Iterable[str], allowed_hosts: Iterable[str]) -> bool:
    """Whether a remote source may fetch ``url`` (call it again for every redirect hop).

    Only ``http``/``https`` URLs with a host. With ``allowed_hosts`` (the
    library's ``remoteAllowedHosts``: ``host`` or ``host:port``, IPv6 in
    brackets) only those hosts are allowed, whatever they resolve to. Without
    it, any host is allowed unless the URL's address or any of
    ``resolved_ips`` is local (:func:`is_local_address`: loopback,
    link-local including 169.254.169.254, unspecified, multicast,
    reserved); an address that cannot be parsed, or no address at all, is
    refused. Pure: the caller resolves.
    """
    origin = url_origin(url)
    if origin is None:
        return False
    allowed = [entry for entry in allowed_hosts if _host_entry(entry) is not None]
    if allowed:
        return host_listed(origin, allowed)
    addresses = list(resolved_ips)
    if _ip(origin.host) is not None:
        addresses.append(origin.host)
    return bool(addresses) and not any(is_local_address(address) for address in addresses)


def _normal_host(host: str) -> str:
    host = host.strip().lower().rstrip(".")
    address = _ip(host)
    return str(address) if address is not None else host


def _host_entry(entry: str) -> tuple[str, int | None] | None:
    text = entry.strip().lower()
    if not text:
        return None
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket:
            return None
        host, port_text = inside, rest.removeprefix(":") if rest.startswith(":") else None
        if rest and port_text is None:
            return None
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, None
    if port_text is not None and not port_text.isdigit():
        return None
    return _normal_host(host), int(port_text) if port_text is not None else None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def is_local_address(address_text: str) -> bool:
    """Whether an address is one a fetch on a user's behalf must not reach: loopback,
    link-local (the cloud metadata address too), unspecified, multicast or
    reserved (IPv4-mapped forms included); True for what is not an address."""
    address = _ip(address_text.strip().strip("[]"))
    if address is None:
        return True
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (address.is_loopback or address.is_link_local or address.is_unspecified
            or address.is_multicast or address.is_reserved)
