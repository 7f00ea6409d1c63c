"""SortCriteria on Browse and Search, and Search's ``or`` of different fields, over real HTTP (both backends)."""

from __future__ import annotations

from ..shared_server import backend  # noqa: F401  (fixture)
from .served import CONTENT_DIRECTORY, Served, module_served, soap  # noqa: F401  (module_served: the served fixture)
from .test_content_directory import browse, titles
from .test_views_and_search import search

FILMS_BY_TITLE = ["Arrival", "Blade Runner", "Contact"]  # 2016, 1982, 1997


async def episode_number(served: Served, item_id: str) -> int:
    async with served.server.client() as client:
        return int((await client.get(f"/items/{item_id}")).json()["indexNumber"])


async def test_browse_orders_a_views_films_by_the_criteria_asked_and_pages_in_that_order(served: Served) -> None:
    films = f"lib.{served.libraries['Films']}.title"
    assert titles((await browse(served, films, sort="-dc:title"))[0]) == FILMS_BY_TITLE[::-1]
    assert titles((await browse(served, films, sort="+dc:date"))[0]) == ["Blade Runner", "Contact", "Arrival"]
    assert titles((await browse(served, films, sort="-dc:date,+dc:title"))[0]) == ["Arrival", "Contact", "Blade Runner"]
    # upnp:class (which televisions send first) is passed over; the next criterion orders
    assert titles((await browse(served, films, sort="+upnp:class,-dc:title"))[0]) == FILMS_BY_TITLE[::-1]
    second_page, total = await browse(served, films, start=2, count=2, sort="-dc:title")
    assert (titles(second_page), total) == (["Arrival"], 3)
    recent, total = await browse(served, f"lib.{served.libraries['Films']}.recent", sort="+dc:title")
    assert (titles(recent), total) == (FILMS_BY_TITLE, 3)


async def test_browse_orders_containers_folders_and_episodes(served: Served) -> None:
    films = f"lib.{served.libraries['Films']}"
    views, _ = await browse(served, films, sort="+dc:title")
    assert titles(views) == ["By genre", "By title", "By year", "Folders", "Recently added"]
    years, _ = await browse(served, f"{films}.year", sort="+dc:date")
    assert titles(years) == ["1982", "1997", "2016"]
    roots, _ = await browse(served, f"{films}.dir")
    folders, _ = await browse(served, roots[0].get("id", ""), sort="-dc:title")
    assert titles(folders) == ["Contact (1997)", "Blade Runner (1982)", "Arrival (2016)"]
    arrival_folder, _ = await browse(served, folders[2].get("id", ""), sort="-res@size")
    assert titles(arrival_folder) == ["Arrival"]
    series, _ = await browse(served, f"lib.{served.libraries['Shows']}.series")
    season = (await browse(served, series[0].get("id", "")))[0][0]
    episodes, _ = await browse(served, season.get("id", ""), sort="-upnp:episodeNumber")
    assert [await episode_number(served, e.get("id", "")) for e in episodes] == [3, 2, 1]


async def test_search_orders_by_the_criteria_and_answers_an_or_of_different_fields(served: Served) -> None:
    movies = 'upnp:class = "object.item.videoItem.movie"'
    dated, _ = await search(served, "0", movies, sort="-dc:date")
    assert titles(dated) == ["Arrival", "Contact", "Blade Runner"]
    either = 'dc:title contains "blade" or upnp:genre = "Science Fiction"'
    found, total = await search(served, "0", either)
    assert (titles(found), total) == (["Arrival", "Blade Runner"], 2)
    reversed_page, total = await search(served, "0", either, start=1, count=1, sort="-dc:title")
    assert (titles(reversed_page), total) == (["Arrival"], 2)
    by_year = f'{movies} and (dc:date = "1997" or dc:title contains "arr")'
    assert titles((await search(served, "0", by_year, sort="+dc:date"))[0]) == ["Contact", "Arrival"]
    overlapping, total = await search(served, "0", 'dc:title contains "a" or dc:title contains "A"')
    assert total == len(set(titles(overlapping))) == len(overlapping)  # joined without duplicates


async def test_malformed_sort_criteria_are_error_709(served: Served) -> None:
    for criteria in ("+dc:title,,", "+", "+dc:title;drop", "x" * 2000):
        refused = await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "Browse", ObjectID="0",
                             BrowseFlag="BrowseDirectChildren", Filter="*", StartingIndex=0, RequestedCount=0,
                             SortCriteria=criteria)  # fmt: skip
        assert refused.status_code == 500 and "<errorCode>709</errorCode>" in refused.text, criteria
