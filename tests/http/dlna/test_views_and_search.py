"""The television's views of a library, Search and the subtitle and profile facts, over real HTTP (both backends)."""

from __future__ import annotations

from xml.etree import ElementTree

import httpx

from ...tls import shared_tls_context
from ..shared_server import backend  # noqa: F401  (fixture)
from .served import CONTENT_DIRECTORY, SUBTITLE, Served, module_served, soap  # noqa: F401  (module_served: the served fixture)
from .test_content_directory import DIDL, browse, out, titles

SEC = "{http://www.sec.co.kr/}"


async def search(served: Served, container: str, criteria: str, count: int = 0, start: int = 0,
                 sort: str = "") -> tuple[list[ElementTree.Element], int]:  # fmt: skip
    response = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Search", ContainerID=container,
                          SearchCriteria=criteria, Filter="*", StartingIndex=start, RequestedCount=count,
                          SortCriteria=sort)  # fmt: skip
    found = ElementTree.fromstring(out(response, "Result"))
    return list(found), int(out(response, "TotalMatches"))


async def test_a_movies_library_shows_by_title_year_genre_and_recently_added(served: Served) -> None:
    films = f"lib.{served.libraries['Films']}"
    views, _ = await browse(served, films)
    assert titles(views) == ["By title", "By year", "By genre", "Recently added", "Folders"]
    years, _ = await browse(served, f"{films}.year")
    assert titles(years) == ["2016", "1997", "1982"]
    in_1997, total = await browse(served, years[1].get("id", ""))
    assert (titles(in_1997), total) == (["Contact"], 1)
    genres, _ = await browse(served, f"{films}.genre")
    assert titles(genres) == ["Science Fiction"]
    fiction, _ = await browse(served, genres[0].get("id", ""))
    assert titles(fiction) == ["Arrival"] and fiction[0].get("parentID") == genres[0].get("id")
    recent, total = await browse(served, f"{films}.recent")
    assert total == 3 and sorted(titles(recent)) == ["Arrival", "Blade Runner", "Contact"]
    metadata, _ = await browse(served, genres[0].get("id", ""), "BrowseMetadata")
    assert metadata[0].get("parentID") == f"{films}.genre"


async def test_folders_show_the_library_as_on_disk_and_name_nothing_outside_it(served: Served) -> None:
    roots, total = await browse(served, f"lib.{served.libraries['Shows']}.dir")
    assert (titles(roots), total) == (["Shows"], 1)
    series, _ = await browse(served, roots[0].get("id", ""))
    assert titles(series) == ["Severance"] and series[0].get("parentID") == roots[0].get("id")
    seasons, _ = await browse(served, series[0].get("id", ""))
    episodes, total = await browse(served, seasons[0].get("id", ""))
    assert total == 3 and all(e.tag == f"{DIDL}item" and e.get("parentID") == seasons[0].get("id") for e in episodes)
    metadata, _ = await browse(served, seasons[0].get("id", ""), "BrowseMetadata")
    assert titles(metadata) == ["Season 1"] and metadata[0].get("parentID") == series[0].get("id")
    films_root, _ = await browse(served, f"lib.{served.libraries['Films']}.dir")
    folders, _ = await browse(served, films_root[0].get("id", ""))
    assert titles(folders) == ["Arrival (2016)", "Blade Runner (1982)", "Contact (1997)"]
    for outside in (f"lib.{served.libraries['Films']}.dir.0%2F..%2F..", f"lib.{served.libraries['Films']}.dir.7"):
        refused = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Browse", ObjectID=outside,
                             BrowseFlag="BrowseDirectChildren", Filter="*", StartingIndex=0, RequestedCount=0,
                             SortCriteria="")  # fmt: skip
        assert "<errorCode>701</errorCode>" in refused.text


async def test_search_finds_videos_by_class_and_title_within_the_members_libraries(served: Served) -> None:
    videos, total = await search(served, "0", 'upnp:class derivedfrom "object.item.videoItem" and @refID exists false')
    assert total == 6 and "Secret" not in titles(videos)  # 3 films, 3 episodes; Private is not Ann's
    films, _ = await search(served, "0", 'upnp:class = "object.item.videoItem.movie" and dc:title contains "RUN"')
    assert titles(films) == ["Blade Runner"]
    series, _ = await search(served, "0", '(upnp:class derivedfrom "object.container") and dc:title contains "sev"')
    assert titles(series) == ["Severance"] and series[0].tag == f"{DIDL}container"
    in_shows, total = await search(served, f"lib.{served.libraries['Shows']}", 'upnp:class derivedfrom "object.item"')
    assert total == 3 and all(e.get("parentID") != f"lib.{served.libraries['Shows']}" for e in in_shows)
    dated, _ = await search(served, "0", 'dc:date >= "1990-01-01" and upnp:class = "object.item.videoItem.movie"')
    assert sorted(titles(dated)) == ["Arrival", "Contact"]
    music, total = await search(served, "0", 'upnp:class derivedfrom "object.item.audioItem"')
    assert (music, total) == ([], 0)
    everything, total = await search(served, "0", "*", count=2)
    assert len(everything) == 2 and total == 8  # 3 films, a series, a season, 3 episodes


async def test_malformed_or_unsupported_search_criteria_are_error_708(served: Served) -> None:
    for criteria in ('dc:title contains', 'dc:title doesNotContain "a"', "(" * 40 + 'dc:title = "a"' + ")" * 40,
                     " or ".join(f'dc:title contains "{n}"' for n in range(9))):  # fmt: skip
        refused = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Search", ContainerID="0",
                             SearchCriteria=criteria, Filter="*", StartingIndex=0, RequestedCount=0, SortCriteria="")  # fmt: skip
        assert refused.status_code == 500 and "<errorCode>708</errorCode>" in refused.text, criteria
    private = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Search",
                         ContainerID=f"lib.{served.libraries['Private']}", SearchCriteria="*", Filter="*",
                         StartingIndex=0, RequestedCount=0, SortCriteria="")  # fmt: skip
    assert "<errorCode>701</errorCode>" in private.text


async def test_an_external_subtitle_is_a_res_caption_info_and_a_header(served: Served) -> None:
    films, _ = await browse(served, f"lib.{served.libraries['Films']}.title")
    arrival = films[0]
    resources = arrival.findall(f"{DIDL}res")
    assert len(resources) == 2 and resources[1].get("protocolInfo") == "http-get:*:text/srt:*"
    caption = arrival.find(f"{SEC}CaptionInfoEx")
    assert caption is not None and caption.get(f"{SEC}type") == "srt" and caption.text == resources[1].text
    async with httpx.AsyncClient(verify=shared_tls_context(), timeout=15.0) as client:
        subtitle = await client.get(caption.text or "")
        assert subtitle.status_code == 200 and subtitle.text == SUBTITLE
        assert subtitle.headers["Content-Type"].startswith("text/srt")
        media = await client.head(resources[0].text or "", headers={"getCaptionInfo.sec": "1"})
        assert media.headers["CaptionInfo.sec"] == caption.text
        assert (await client.get(f"{served.url}/dlna/subtitles/{arrival.get('id')}/99.srt")).status_code == 404


async def test_an_mp4_with_h264_and_aac_carries_its_dlna_profile(served: Served) -> None:
    films, _ = await browse(served, f"lib.{served.libraries['Films']}.title")
    blade_runner = films[1]
    res = blade_runner.find(f"{DIDL}res")
    assert res is not None and res.text
    assert res.get("protocolInfo") == (
        "http-get:*:video/mp4:DLNA.ORG_PN=AVC_MP4_MP_SD_AAC_MULT5;DLNA.ORG_OP=01;DLNA.ORG_CI=0;"
        "DLNA.ORG_FLAGS=01700000000000000000000000000000"
    )
    async with httpx.AsyncClient(verify=shared_tls_context(), timeout=15.0) as client:
        head = await client.head(res.text, headers={"getcontentFeatures.dlna.org": "1"})
    assert head.headers["contentFeatures.dlna.org"].startswith("DLNA.ORG_PN=AVC_MP4_MP_SD_AAC_MULT5;")
