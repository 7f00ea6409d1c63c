"""Hostile SOAP bodies are refused as the NFO reader refuses hostile NFOs, and DLNA is absent unless enabled."""

from __future__ import annotations

import httpx

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ...tls import shared_tls_context
from ..conftest import RunningServer
from .served import CONTENT_DIRECTORY, Served, envelope, soap

XXE = (
    b'<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b'<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>'
    b'<u:Browse xmlns:u="urn:schemas-upnp-org:service:ContentDirectory:1"><ObjectID>&x;</ObjectID></u:Browse>'
    b"</s:Body></s:Envelope>"
)
LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
    b'<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>&d;</s:Body></s:Envelope>'
)
DEEP = b"<a>" * 5000 + b"</a>" * 5000
HUGE = envelope(CONTENT_DIRECTORY, "Browse", ObjectID="0" * 200_000, BrowseFlag="BrowseMetadata")


async def test_xxe_entity_bombs_deep_and_huge_bodies_get_a_upnp_fault_and_the_server_goes_on(served: Served) -> None:
    for body in (XXE, LAUGHS, DEEP, HUGE, b"not xml at all"):
        refused = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Browse", body=body)
        assert refused.status_code == 500, refused.text
        assert "<errorCode>402</errorCode>" in refused.text
        assert "root:" not in refused.text
    fine = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "GetSystemUpdateID")
    assert fine.status_code == 200


async def test_every_dlna_path_is_absent_while_dlna_is_off(server: RunningServer) -> None:
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, timeout=15.0) as client:
        for path in ("/dlna/description.xml", "/dlna/contentdirectory.xml", "/dlna/media/x", "/dlna/art/x"):
            assert (await client.get(path)).status_code == 404
        control = await client.post("/dlna/control/contentdirectory", content=envelope(CONTENT_DIRECTORY, "Browse"))
        assert control.status_code == 404
