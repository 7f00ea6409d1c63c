"""A member sees a person only through the libraries they may see (GET /people/{id}, its picture).

People are shared by every library; a signed-in member gets 404 for a
person credited only in libraries they cannot see, and sees only the
credits of theirs; an API key sees every credit. Both backends, over HTTP,
credits from NFO files (no provider needed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio

from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, update_member

from ..media_factory import MediaFactory
from .conftest import RunningServer
from .members import add_member, token_for
from .scanning import create_library, wait_for_state

PASSWORD = "correct horse battery"
NO_PROVIDERS = {"remoteAllowedHosts": [], "metadataProviders": []}
EMPTY_RULE = {"maxAge": 18, "blockedTags": [], "blockedGenres": [], "blockedItems": [], "allowedItems": [],
              "dailyLimitMinutes": 0, "windows": []}


def _film(media: MediaFactory, root: Path, title: str, *actors: str) -> Path:
    folder = root / title
    media.video(folder / f"{title}.mkv")
    cast = "".join(f"<actor><name>{name}</name><role>Someone</role></actor>" for name in actors)
    media.text(folder / f"{title}.nfo", f"<movie><title>{title}</title>{cast}</movie>")
    return root


async def _people(client: httpx.AsyncClient, library_id: str) -> dict[str, str]:
    page = (await client.get("/items", params={"libraryId": library_id})).json()["items"]
    detail = (await client.get(f"/items/{page[0]['id']}")).json()
    return {person["name"]: person["id"] for person in detail["people"]}


async def _scanned(client: httpx.AsyncClient, name: str, root: Path, **fields: Any) -> dict[str, Any]:
    library = await create_library(client, name, [root], options=NO_PROVIDERS, **fields)
    assert (await wait_for_state(client, library["id"]))["state"] == "completed"
    return library


async def test_a_member_sees_a_person_only_through_their_libraries(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    with trio.fail_after(120):
        kid = await add_member(server, "Kid", password=PASSWORD)
        family = await _scanned(client, "Family", _film(media, tmp_path / "family", "Arrival", "Shared", "Only Family"),
                                accessUserIds=[kid])
        grown = await _scanned(client, "Grown", _film(media, tmp_path / "grown", "Heat", "Shared", "Only Grown"))
        ids = {**await _people(client, family["id"]), **await _people(client, grown["id"])}
        admin_view = (await client.get(f"/people/{ids['Shared']}")).json()
        token = await token_for(server, "Kid", password=PASSWORD)
        async with server.client(key=token) as player:
            shared = await player.get(f"/people/{ids['Shared']}")
            hidden = await player.get(f"/people/{ids['Only Grown']}")
            hidden_picture = await player.get(f"/images/people/{ids['Only Grown']}")
            no_picture = await player.get(f"/images/people/{ids['Only Family']}")
            refused = await player.post("/people/details-fill")
    assert sorted(c["name"] for c in admin_view["credits"]) == ["Arrival", "Heat"]
    assert shared.status_code == 200 and [c["name"] for c in shared.json()["credits"]] == ["Arrival"]
    assert shared.json()["credits"][0]["role"] == "Someone" and shared.json()["detailsState"] == "pending"
    assert hidden.status_code == 404 and hidden_picture.status_code == 404
    assert no_picture.status_code == 404  # visible, but no picture yet
    assert refused.status_code == 403


async def test_a_person_only_in_items_a_members_parental_rule_blocks_is_404(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    with trio.fail_after(120):
        await add_member(server, "Kid", password=PASSWORD, all_libraries=True)
        films = tmp_path / "films"
        _film(media, films, "Arrival", "Shared", "Only Arrival")
        _film(media, films, "Heat", "Shared", "Only Heat")
        library = await _scanned(client, "Films", films)
        page = (await client.get("/items", params={"libraryId": library["id"]})).json()["items"]
        heat = next(item["id"] for item in page if item["name"] == "Heat")
        people = (await client.get(f"/items/{heat}")).json()["people"]
        ids = {person["name"]: person["id"] for person in people}
        async with open_store(server.database_url) as store:
            await update_member(store, "Kid", MemberChanges(parental={**EMPTY_RULE, "blockedItems": [heat]}))
        token = await token_for(server, "Kid", password=PASSWORD)
        async with server.client(key=token) as player:
            blocked = await player.get(f"/people/{ids['Only Heat']}")
            shared = await player.get(f"/people/{ids['Shared']}")
    assert blocked.status_code == 404
    assert shared.status_code == 200 and [c["name"] for c in shared.json()["credits"]] == ["Arrival"]
