"""SSDP messages (UPnP Device Architecture 1.0, section 1): announcements, search requests and answers.

Pure: the datagrams in and out as bytes.  The sending and listening is
``reelhouse.actors.dlna_ssdp``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .descriptions import CONNECTION_MANAGER, CONTENT_DIRECTORY, MEDIA_SERVER

MULTICAST_ADDRESS = "239.255.255.250"
PORT = 1900
MAX_AGE_SECONDS = 1800
MAX_DATAGRAM_BYTES = 2048  # an M-SEARCH is a few hundred bytes; anything larger is not one
ROOT_DEVICE = "upnp:rootdevice"
ALL = "ssdp:all"


@dataclass(frozen=True, slots=True)
class Search:
    target: str  # ST
    max_wait: int  # MX, seconds


def targets(udn: str) -> list[tuple[str, str]]:
    """Every (NT, USN) the device announces: the root device, the device itself, its type and services."""
    kinds = (ROOT_DEVICE, MEDIA_SERVER, CONTENT_DIRECTORY, CONNECTION_MANAGER)
    return [(udn, udn), *((kind, f"{udn}::{kind}") for kind in kinds)]


def matching(search: Search, udn: str) -> list[tuple[str, str]]:
    """The (ST, USN) pairs that answer ``search``: all of them for ssdp:all, else the one named."""
    every = targets(udn)
    if search.target == ALL:
        return every
    return [pair for pair in every if pair[0] == search.target]


def notify(nts: str, nt: str, usn: str, location: str, server: str) -> bytes:
    """A NOTIFY: ``nts`` ssdp:alive (with LOCATION and CACHE-CONTROL) or ssdp:byebye."""
    lines = ["NOTIFY * HTTP/1.1", f"HOST: {MULTICAST_ADDRESS}:{PORT}", f"NT: {nt}", f"NTS: {nts}", f"USN: {usn}"]
    if nts == "ssdp:alive":
        lines += [f"CACHE-CONTROL: max-age={MAX_AGE_SECONDS}", f"LOCATION: {location}", f"SERVER: {server}"]
    return _datagram(lines)


def search_response(st: str, usn: str, location: str, server: str, date: str) -> bytes:
    return _datagram([
        "HTTP/1.1 200 OK", f"CACHE-CONTROL: max-age={MAX_AGE_SECONDS}", f"DATE: {date}", "EXT:",
        f"LOCATION: {location}", f"SERVER: {server}", f"ST: {st}", f"USN: {usn}",
    ])  # fmt: skip


def parse_search(datagram: bytes) -> Search | None:
    """The M-SEARCH in ``datagram``, or None for anything else (a NOTIFY, an answer, garbage)."""
    if len(datagram) > MAX_DATAGRAM_BYTES:
        return None
    text = datagram.decode("utf-8", "replace")
    first, _, rest = text.partition("\r\n")
    if first.strip().upper() != "M-SEARCH * HTTP/1.1":
        return None
    headers: dict[str, str] = {}
    for line in rest.split("\r\n"):
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().upper()] = value.strip()
    if headers.get("MAN", "").strip('"') != "ssdp:discover" or not headers.get("ST"):
        return None
    mx = headers.get("MX", "1")
    return Search(headers["ST"], min(int(mx), 5) if mx.isdigit() else 1)


def _datagram(lines: list[str]) -> bytes:
    return ("\r\n".join(lines) + "\r\n\r\n").encode()
