"""GET /items over what the real scanner wrote: its conventions meet the listing's rules.

The tests share a server per backend, each listing libraries of its own (its own folders).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.media_factory import MediaFactory

from .scanning import create_library, wait_for_state
from .shared_server import backend, client, shared_server  # noqa: F401  (fixtures)


@pytest.fixture
def roots(tmp_path: Path, media: MediaFactory) -> tuple[Path, Path]:
    films, shows = tmp_path / "films", tmp_path / "shows"
    media.video(films / "Arrival (2016)" / "Arrival (2016).mkv")
    media.video(films / "Arrival (2016)" / "Arrival (2016)-trailer.mkv")
    media.image(films / "Arrival (2016)" / "poster.jpg")
    media.video(films / "Heat (1995)" / "Heat (1995) - cd1.mkv")
    media.video(films / "Heat (1995)" / "Heat (1995) - cd2.mkv")
    media.video(shows / "Dark" / "Season 1" / "Dark - S01E01 - Secrets.mkv")
    media.video(shows / "Dark" / "Season 1" / "Dark - S01E02 - Lies.mkv")
    return films, shows


async def items(client: httpx.AsyncClient, **params: Any) -> list[dict[str, Any]]:
    response = await client.get("/items", params={"limit": 200, **params})
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


async def scanned(client: httpx.AsyncClient, name: str, root: Path, kind: str) -> str:
    library = await create_library(client, name, [root], collectionType=kind)
    assert (await wait_for_state(client, library["id"]))["state"] == "completed"
    return str(library["id"])


async def test_scanned_movies_list_without_extras_or_parts(client: httpx.AsyncClient, roots: tuple[Path, Path]) -> None:
    films = await scanned(client, "Films", roots[0], "movies")
    top = await items(client, libraryId=films)
    assert [(i["name"], i["type"], i.get("productionYear")) for i in top] == [
        ("Arrival", "Movie", 2016), ("Heat", "Movie", 1995),
    ]  # fmt: skip
    arrival, heat = top
    assert arrival["hasPoster"] is True and arrival["imageTag"]
    extras = await items(client, parentId=arrival["id"], type="Video")
    assert [(e["extraType"], e["type"]) for e in extras] == [("Trailer", "Video")]
    detail = (await client.get(f"/items/{heat['id']}")).json()
    assert [(p["extraType"], p["indexNumber"]) for p in detail["parts"]] == [("AdditionalPart", 2)]
    assert detail["extras"] == [] and detail["mediaSources"][0]["container"] == "mkv"
    assert [i["name"] for i in await items(client, libraryId=films, containers="MKV")] == ["Arrival", "Heat"]


async def test_scanned_series_nest_seasons_and_episodes(client: httpx.AsyncClient, roots: tuple[Path, Path]) -> None:
    shows = await scanned(client, "Shows", roots[1], "tvshows")
    (dark,) = await items(client, libraryId=shows)
    assert (dark["name"], dark["type"]) == ("Dark", "Series")
    (season,) = await items(client, parentId=dark["id"])
    assert (season["type"], season["indexNumber"], season["seriesId"]) == ("Season", 1, dark["id"])
    episodes = await items(client, parentId=season["id"], sort="index")
    assert [(e["name"], e["indexNumber"], e["parentIndexNumber"]) for e in episodes] == [
        ("Secrets", 1, 1), ("Lies", 2, 1),
    ]  # fmt: skip
    assert all(e["seasonId"] == season["id"] and e["seriesId"] == dark["id"] for e in episodes)
    everything = await items(client, libraryId=shows, recursive="true", type="Episode", sort="seriesName")
    assert [e["name"] for e in everything] == ["Lies", "Secrets"]
    detail = (await client.get(f"/items/{episodes[0]['id']}")).json()
    assert (detail["seriesName"], detail["seasonName"], detail["subtitleDownloadable"]) == ("Dark", "Season 1", False)
