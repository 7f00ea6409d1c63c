"""ContentDirectory:1 and ConnectionManager:1 over real HTTP, on both backends (raw SOAP).

These tests only read: they share a server per backend. What a scan changes is in
test_content_directory_updates.py, on servers of its tests' own.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

import httpx

from ...tls import shared_tls_context
from ..shared_server import backend  # noqa: F401  (fixture)
from .served import CONNECTION_MANAGER, CONTENT_DIRECTORY, Served, module_served, soap  # noqa: F401  (module_served: the served fixture)

DIDL = "{urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/}"
DC = "{http://purl.org/dc/elements/1.1/}"
UPNP = "{urn:schemas-upnp-org:metadata-1-0/upnp/}"


def out(response: httpx.Response, name: str) -> str:
    assert response.status_code == 200, response.text
    found = ElementTree.fromstring(response.content).find(f".//{name}")
    assert found is not None, response.text
    return found.text or ""


async def browse(served: Served, object_id: str, flag: str = "BrowseDirectChildren", start: int = 0,
                 count: int = 0, sort: str = "") -> tuple[list[ElementTree.Element], int]:  # fmt: skip
    response = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Browse", ObjectID=object_id,
                          BrowseFlag=flag, Filter="*", StartingIndex=start, RequestedCount=count, SortCriteria=sort)  # fmt: skip
    didl = ElementTree.fromstring(out(response, "Result"))
    assert int(out(response, "NumberReturned")) == len(didl)
    return list(didl), int(out(response, "TotalMatches"))


def titles(objects: list[ElementTree.Element]) -> list[str]:
    return [o.findtext(f"{DC}title") or "" for o in objects]


async def test_browse_pages_films_by_title_with_total_matches(served: Served) -> None:
    films = f"lib.{served.libraries['Films']}.title"
    first, total = await browse(served, films, count=2)
    rest, total_again = await browse(served, films, start=2, count=2)
    assert (total, total_again) == (3, 3)
    assert titles(first) + titles(rest) == ["Arrival", "Blade Runner", "Contact"]
    arrival = first[0]
    assert arrival.findtext(f"{UPNP}class") == "object.item.videoItem.movie"
    assert arrival.get("parentID") == films
    res = arrival.find(f"{DIDL}res")
    assert res is not None and res.text is not None
    assert res.get("resolution") == "320x240"
    assert int(res.get("size") or 0) > 0
    assert re.fullmatch(r"\d+:\d\d:\d\d\.\d{3}", res.get("duration") or "")
    assert res.get("protocolInfo", "").startswith("http-get:*:video/x-matroska:DLNA.ORG_OP=01;")  # no PN for mkv
    assert "DLNA.ORG_FLAGS=" in res.get("protocolInfo", "")
    assert res.text.startswith(served.url + "/dlna/media/")
    assert (arrival.findtext(f"{UPNP}albumArtURI") or "").startswith(served.url + "/dlna/art/")
    assert first[1].find(f"{UPNP}albumArtURI") is None  # no poster, no art


async def test_a_series_browses_to_its_season_and_episodes_in_order(served: Served) -> None:
    shows, _ = await browse(served, f"lib.{served.libraries['Shows']}.series")
    assert titles(shows) == ["Severance"] and shows[0].tag == f"{DIDL}container"
    seasons, _ = await browse(served, shows[0].get("id", ""))
    assert len(seasons) == 1 and seasons[0].get("parentID") == shows[0].get("id")
    episodes, total = await browse(served, seasons[0].get("id", ""))
    assert total == 3
    assert [e.find(f"{DIDL}res") is not None for e in episodes] == [True] * 3
    paths = [await _episode_index(served, e.get("id", "")) for e in episodes]
    assert paths == [1, 2, 3]
    metadata, _ = await browse(served, episodes[0].get("id", ""), "BrowseMetadata")
    assert metadata[0].get("id") == episodes[0].get("id")
    children, none = await browse(served, episodes[0].get("id", ""))
    assert (children, none) == ([], 0)


async def _episode_index(served: Served, item_id: str) -> int:
    async with served.server.client() as client:
        return int((await client.get(f"/items/{item_id}")).json()["indexNumber"])


async def test_only_the_dlna_members_libraries_are_shown_or_streamed(served: Served) -> None:
    root, total = await browse(served, "0")
    assert (sorted(titles(root)), total) == (["Films", "Shows"], 2)
    refused = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Browse",
                         ObjectID=f"lib.{served.libraries['Private']}", BrowseFlag="BrowseDirectChildren",
                         Filter="*", StartingIndex=0, RequestedCount=0, SortCriteria="")  # fmt: skip
    assert refused.status_code == 500 and "<errorCode>701</errorCode>" in refused.text
    async with served.server.client() as client:
        hidden = (await client.get("/items", params={"libraryId": served.libraries["Private"], "recursive": "true",
                                                     "type": "Movie"})).json()["items"][0]["id"]  # fmt: skip
    by_id = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Browse", ObjectID=hidden,
                       BrowseFlag="BrowseMetadata", Filter="*", StartingIndex=0, RequestedCount=0, SortCriteria="")  # fmt: skip
    assert by_id.status_code == 500 and "<errorCode>701</errorCode>" in by_id.text
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=served.url, timeout=15.0) as client:
        assert (await client.get(f"/dlna/media/{hidden}")).status_code == 404


async def test_a_request_a_reverse_proxy_relayed_is_404_even_on_loopback(served: Served) -> None:
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=served.url, timeout=15.0) as client:
        assert (await client.get("/dlna/description.xml")).status_code == 200
        for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
            relayed = await client.get("/dlna/description.xml", headers={header: "203.0.113.9"})
            assert relayed.status_code == 404, header


async def test_the_resource_serves_byte_ranges_with_dlna_headers_and_refuses_time_seek(served: Served) -> None:
    films, _ = await browse(served, f"lib.{served.libraries['Films']}.title", count=1)
    res = films[0].find(f"{DIDL}res")
    assert res is not None and res.text
    async with httpx.AsyncClient(verify=shared_tls_context(), timeout=15.0) as client:
        ranged = await client.get(res.text, headers={"Range": "bytes=0-99", "getcontentFeatures.dlna.org": "1"})
        assert ranged.status_code == 206 and len(ranged.content) == 100
        assert ranged.headers["transferMode.dlna.org"] == "Streaming"
        assert "DLNA.ORG_OP=01" in ranged.headers["contentFeatures.dlna.org"]
        whole = await client.head(res.text)
        assert int(whole.headers["Content-Length"]) == int(res.get("size") or 0)
        time_seek = await client.get(res.text, headers={"TimeSeekRange.dlna.org": "npt=10.0-"})
        assert time_seek.status_code == 406
        art = await client.get(films[0].findtext(f"{UPNP}albumArtURI") or "")
        assert art.status_code == 200 and art.headers["Content-Type"] == "image/jpeg"


async def test_capabilities_update_id_and_the_protocol_info_of_the_held_formats_are_answered(served: Served) -> None:
    cd = "contentdirectory"
    caps = out(await soap(served.url, cd, CONTENT_DIRECTORY, "GetSearchCapabilities"), "SearchCaps")
    assert set(caps.split(",")) >= {"dc:title", "upnp:class"}
    sort_caps = out(await soap(served.url, cd, CONTENT_DIRECTORY, "GetSortCapabilities"), "SortCaps")
    assert set(sort_caps.split(",")) >= {"dc:title", "dc:date", "upnp:episodeNumber", "res@size"}
    assert out(await soap(served.url, cd, CONTENT_DIRECTORY, "GetSystemUpdateID"), "Id").isdigit()
    source = out(await soap(served.url, "connectionmanager", CONNECTION_MANAGER, "GetProtocolInfo"), "Source")
    assert "http-get:*:video/x-matroska:DLNA.ORG_OP=01" in source and "http-get:*:video/mp4:" in source
    assert len(source.split(",")) == 2  # the formats the member's libraries hold (mkv, mp4), not every one served


async def test_write_actions_and_unknown_services_are_refused(served: Served) -> None:
    destroy = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "DestroyObject", ObjectID="0")
    assert destroy.status_code == 500 and "<errorCode>401</errorCode>" in destroy.text
    create = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "CreateObject", ContainerID="0")
    assert create.status_code == 500 and "<errorCode>401</errorCode>" in create.text
    elsewhere = await soap(served.url, "contentdirectory", CONNECTION_MANAGER, "GetProtocolInfo")
    assert elsewhere.status_code == 500 and "<errorCode>401</errorCode>" in elsewhere.text
    _root, total = await browse(served, "0")
    assert total == 2
