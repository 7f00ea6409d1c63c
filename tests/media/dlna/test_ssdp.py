"""SSDP datagrams: searches read strictly, answers and announcements for every target."""

from __future__ import annotations

from reelhouse.media.dlna.ssdp import (
    MAX_DATAGRAM_BYTES,
    Search,
    matching,
    notify,
    parse_search,
    search_response,
    targets,
)

UDN = "uuid:0b7a6c8e-1111-2222-3333-444455556666"
MEDIA_SERVER = "urn:schemas-upnp-org:device:MediaServer:1"


def search(st: str, mx: str = "2", man: str = '"ssdp:discover"') -> bytes:
    return f"M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: {man}\r\nMX: {mx}\r\nST: {st}\r\n\r\n".encode()


def test_an_m_search_is_read_with_its_target_and_a_wait_of_at_most_five_seconds() -> None:
    assert parse_search(search(MEDIA_SERVER)) == Search(MEDIA_SERVER, 2)
    assert parse_search(search("ssdp:all", mx="120")) == Search("ssdp:all", 5)
    assert parse_search(search("ssdp:all", mx="x")) == Search("ssdp:all", 1)


def test_anything_but_a_well_formed_m_search_is_ignored() -> None:
    assert parse_search(search(MEDIA_SERVER, man="ssdp:other")) is None
    assert parse_search(b"NOTIFY * HTTP/1.1\r\nNT: upnp:rootdevice\r\n\r\n") is None
    assert parse_search(search(MEDIA_SERVER) + b"x" * MAX_DATAGRAM_BYTES) is None
    assert parse_search(b"\xff\xfe garbage") is None


def test_ssdp_all_answers_every_target_and_a_named_target_only_itself() -> None:
    assert matching(Search("ssdp:all", 1), UDN) == targets(UDN)
    assert matching(Search(MEDIA_SERVER, 1), UDN) == [(MEDIA_SERVER, f"{UDN}::{MEDIA_SERVER}")]
    assert matching(Search(UDN, 1), UDN) == [(UDN, UDN)]
    assert matching(Search("urn:schemas-upnp-org:device:MediaRenderer:1", 1), UDN) == []


def test_alive_carries_location_and_max_age_and_byebye_does_not() -> None:
    alive = notify("ssdp:alive", MEDIA_SERVER, "usn", "http://10.0.0.2:8096/dlna/description.xml", "S").decode()
    assert "LOCATION: http://10.0.0.2:8096/dlna/description.xml\r\n" in alive and "max-age=1800" in alive
    byebye = notify("ssdp:byebye", MEDIA_SERVER, "usn", "http://x", "S").decode()
    assert "LOCATION" not in byebye and byebye.endswith("\r\n\r\n")
    answer = search_response(MEDIA_SERVER, "usn", "http://x", "S", "Sat, 28 Nov 2026 20:00:00 GMT").decode()
    assert answer.startswith("HTTP/1.1 200 OK\r\n") and "\r\nEXT:\r\n" in answer and f"ST: {MEDIA_SERVER}" in answer
