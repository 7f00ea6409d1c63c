"""Unmarking played and favourite in every form, a download the member's policy forbids, the UserData
and item fields typed clients read, and authenticated routes under ``/emby/`` and in any letter case;
over real HTTP on both backends.

The tests share a server per backend (tests/http/shared_server.py): each makes its own shelf (items
of new ids) and a member of its own name, signed in from a device of its own, and marks only those,
so no neighbour sees what it changed."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

import httpx
import pytest
import trio

from reelhouse.http.jellyfin import ids
from reelhouse.storage import open_store

from ..conftest import RunningServer
from ..members import add_member
from ..shared_server import backend, server, shared_server  # noqa: F401  (fixtures)
from .surface import HORROR_BLOCKED, PASSWORD, change_member, jellyfin, make_shelf, mark_played, sign_in

LIMIT_S = 60
_serial = itertools.count(1)


def own_name(name: str) -> str:
    """``name`` made the test's own on the module's server (members' names are unique)."""
    return f"{name}{next(_serial)}"


async def user_data(client: httpx.AsyncClient, item: str) -> dict[str, Any]:
    answer = await client.get(f"/Items/{item}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json()["UserData"])


@pytest.mark.parametrize("form", ["/{kind}/{item}", "/Users/{user}/{old}/{item}"])
async def test_delete_unmarks_played_and_favourite(server: RunningServer, form: str) -> None:
    ann_name = own_name("Ann")
    shelf = await make_shelf(server)
    user = await add_member(server, ann_name, password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, ann_name, device_id=ann_name)) as ann:
        with trio.fail_after(LIMIT_S):
            for kind, old, field in (("UserPlayedItems", "PlayedItems", "Played"),
                                     ("UserFavoriteItems", "FavoriteItems", "IsFavorite")):  # fmt: skip
                path = form.format(kind=kind, old=old, user=user, item=shelf.sunny)
                marked = await ann.post(path)
                assert marked.status_code == 200 and marked.json()[field] is True, (path, marked.text)
                assert (await user_data(ann, shelf.sunny))[field] is True
                unmarked = await ann.delete(path)
                assert unmarked.status_code == 200 and unmarked.json()[field] is False, (path, unmarked.text)
                assert (await user_data(ann, shelf.sunny))[field] is False, path
            assert (await user_data(ann, shelf.sunny))["PlayCount"] == 0


async def test_a_download_the_members_policy_forbids_is_403(server: RunningServer) -> None:
    kid_name = own_name("Kid")
    shelf = await make_shelf(server)
    await add_member(server, kid_name, password=PASSWORD, all_libraries=True)
    await change_member(server, kid_name, parental={**HORROR_BLOCKED, "blockedGenres": []})  # downloads unset: off
    async with jellyfin(server, await sign_in(server, kid_name, device_id=kid_name)) as kid, server.client() as native:
        with trio.fail_after(LIMIT_S):
            users = (await native.get("/users")).json()
            kid_row = next(u for u in (users if isinstance(users, list) else users["items"]) if u["name"] == kid_name)
            assert kid_row["policy"]["allowDownload"] is False
            refused = await kid.get(f"/Items/{shelf.sunny}/Download")
            assert refused.status_code == 403 and "Download" in refused.text
            assert (await kid.get(f"/Items/{shelf.sunny}")).status_code == 200  # the item itself is fine


async def test_user_data_and_item_fields_typed_clients_read(server: RunningServer) -> None:
    ann_name = own_name("Ann")
    shelf = await make_shelf(server)
    async with open_store(server.database_url) as store:
        await store.execute("UPDATE items SET provider_ids = ? WHERE id = ?",
                            ('{"tmdb": "329865", "imdb": "tt2543164"}', ids.item_id(shelf.sunny)))  # fmt: skip
    await add_member(server, ann_name, password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, ann_name, device_id=ann_name)) as ann, server.client() as native:
        with trio.fail_after(LIMIT_S):
            before = await user_data(ann, shelf.sunny)
            assert before["PlayCount"] == 0 and "LastPlayedDate" not in before
            await mark_played(ann, shelf.sunny)
            item = (await ann.get(f"/Items/{shelf.sunny}")).json()
            data = item["UserData"]
            assert data["Played"] is True and data["PlayCount"] == 1 and data["ItemId"] == shelf.sunny
            played_at = datetime.fromisoformat(data["LastPlayedDate"].replace("Z", "+00:00"))
            assert abs((datetime.now(played_at.tzinfo) - played_at).total_seconds()) < LIMIT_S
            assert item["ProviderIds"] == {"Tmdb": "329865", "Imdb": "tt2543164"}
            natively = (await native.get(f"/items/{ids.item_id(shelf.sunny)}")).json()
            assert item["DateCreated"] == natively["dateCreated"] and item["DateCreated"].endswith("Z")
            listed = (await ann.get("/Items", params={"Ids": shelf.sunny})).json()["Items"][0]
            assert listed["UserData"] == data and listed["DateCreated"] == item["DateCreated"]


@pytest.mark.parametrize("prefix", ["", "/emby", "/EMBY", "/Emby"])
async def test_authenticated_routes_answer_under_emby_and_in_any_case(server: RunningServer, prefix: str) -> None:
    ann_name = own_name("Ann")
    shelf = await make_shelf(server)
    await add_member(server, ann_name, password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, ann_name, device_id=ann_name)) as ann:
        with trio.fail_after(LIMIT_S):
            for path in ("/Users/Me", "/users/me", "/USERVIEWS", "/userViews", "/Items/Latest", "/useritems/RESUME",
                         f"/items/{shelf.sunny}", f"/SHOWS/{shelf.calm}/episodes", "/System/Info"):  # fmt: skip
                answer = await ann.get(prefix + path)
                assert answer.status_code == 200, (prefix + path, answer.text)
            played = await ann.post(f"{prefix}/userplayeditems/{shelf.gore}")
            assert played.status_code == 200 and played.json()["Played"] is True
            assert (await ann.get(f"{prefix}/users/me", headers={"X-Emby-Token": ""})).status_code == 401
