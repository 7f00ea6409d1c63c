"""The DLNA member's rules over real HTTP (both backends): what docs/dlna.md promises of ``[dlna] member``.

Its parental rules: an item above its age is absent from every view, the folders and a search,
and its metadata, file, poster and subtitle are refused; outside its allowed times, or with its
daily time used up, a stream is refused (403).  A disabled member, an unknown one or none sees no
library and streams nothing.  The member is read again at most every second, so each test waits
for a change to show (``until``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.server_time_zone import server_time_zone
from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, find_user_by_name, update_member
from reelhouse.storage.play_history import record_playback

from ...media_factory import MediaFactory
from ...storage.play_samples import ended
from ...tls import shared_tls_context
from ..conftest import start_server
from ..scanning import create_library, wait_for_state
from ..shared_server import backend  # noqa: F401  (fixture)
from .served import CONNECTION_MANAGER, CONTENT_DIRECTORY, Served, module_served, soap  # noqa: F401  (the served fixture)
from .test_content_directory import DIDL, UPNP, browse, out, titles
from .test_views_and_search import search

CHANGE_TIMEOUT_S = 30.0  # a member's change shows within a second (http/dlna/remembered.py)
EMPTY_RULE = {"blockedGenres": [], "blockedTags": [], "blockedItems": [], "allowedItems": [], "windows": [],
              "dailyLimitMinutes": 0}  # fmt: skip


@dataclass(frozen=True)
class Arrival:
    """What a client learnt of Arrival (rated PG-13) before a rule hid it."""

    id: str
    media: str
    art: str
    subtitle: str


async def change_ann(served: Served, changes: MemberChanges) -> None:
    async with open_store(served.server.database_url) as store:
        await update_member(store, "Ann", changes)


async def set_rule(served: Served, rule: dict[str, Any] | None) -> None:
    """Ann's parental rule: ``rule`` over an empty one, or none."""
    changes = MemberChanges(clear_parental=True) if rule is None else MemberChanges(parental={**EMPTY_RULE, **rule})
    await change_ann(served, changes)


async def until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    with trio.fail_after(CHANGE_TIMEOUT_S):
        while not await check():
            await trio.sleep(0.1)


@pytest.fixture
async def ann_restored(served: Served) -> AsyncIterator[None]:
    """Ann without a rule and enabled after the test, seen so by DLNA (the module's tests share her)."""
    yield
    await set_rule(served, None)
    await change_ann(served, MemberChanges(disabled=False))
    await until(lambda: _films_total(served, 3), "Ann's rule lifted")


async def _films_total(served: Served, expected: int) -> bool:
    try:
        return (await browse(served, f"lib.{served.libraries['Films']}.title"))[1] == expected
    except AssertionError:  # the library is refused (701) while Ann is disabled
        return False


async def arrival(served: Served) -> Arrival:
    films, _ = await browse(served, f"lib.{served.libraries['Films']}.title")
    found = films[titles(films).index("Arrival")]
    resources = [res.text or "" for res in found.findall(f"{DIDL}res")]
    return Arrival(found.get("id", ""), resources[0], found.findtext(f"{UPNP}albumArtURI") or "", resources[1])


async def status(url: str, headers: dict[str, str] | None = None) -> int:
    async with httpx.AsyncClient(verify=shared_tls_context(), timeout=15.0) as client:
        return (await client.get(url, headers=headers)).status_code


async def browse_error(served: Served, object_id: str, flag: str = "BrowseDirectChildren") -> str:
    refused = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Browse", ObjectID=object_id,
                         BrowseFlag=flag, Filter="*", StartingIndex=0, RequestedCount=0, SortCriteria="")  # fmt: skip
    return refused.text


async def test_an_item_above_the_members_age_is_not_listed_browsed_searched_or_streamed(
    served: Served, ann_restored: None
) -> None:
    films = f"lib.{served.libraries['Films']}"
    seen = await arrival(served)
    assert await status(seen.media, {"Range": "bytes=0-99"}) == 206 and await status(seen.art) == 200
    await set_rule(served, {"maxAge": 12})
    await until(lambda: _films_total(served, 2), "Arrival hidden")
    assert titles((await browse(served, f"{films}.title"))[0]) == ["Blade Runner", "Contact"]
    assert "Arrival" not in titles((await browse(served, f"{films}.recent"))[0])
    years, _ = await browse(served, f"{films}.year")
    assert "2016" not in titles(years)
    genres, _ = await browse(served, f"{films}.genre")
    fiction = [g.get("id", "") for g in genres if titles([g]) == ["Science Fiction"]]
    assert fiction == [] or (await browse(served, fiction[0]))[1] == 0
    folders, _ = await browse(served, (await browse(served, f"{films}.dir"))[0][0].get("id", ""))
    assert "Arrival (2016)" not in titles(folders)
    found, total = await search(served, "0", 'dc:title contains "arrival"')
    assert (found, total) == ([], 0)
    assert "<errorCode>701</errorCode>" in await browse_error(served, seen.id, "BrowseMetadata")
    for url in (seen.media, seen.art, seen.subtitle):
        assert await status(url) == 404, url
    await set_rule(served, {"maxAge": 16})  # PG-13 is 13: admitted again
    await until(lambda: _films_total(served, 3), "Arrival admitted")
    assert await status(seen.media, {"Range": "bytes=0-99"}) == 206


async def test_outside_the_members_allowed_times_a_stream_is_refused(served: Served, ann_restored: None) -> None:
    seen = await arrival(served)
    now = datetime.now(server_time_zone())
    minute = (now.hour * 60 + now.minute + 720) % 1440  # a minute a day, twelve hours away
    await set_rule(served, {"maxAge": 18, "windows": [{"days": list(range(7)), "startMinute": minute,
                                                        "endMinute": (minute + 1) % 1440}]})  # fmt: skip
    await until(lambda: _refused(seen.media), "the window to apply")
    assert await status(seen.media, {"Range": "bytes=0-99"}) == 403
    assert await _films_total(served, 3)  # listed still: only playing is outside the window
    await set_rule(served, {"maxAge": 18})
    await until(lambda: _refused(seen.media, 206), "the window lifted")


async def test_with_the_members_daily_time_used_up_a_stream_is_refused(served: Served, ann_restored: None) -> None:
    seen = await arrival(served)
    async with open_store(served.server.database_url) as store:
        ann = await find_user_by_name(store, "Ann")
        assert ann is not None
        at = int(time.time() * 1000) - 1000
        await record_playback(store, ended(member_id=ann.id, item_id=seen.id, started_at_ms=at, ended_at_ms=at,
                                           watched_sec=180.0))  # fmt: skip
    await set_rule(served, {"maxAge": 18, "dailyLimitMinutes": 2})
    await until(lambda: _refused(seen.media), "the daily limit to apply")
    await set_rule(served, {"maxAge": 18, "dailyLimitMinutes": 600})
    await until(lambda: _refused(seen.media, 206), "the daily limit raised")


async def _refused(url: str, expected: int = 403) -> bool:
    return await status(url, {"Range": "bytes=0-99"}) == expected


async def test_a_disabled_member_sees_no_library_and_streams_nothing(served: Served, ann_restored: None) -> None:
    seen = await arrival(served)
    await change_ann(served, MemberChanges(disabled=True))
    await until(lambda: _root_total(served, 0), "Ann disabled")
    assert "<errorCode>701</errorCode>" in await browse_error(served, f"lib.{served.libraries['Films']}")
    assert "<errorCode>701</errorCode>" in await browse_error(served, seen.id, "BrowseMetadata")
    assert (await search(served, "0", "*"))[1] == 0
    assert await status(seen.media) == 404 and await status(seen.art) == 404
    source = out(await soap(served.url, "connectionmanager", CONNECTION_MANAGER, "GetProtocolInfo"), "Source")
    assert source == ""


async def _root_total(served: Served, expected: int) -> bool:
    return (await browse(served, "0"))[1] == expected


@pytest.mark.parametrize("member", ["Nobody", ""])
async def test_an_unknown_member_or_none_sees_no_library_and_streams_nothing(
    member: str, nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    films = tmp_path / "media" / "Films"
    media.video(films / "Contact (1997)" / "Contact (1997).mkv")
    server = await start_server(nursery, database_url, tmp_path / "data", dlna={"enabled": True, "member": member})
    try:
        async with server.client() as client:
            library = (await create_library(client, "Films", [films], collectionType="movies",
                                            realtimeMonitor=False))["id"]  # fmt: skip
            await wait_for_state(client, library)
            item = (await client.get("/items", params={"libraryId": library, "recursive": "true"})).json()["items"][0]
        served = Served(server, {"Films": library})
        assert await _root_total(served, 0)
        assert "<errorCode>701</errorCode>" in await browse_error(served, f"lib.{library}")
        assert "<errorCode>701</errorCode>" in await browse_error(served, item["id"], "BrowseMetadata")
        assert (await search(served, "0", "*"))[1] == 0
        assert await status(f"{server.base_url}/dlna/media/{item['id']}") == 404
    finally:
        server.shutdown.set()
