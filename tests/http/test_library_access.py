"""A member's device token sees only the libraries their policy lists: others are 404 as if absent.

The tests share a server per backend: each makes its own member (a name of its own) and
libraries; the ones that read every library have servers of their own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, update_member

from ..media_factory import MediaFactory
from .conftest import RunningServer
from .members import add_member, token_for
from .scanning import create_library, wait_for_state
from .shared_server import backend, server, shared_server  # noqa: F401  (fixtures; own_server and own_client: conftest.py)

PASSWORD = "correct horse battery"


def movie(root: Path, media: MediaFactory, title: str) -> Path:
    folder = root / f"{title} (2016)"
    media.video(folder / f"{title} (2016).mkv")
    media.image(folder / "poster.jpg")
    return root


async def scanned_library(client: httpx.AsyncClient, name: str, root: Path, **fields: Any) -> dict[str, Any]:
    library = await create_library(client, name, [root], **fields)
    assert (await wait_for_state(client, library["id"]))["state"] == "completed"
    return library


async def item_id(client: httpx.AsyncClient, library_id: str) -> str:
    page = (await client.get("/items", params={"libraryId": library_id, "recursive": "true"})).json()
    return page["items"][0]["id"]


@pytest.fixture
def roots(tmp_path: Path, media: MediaFactory) -> tuple[Path, Path]:
    return movie(tmp_path / "family", media, "Arrival"), movie(tmp_path / "grown", media, "Heat")


async def test_unlisted_library_items_images_and_search_are_404_or_absent(
    server: RunningServer, client: httpx.AsyncClient, roots: tuple[Path, Path]
) -> None:
    with trio.fail_after(120):
        kid = await add_member(server, "Kid Unlisted", password=PASSWORD)
        family = await scanned_library(client, "Family", roots[0], accessUserIds=[kid])
        grown = await scanned_library(client, "Grown", roots[1])
        seen, hidden = await item_id(client, family["id"]), await item_id(client, grown["id"])
        token = await token_for(server, "Kid Unlisted", password=PASSWORD)
        async with server.client(key=token) as player:
            everything = (await player.get("/items", params={"recursive": "true"})).json()
            by_ids = (await player.get("/items", params={"ids": f"{seen},{hidden}"})).json()
            answers = {
                "library": await player.get("/items", params={"libraryId": grown["id"]}),
                "parent": await player.get("/items", params={"parentId": grown["id"]}),
                "detail": await player.get(f"/items/{hidden}"),
                "image": await player.get(f"/images/items/{hidden}"),
            }
            visible_detail = await player.get(f"/items/{seen}")
            visible_image = await player.get(f"/images/items/{seen}")
            found = (await player.get("/search", params={"q": "heat"})).json()
            found_visible = (await player.get("/search", params={"q": "arrival"})).json()
    assert [item["id"] for item in everything["items"]] == [seen]
    assert [item["id"] for item in by_ids["items"]] == [seen]
    for what, answer in answers.items():
        assert answer.status_code == 404, what
        assert answer.json()["code"] == "not_found"
    assert visible_detail.status_code == 200 and visible_image.status_code == 200
    assert found["items"] == [] and [i["id"] for i in found_visible["items"]] == [seen]


async def test_all_libraries_from_the_command_line_opens_every_library(
    own_server: RunningServer, own_client: httpx.AsyncClient, roots: tuple[Path, Path]
) -> None:
    with trio.fail_after(120):
        await add_member(own_server, "Teen", password=PASSWORD)
        grown = await scanned_library(own_client, "Grown", roots[1])
        hidden = await item_id(own_client, grown["id"])
        token = await token_for(own_server, "Teen", password=PASSWORD)
        async with own_server.client(key=token) as player:
            before = await player.get(f"/items/{hidden}")
            async with open_store(own_server.database_url) as store:
                await update_member(store, "Teen", MemberChanges(all_libraries=True))
            # SQLite: the commit moves the data version; PostgreSQL: nothing is remembered.
            after = await player.get(f"/items/{hidden}")
        users = (await own_client.get("/users")).json()
    assert before.status_code == 404 and after.status_code == 200
    teen = next(u for u in users if u["name"] == "Teen")
    assert teen["policy"]["allLibraries"] is True and teen["policy"]["accessibleLibraries"] == [grown["id"]]


async def test_access_user_ids_must_name_existing_enabled_members(
    own_server: RunningServer, own_client: httpx.AsyncClient, roots: tuple[Path, Path]
) -> None:
    with trio.fail_after(60):
        off = await add_member(own_server, "Off", disabled=True)
        unknown = await own_client.post("/libraries", json={"name": "A", "paths": [str(roots[0])], "collectionType": "movies", "accessUserIds": ["nobody"]})
        disabled = await own_client.post("/libraries", json={"name": "B", "paths": [str(roots[0])], "collectionType": "movies", "accessUserIds": [off]})
        libraries = (await own_client.get("/libraries")).json()
    for answer in (unknown, disabled):
        assert answer.status_code == 400 and answer.json()["params"]["field"] == "accessUserIds"
    assert libraries == []


async def test_accessible_libraries_lists_the_grants_of_a_member(
    server: RunningServer, client: httpx.AsyncClient, roots: tuple[Path, Path]
) -> None:
    with trio.fail_after(60):
        kid = await add_member(server, "Kid Grants", password=PASSWORD)
        family = await create_library(client, "Family", [roots[0]], accessUserIds=[kid])
        await create_library(client, "Grown", [roots[1]])
        user = (await client.get(f"/users/{kid}")).json()
    assert user["policy"]["accessibleLibraries"] == [family["id"]]
    assert user["policy"]["allLibraries"] is False


async def test_a_library_created_for_a_signed_in_member_is_visible_on_their_next_request(
    server: RunningServer, client: httpx.AsyncClient, roots: tuple[Path, Path]
) -> None:
    with trio.fail_after(120):
        kid = await add_member(server, "Kid Next", password=PASSWORD)
        token = await token_for(server, "Kid Next", password=PASSWORD)
        async with server.client(key=token) as player:
            before = (await player.get("/items", params={"recursive": "true"})).json()  # remembered: no library
            family = await scanned_library(client, "Family", roots[0], accessUserIds=[kid])
            after = (await player.get("/items", params={"recursive": "true"})).json()
    assert before["items"] == []
    assert [item["libraryId"] for item in after["items"]] == [family["id"]]
