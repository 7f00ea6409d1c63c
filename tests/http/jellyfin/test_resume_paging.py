"""The resume list (``/UserItems/Resume``, ``/Users/{id}/Items/Resume``, ``/Items?Filters=IsResumable``)
honours ``IncludeItemTypes``, ``ExcludeItemTypes``, ``ParentId`` and ``StartIndex`` as ``/Items`` does, with the total of the
whole list; over real HTTP on both backends."""

from __future__ import annotations

from typing import Any

import httpx
import trio

from ..conftest import RunningServer
from ..members import add_member
from .surface import PASSWORD, change_member, jellyfin, make_shelf, play_half_way, sign_in

LIMIT_S = 60


async def resume(client: httpx.AsyncClient, path: str, **params: Any) -> tuple[list[str], int, int]:
    answer = await client.get(path, params=params)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    return [item["Name"] for item in body["Items"]], body["TotalRecordCount"], body["StartIndex"]


async def test_resume_narrows_by_type_and_parent_and_pages_by_start_index(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    ann = await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Ann")) as client:
        with trio.fail_after(LIMIT_S):
            for n, item in enumerate((shelf.gore, shelf.sunny, shelf.scary_episodes[0], *shelf.calm_episodes)):
                await play_half_way(client, item, f"resume-{n}")
            everything, total, _ = await resume(client, "/UserItems/Resume")
            assert total == 5 and sorted(everything) == [
                "Calm episode 1", "Calm episode 2", "Gore", "Scary episode 1", "Sunny"]  # fmt: skip
            for path in ("/UserItems/Resume", f"/Users/{ann}/Items/Resume"):
                movies = await resume(client, path, IncludeItemTypes="Movie")
                assert movies == ([n for n in everything if n in ("Gore", "Sunny")], 2, 0), path
                assert await resume(client, path, StartIndex=1, Limit=2) == (everything[1:3], 5, 1), path
                assert await resume(client, path, StartIndex=5) == ([], 5, 5), path
                assert await resume(client, path, IncludeItemTypes="Audio") == ([], 0, 0), path
                assert await resume(client, path, ExcludeItemTypes="Episode") == movies, path
                assert await resume(client, path, IncludeItemTypes="Movie,Episode", ExcludeItemTypes="Movie") == (
                    [n for n in everything if "episode" in n], 3, 0), path
                assert await resume(client, path, IncludeItemTypes="Movie", ExcludeItemTypes="Movie") == ([], 0, 0)
            calm = await resume(client, "/UserItems/Resume", ParentId=shelf.calm)
            assert calm == ([n for n in everything if n.startswith("Calm")], 2, 0)
            films = await resume(client, "/UserItems/Resume", ParentId=shelf.films)
            assert films == ([n for n in everything if n in ("Gore", "Sunny")], 2, 0)
            shows = [n for n in everything if "episode" in n]
            filtered = await resume(client, "/Items", Filters="IsResumable", ParentId=shelf.shows,
                                    IncludeItemTypes="Episode", StartIndex=1, Limit=1)  # fmt: skip
            assert filtered == (shows[1:2], 3, 1)


async def test_the_resume_total_counts_only_what_the_parental_rule_lets_through(server: RunningServer) -> None:
    shelf = await make_shelf(server)
    await add_member(server, "Kid", password=PASSWORD, all_libraries=True)
    async with jellyfin(server, await sign_in(server, "Kid")) as kid:
        with trio.fail_after(LIMIT_S):
            for n, item in enumerate((shelf.gore, shelf.sunny, shelf.scary_episodes[0], shelf.calm_episodes[0])):
                await play_half_way(kid, item, f"kid-{n}")
            await change_member(server, "Kid", parental={"maxAge": 18, "blockedGenres": ["horror"], "blockedTags": [],
                                                         "blockedItems": [], "allowedItems": []})  # fmt: skip
            names, total, _ = await resume(kid, "/UserItems/Resume")
            assert sorted(names) == ["Calm episode 1", "Sunny"] and total == 2
            assert await resume(kid, "/UserItems/Resume", StartIndex=1) == (names[1:], 2, 1)
