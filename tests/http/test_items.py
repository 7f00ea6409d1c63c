"""GET /items and GET /items/{id} over a real server, on both backends.

Every test only reads: the module shares one server per backend, seeded once.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from tests.storage.item_samples import Samples, sample_catalog

from .conftest import RunningServer
from .shared_server import backend, client, shared_server  # noqa: F401  (fixtures)

TIMEOUT_S = 30.0
TOP_LEVEL_COUNT = 10  # the sample catalogue's top-level, non-missing items


@pytest.fixture(scope="module")
def samples(shared_server: RunningServer) -> Samples:
    return trio.run(_seed, shared_server.database_url)


async def _seed(database_url: str) -> Samples:
    async with open_store(database_url) as store:
        return await sample_catalog(store)


async def get(client: httpx.AsyncClient, path: str, params: Any = None) -> httpx.Response:
    with trio.fail_after(TIMEOUT_S):
        return await client.get(path, params=params)


async def test_a_page_is_a_cursor_page_of_item_summaries(client: httpx.AsyncClient, samples: Samples) -> None:
    response = await get(client, "/items", {"limit": 4, "includeTotal": "true"})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"items", "nextCursor", "totalCount"}
    assert body["totalCount"] == TOP_LEVEL_COUNT
    assert [item["name"] for item in body["items"]] == ["#1 Cheerleader Camp", "Arrival", "Atlanta", "blade runner 2049"]
    arrival = body["items"][1]
    assert arrival["id"] == samples["Arrival"] and arrival["type"] == "Movie" and arrival["imageTag"] == "arrivalposter"
    assert arrival["dateCreated"].endswith("Z")


async def test_following_next_cursor_walks_every_item_once(client: httpx.AsyncClient, samples: Samples) -> None:
    params: dict[str, Any] = {"recursive": "true", "sort": "year", "order": "desc", "limit": 3}
    whole = (await get(client, "/items", {**params, "limit": 200})).json()
    seen: list[str] = []
    while True:
        body = (await get(client, "/items", params)).json()
        seen += [item["id"] for item in body["items"]]
        if "nextCursor" not in body:
            break
        params["cursor"] = body["nextCursor"]
    assert seen == [item["id"] for item in whole["items"]]
    assert "nextCursor" not in whole and "totalCount" not in whole


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"type": "Bogus"}, "type"),
        ({"sort": "popularity"}, "sort"),
        ({"attention": "nope"}, "attention"),
        ({"limit": 201}, "limit"),
        ({"recursive": "yes"}, "recursive"),
        ({"ids": "a,,b"}, "ids"),
        ({"yearFrom": 1700, "yearTo": 2001}, "yearTo"),
        ({"initial": "1"}, "initial"),
        ({"cursor": "forged"}, "cursor"),
    ],
)
async def test_invalid_parameters_are_400_field_invalid(
    client: httpx.AsyncClient, params: dict[str, Any], field: str
) -> None:
    response = await get(client, "/items", params)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "field_invalid" and body["params"]["field"] == field and body["message"]


async def test_a_cursor_sent_with_other_filters_is_refused(client: httpx.AsyncClient, samples: Samples) -> None:
    cursor = (await get(client, "/items", {"limit": 2})).json()["nextCursor"]
    tampered = cursor[:-2] + ("AA" if not cursor.endswith("AA") else "BB")
    for params in ({"limit": 2, "cursor": cursor, "type": "Movie"}, {"cursor": cursor, "sort": "year"},
                   {"cursor": tampered}):  # fmt: skip
        response = await get(client, "/items", params)
        assert response.status_code == 400
        assert response.json()["params"]["field"] == "cursor"
    assert (await get(client, "/items", {"limit": 5, "cursor": cursor})).status_code == 200


async def test_an_unknown_library_or_parent_is_404(client: httpx.AsyncClient, samples: Samples) -> None:
    for params in ({"libraryId": "nope"}, {"parentId": "nope"}):
        response = await get(client, "/items", params)
        assert response.status_code == 404 and response.json()["code"] == "not_found"


async def test_a_key_has_no_play_state_or_favourites(client: httpx.AsyncClient, samples: Samples) -> None:
    async def count(params: dict[str, str]) -> int:
        return len((await get(client, "/items", {**params, "limit": 200})).json()["items"])

    for nothing in ({"isPlayed": "true"}, {"isFavorite": "true"}, {"favoritePeople": "true"}, {"neverPlayed": "false"}):
        assert await count(nothing) == 0, nothing
    for everything in ({"isPlayed": "false"}, {"isFavorite": "false"}, {"favoritePeople": "false"},
                       {"neverPlayed": "true"}):  # fmt: skip
        assert await count(everything) == TOP_LEVEL_COUNT, everything


async def test_the_openapi_description_documents_the_user_state_rules(client: httpx.AsyncClient) -> None:
    spec = (await get(client, "/openapi.json")).json()
    operation = spec["paths"]["/api/v1/items"]["get"]
    text = operation["summary"] + operation["description"]
    assert "no user behind it" in text
    assert "isPlayed=true" in text and "neverPlayed=true matches everything" in text
    parameters = {p["name"] for p in operation["parameters"]}
    assert {"libraryId", "excludeType", "imageKinds", "attention", "card", "cursor", "includeTotal"} <= parameters
    assert "/api/v1/items/{item_id}" in spec["paths"]


async def test_item_detail_is_the_full_item(client: httpx.AsyncClient, samples: Samples) -> None:
    response = await get(client, f"/items/{samples['Arrival']}")
    assert response.status_code == 200
    arrival = response.json()
    assert arrival["genres"] == ["Drama", "Science Fiction"] and arrival["people"][0]["kind"] == "Actor"
    assert [e["name"] for e in arrival["extras"]] == ["Arrival Trailer", "Arrival Featurette"]
    assert arrival["mediaSources"][0]["streams"][0]["type"] == "Video"
    assert arrival["subtitleDownloadBlockedReason"] == "no_provider"


async def test_an_unknown_item_is_404(client: httpx.AsyncClient) -> None:
    response = await get(client, "/items/no-such-item")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
