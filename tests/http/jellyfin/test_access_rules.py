"""Library access and parental controls hold on every route of the Jellyfin surface (issue 27, item 3),
over real HTTP on both backends: what a member may not see is neither listed, searched, counted
nor played, and its watch state is no way in."""

from __future__ import annotations

import httpx
import trio

from ..conftest import RunningServer
from ..members import add_member
from .surface import (
    HORROR_BLOCKED,
    PASSWORD,
    Shelf,
    change_member,
    jellyfin,
    make_shelf,
    mark_played,
    names,
    play_half_way,
    sign_in,
)

LIMIT_S = 60


async def unseen_everywhere(client: httpx.AsyncClient, series: str, episode: str, movie: str | None) -> None:
    """Every way to an unseen series' episode (and an unseen movie) is 404, and nothing lists them."""
    for path in (f"/Shows/{series}/Seasons", f"/Shows/{series}/Episodes", f"/Items/{episode}",
                 f"/Items/{episode}/PlaybackInfo", f"/Items/{series}/Similar"):  # fmt: skip
        assert (await client.get(path)).status_code == 404, path
    refused = [
        await client.post("/Sessions/Playing", json={"ItemId": episode, "PlaySessionId": "unseen"}),
        await client.post("/Sessions/Playing/Progress", json={"ItemId": episode, "PlaySessionId": "unseen-2"}),
        await client.post(f"/UserPlayedItems/{episode}"),
        await client.delete(f"/UserFavoriteItems/{series}"),
    ]
    if movie is not None:
        refused += [await client.get(f"/Items/{movie}"), await client.post(f"/UserFavoriteItems/{movie}")]
    assert [answer.status_code for answer in refused] == [404] * len(refused)


async def test_a_parental_rule_holds_on_lists_search_latest_resume_next_up_genres_and_play(
    server: RunningServer,
) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Kid", password=PASSWORD, all_libraries=True)
    token = await sign_in(server, "Kid")
    async with jellyfin(server, token) as kid:
        with trio.fail_after(LIMIT_S):
            await watch(kid, shelf)
            assert "Scary" in await names(kid, "/Search/Hints", SearchTerm="Scary")
            assert await names(kid, "/Search/Hints", SearchTerm="Gore") == ["Gore"]
            assert await names(kid, "/Genres") == ["Animation", "Comedy", "Horror"]
            assert await names(kid, "/UserItems/Resume") == ["Scary episode 2"]
            assert sorted(await names(kid, "/Shows/NextUp")) == ["Calm episode 2", "Scary episode 2"]

            await change_member(server, "Kid", parental=HORROR_BLOCKED)

            everything = await names(kid, "/Items", Recursive="true")
            assert not {"Gore", "Scary", "Scary episode 1", "Scary episode 2"} & set(everything)
            assert {"Sunny", "Calm", "Calm episode 2"} <= set(everything)
            assert await names(kid, "/Items", Recursive="true", SearchTerm="Scary") == []
            assert await names(kid, "/Search/Hints", SearchTerm="Scary") == []
            assert await names(kid, "/Search/Hints", SearchTerm="Gore") == []
            assert set(await names(kid, "/Items/Latest")) == {"Sunny", "Calm"}
            assert await names(kid, "/UserItems/Resume") == []
            assert await names(kid, "/Shows/NextUp") == ["Calm episode 2"]
            assert await names(kid, "/Items", Recursive="true", Filters="IsFavorite") == []
            assert await names(kid, "/Genres") == ["Animation", "Comedy"]
            await unseen_everywhere(kid, shelf.scary, shelf.scary_episodes[1], shelf.gore)


async def watch(client: httpx.AsyncClient, shelf: Shelf) -> None:
    """Scary: the first episode played, the second half-way; Calm: the first played; Gore a favourite."""
    await mark_played(client, shelf.scary_episodes[0])
    await play_half_way(client, shelf.scary_episodes[1], "scary-2")
    await mark_played(client, shelf.calm_episodes[0])
    assert (await client.post(f"/UserFavoriteItems/{shelf.gore}")).status_code == 200


async def test_a_library_taken_from_a_member_is_gone_from_every_route_and_from_their_watch_state(
    server: RunningServer,
) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, libraries=(shelf.films, shelf.shows))
    token = await sign_in(server, "Ann")
    async with jellyfin(server, token) as ann:
        with trio.fail_after(LIMIT_S):
            await mark_played(ann, shelf.calm_episodes[0])
            await play_half_way(ann, shelf.calm_episodes[1], "calm-2")
            assert await names(ann, "/UserItems/Resume") == ["Calm episode 2"]
            assert await names(ann, "/Shows/NextUp") == ["Calm episode 2"]

            await change_member(server, "Ann", libraries=(shelf.films,))

            assert await names(ann, "/UserViews") == ["Films"]
            assert await names(ann, "/Library/MediaFolders") == ["Films"]
            assert (await ann.get("/Items", params={"ParentId": shelf.shows})).status_code == 404
            assert set(await names(ann, "/Items", Recursive="true")) == {"Gore", "Sunny"}
            assert await names(ann, "/Search/Hints", SearchTerm="Calm") == []
            assert set(await names(ann, "/Items/Latest")) == {"Gore", "Sunny"}
            assert await names(ann, "/UserItems/Resume") == []
            assert await names(ann, "/Shows/NextUp") == []
            assert await names(ann, "/Genres") == ["Comedy", "Horror"]
            await unseen_everywhere(ann, shelf.calm, shelf.calm_episodes[1], None)


async def test_the_user_in_a_path_is_never_another_members_way_in(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    ann = await add_member(server, "Ann", password=PASSWORD, libraries=(shelf.films, shelf.shows))
    await add_member(server, "Bob", password=PASSWORD, libraries=(shelf.films,))
    async with jellyfin(server, await sign_in(server, "Ann", device_id="ann")) as as_ann:
        await play_half_way(as_ann, shelf.calm_episodes[0], "ann-1")
        await play_half_way(as_ann, shelf.sunny, "ann-2")
    async with jellyfin(server, await sign_in(server, "Bob", device_id="bob")) as bob:
        with trio.fail_after(LIMIT_S):
            assert (await bob.get(f"/Users/{ann}")).status_code == 404
            assert await names(bob, f"/Users/{ann}/Views") == ["Films"]
            assert await names(bob, f"/Users/{ann}/Items/Resume") == []
            assert await names(bob, f"/Users/{ann}/Items", Recursive="true", IncludeItemTypes="Episode") == []
            item = await bob.get(f"/Users/{ann}/Items/{shelf.calm_episodes[0]}")
            assert item.status_code == 404
            sunny = (await bob.get(f"/Users/{ann}/Items/{shelf.sunny}")).json()
            assert sunny["UserData"]["PlaybackPositionTicks"] == 0  # Bob's own state, not Ann's
