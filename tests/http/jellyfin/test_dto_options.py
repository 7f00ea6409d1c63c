"""Jellyfin's DtoOptions parameters (``EnableUserData``, ``EnableImages``, ``EnableImageTypes``,
``ImageTypeLimit``) leave UserData and image tags out as Jellyfin does, on every list and an item;
over real HTTP on both backends."""

from __future__ import annotations

from typing import Any

import httpx
import trio

from reelhouse.http.jellyfin import ids
from reelhouse.storage import open_store

from ...catalog_factory import catalog
from ..conftest import RunningServer
from ..members import add_member
from .surface import PASSWORD, jellyfin, make_shelf, mark_played, play_half_way, sign_in

LIMIT_S = 60


async def items_of(client: httpx.AsyncClient, path: str, **params: Any) -> list[dict[str, Any]]:
    answer = await client.get(path, params=params)
    assert answer.status_code == 200, (path, answer.text)
    body = answer.json()
    return list(body if isinstance(body, list) else body["Items"] if "Items" in body else [body])


async def test_user_data_and_image_tags_are_left_out_when_asked(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    async with open_store(server.database_url) as store, catalog(store) as cat:
        sunny = ids.item_id(shelf.sunny)
        cat.image(sunny, "primary")
        cat.image(sunny, "logo")
        cat.image(sunny, "backdrop", 0)
        cat.image(sunny, "backdrop", 1)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Ann")) as ann:
        with trio.fail_after(LIMIT_S):
            await mark_played(ann, shelf.calm_episodes[0])
            await play_half_way(ann, shelf.sunny, "options-1")
            lists = (("/Items", {"Recursive": "true"}), (f"/Items/{shelf.sunny}", {}), ("/Items/Latest", {}),
                     ("/UserItems/Resume", {}), ("/Shows/NextUp", {}), (f"/Shows/{shelf.calm}/Episodes", {}),
                     (f"/Shows/{shelf.calm}/Seasons", {}))  # fmt: skip
            for path, params in lists:
                shown = await items_of(ann, path, **params)
                assert shown and all("UserData" in i and "ImageTags" in i for i in shown), path
                bare = await items_of(ann, path, EnableUserData="false", EnableImages="false", **params)
                assert [i["Id"] for i in bare] == [i["Id"] for i in shown], path
                assert not any({"UserData", "ImageTags", "BackdropImageTags"} & set(i) for i in bare), path

            full = (await items_of(ann, f"/Items/{shelf.sunny}"))[0]
            assert set(full["ImageTags"]) == {"Primary", "Logo"} and len(full["BackdropImageTags"]) == 2
            assert full["UserData"]["PlaybackPositionTicks"] > 0
            primary = (await items_of(ann, f"/Items/{shelf.sunny}", EnableImageTypes="Primary,Thumb"))[0]
            assert primary["ImageTags"] == {"Primary": full["ImageTags"]["Primary"]} and primary["BackdropImageTags"] == []
            one = (await items_of(ann, f"/Items/{shelf.sunny}", ImageTypeLimit="1"))[0]
            assert one["ImageTags"] == full["ImageTags"] and one["BackdropImageTags"] == full["BackdropImageTags"][:1]
            none = (await items_of(ann, "/Items", Ids=shelf.sunny, ImageTypeLimit="0"))[0]
            assert none["ImageTags"] == {} and none["BackdropImageTags"] == [] and "UserData" in none
            for bad in ({"EnableUserData": "no"}, {"EnableImages": "1"}, {"ImageTypeLimit": "-1"}):
                answer = await ann.get("/Items", params=bad)
                assert answer.status_code == 400 and next(iter(bad)) in answer.text, bad
