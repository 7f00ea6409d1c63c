"""GET /search over a real socket, on both backends: parameters, shape, ranking.

The refused requests share one server per module and backend; the tests that plant a catalogue have their own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve

from reelhouse.config import load_settings
from reelhouse.http import AppContext, create_app
from reelhouse.http.search import blueprint
from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from ..tls import shared_tls_context
from .live_server import module_database
from .shared_server import backend, started_in_thread  # noqa: F401  (backend: a fixture)

LIMIT_S = 20


@dataclass
class Http:
    client: httpx.AsyncClient

    async def get(self, path: str, **params: Any) -> httpx.Response:
        with trio.fail_after(LIMIT_S):
            return await self.client.get(path, params=params)


@dataclass
class Api(Http):
    store: Store


@dataclass(frozen=True)
class Served:
    url: str
    key: str
    shutdown: trio.Event

    def client(self) -> httpx.AsyncClient:
        headers = {"Authorization": f"Bearer {self.key}"}
        return httpx.AsyncClient(verify=shared_tls_context(), base_url=self.url, headers=headers)


async def serve_search(
    database_url: str, data_dir: Path, *, task_status: trio.TaskStatus[tuple[Served, Store]] = trio.TASK_STATUS_IGNORED
) -> None:
    """The app with the search routes over a real socket until its ``shutdown`` is set."""
    settings = load_settings(flags={"data_dir": str(data_dir)}, environ={})
    async with open_store(database_url) as store:
        await migrate(store)
        _record, key = await create_api_key(store, "tests")
        app = create_app(AppContext(settings, store, "dev", "sid", datetime.now(UTC), actors=None))
        if blueprint.name not in app.blueprints:
            app.register_blueprint(blueprint, url_prefix="/api/v1")
        config = HypercornConfig()
        config.bind = ["127.0.0.1:0"]
        shutdown = trio.Event()
        async with trio.open_nursery() as http:
            binds = await http.start(partial(hypercorn_serve, app, config, shutdown_trigger=shutdown.wait))
            task_status.started((Served(f"{binds[0]}/api/v1", key, shutdown), store))


@pytest.fixture
async def api(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> AsyncIterator[Api]:
    served, store = await nursery.start(serve_search, database_url, tmp_path)
    async with served.client() as client:
        yield Api(client, store)
    served.shutdown.set()


@pytest.fixture(scope="module")
def refusing_server(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server per module and backend for the requests that are refused: they read and write nothing."""
    root = tmp_path_factory.mktemp(f"search-{backend}")
    with module_database(backend, root) as url, started_in_thread(
        lambda nursery: _served(nursery, url, root), lambda served: served.shutdown
    ) as served:
        yield served


async def _served(nursery: trio.Nursery, database_url: str, data_dir: Path) -> Served:
    served, _store = await nursery.start(serve_search, database_url, data_dir)
    return served


@pytest.fixture
async def refusing(refusing_server: Served) -> AsyncIterator[Http]:
    async with refusing_server.client() as client:
        yield Http(client)


async def add_item(store: Store, item_id: str, name: str, **columns: Any) -> None:
    values = {"library_id": "lib", "type": "Movie", "sort_name": name, "date_created": 1_700_000_000_123,
              "date_modified": 1, **columns}
    names = ", ".join(["id", "name", *values])
    marks = ", ".join("?" * (len(values) + 2))
    await store.execute(f"INSERT INTO items ({names}) VALUES ({marks})", (item_id, name, *values.values()))


@pytest.fixture
async def catalogue(api: Api) -> Api:
    await api.store.execute(
        "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES ('lib', 'M', 'movies', 1, 1)"
    )
    return api


async def test_q_missing_or_blank_is_field_required(refusing: Http) -> None:
    for params in ({}, {"q": ""}, {"q": "   "}):
        response = await refusing.get("/search", **params)
        assert response.status_code == 400
        assert response.json()["code"] == "field_required" and response.json()["params"] == {"field": "q"}


@pytest.mark.parametrize("limit", ["0", "201", "-1", "ten", "2.5"])
async def test_a_limit_outside_1_to_200_is_field_invalid(refusing: Http, limit: str) -> None:
    response = await refusing.get("/search", q="x", limit=limit)
    assert response.status_code == 400
    assert response.json()["code"] == "field_invalid" and response.json()["params"] == {"field": "limit"}


async def test_no_match_gives_two_empty_lists(catalogue: Api) -> None:
    response = await catalogue.get("/search", q="nothing here")
    assert response.status_code == 200 and response.json() == {"items": [], "people": []}


async def test_items_are_item_summaries_with_omitted_fields_absent(catalogue: Api) -> None:
    store = catalogue.store
    await add_item(store, "m1", "Amélie", production_year=2001, original_title="Le Fabuleux Destin")
    await add_item(store, "m2", "Amélie Returns")
    await store.execute("INSERT INTO images (item_id, kind, idx, path, tag) VALUES ('m1', 'primary', 0, '/a.jpg', 't1')")
    body = (await catalogue.get("/search", q="AMELIE")).json()
    first, second = body["items"]
    assert first == {
        "id": "m1", "name": "Amélie", "sortName": "Amélie", "libraryId": "lib", "type": "Movie",
        "dateCreated": "2023-11-14T22:13:20.123Z", "hasPoster": True, "imageTag": "t1", "locked": False,
        "missing": False, "scrapeState": "none", "productionYear": 2001, "originalTitle": "Le Fabuleux Destin",
    }
    assert second["id"] == "m2" and second["hasPoster"] is False and "imageTag" not in second


async def test_a_version_primary_carries_its_version_member_count(catalogue: Api) -> None:
    store = catalogue.store
    await add_item(store, "v1", "Heat", path="/m/Heat - 1080p.mkv")
    await add_item(store, "v2", "Heat", path="/m/Heat - 4K.mkv", version_of="v1")
    body = (await catalogue.get("/search", q="heat")).json()
    counts = {item["id"]: (item.get("versionMemberCount"), item.get("versionOf")) for item in body["items"]}
    assert counts == {"v1": (1, None), "v2": (None, "v1")}


async def test_episode_fields_follow_the_item_list_rules(catalogue: Api) -> None:
    store = catalogue.store
    await add_item(store, "s1", "Dark", type="Series")
    await add_item(store, "se1", "Season 1", type="Season", parent_id="s1", series_id="s1", index_number=1)
    await add_item(store, "e1", "Secrets of Dark", type="Episode", parent_id="se1", series_id="s1",
                   season_id="se1", index_number=1, parent_index_number=1)
    items = {item["id"]: item for item in (await catalogue.get("/search", q="dark")).json()["items"]}
    assert (items["e1"]["seriesId"], items["e1"]["seasonId"], items["e1"]["parentIndexNumber"]) == ("s1", "se1", 1)
    assert "seriesId" not in items["s1"] and "seasonId" not in items["s1"]


async def test_people_carry_image_tag_and_role_when_known(catalogue: Api) -> None:
    store = catalogue.store
    await add_item(store, "m1", "Film")
    await store.execute_many(
        "INSERT INTO people (id, name, sort_name, image_tag, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 1)",
        [("p1", "Agnès Varda", "Varda", "img9"), ("p2", "Varda Fan", "Varda Fan", None)],
    )
    await store.execute("INSERT INTO credits (item_id, person_id, kind) VALUES ('m1', 'p1', 'Director')")
    people = (await catalogue.get("/search", q="varda")).json()["people"]
    assert people == [
        {"id": "p2", "name": "Varda Fan"},  # name starts with the query: before a later word
        {"id": "p1", "name": "Agnès Varda", "imageTag": "img9", "role": "Director"},
    ]


async def test_limit_caps_each_list_and_defaults_to_20(catalogue: Api) -> None:
    store = catalogue.store
    for n in range(25):
        await add_item(store, f"m{n:02d}", f"Ghost {n:02d}")
    await store.execute_many(
        "INSERT INTO people (id, name, sort_name, created_at, updated_at) VALUES (?, ?, ?, 1, 1)",
        [(f"p{n:02d}", f"Ghost Writer {n:02d}", f"Ghost Writer {n:02d}") for n in range(25)],
    )
    default = (await catalogue.get("/search", q="ghost")).json()
    assert len(default["items"]) == 20 and len(default["people"]) == 20
    capped = (await catalogue.get("/search", q="ghost", limit="3")).json()
    assert [i["name"] for i in capped["items"]] == ["Ghost 00", "Ghost 01", "Ghost 02"]
    assert len(capped["people"]) == 3


async def test_ranked_and_scoped_through_http(catalogue: Api) -> None:
    store = catalogue.store
    await add_item(store, "a", "École de la vie")
    await add_item(store, "b", "L'École")
    await add_item(store, "c", "Ecole")
    await add_item(store, "d", "École perdue", missing=1)
    await add_item(store, "e", "École bonus", owner_id="a", extra_type="Featurette", type="Video")
    items = (await catalogue.get("/search", q="ÉCOLE")).json()["items"]
    assert [item["id"] for item in items] == ["c", "a", "b"]


async def test_the_search_needs_an_api_key(refusing: Http) -> None:
    with trio.fail_after(LIMIT_S):
        response = await refusing.client.get("/search", params={"q": "x"}, headers={"Authorization": ""})
    assert response.status_code == 401
