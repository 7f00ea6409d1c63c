"""Every ``SortBy`` the Jellyfin surface knows (``item_query.SORTS``) orders ``/Items`` as the native
sort it names does, both ways, with the member's own watch state for the watch-state sorts; the
column sorts also in the order of the values written.  Over real HTTP on both backends.

The tests only read, so the module builds one server per backend (see tests/http/shared_server.py)
with the shelf, its column values, Ann and her watch states, and each test checks one sort on it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.http.jellyfin import ids
from reelhouse.http.jellyfin.item_query import SORTS
from reelhouse.storage import open_store

from ..conftest import RunningServer, start_server
from ..live_server import module_database
from ..members import add_member
from ..shared_server import START_CAP_S, backend, started_in_thread  # noqa: F401  (backend: fixture)
from .surface import PASSWORD, Shelf, jellyfin, make_shelf, mark_played, play_half_way, sign_in

LIMIT_S = 60
SEED = 26
# Jellyfin SortBy -> the items column whose distinct values (written below) decide the order alone.
COLUMNS = {"datecreated": "date_created", "premieredate": "premiere_date", "productionyear": "production_year",
           "communityrating": "community_rating", "criticrating": "critic_rating", "runtime": "runtime_ticks",
           "path": "path"}  # fmt: skip


async def shuffled_values(server: RunningServer) -> dict[str, dict[str, Any]]:
    """Distinct values of each column of :data:`COLUMNS` for every item, in an order of their own."""
    async with open_store(server.database_url) as store:
        item_ids = [row["id"] for row in await store.fetch_all("SELECT id FROM items ORDER BY id")]
        values: dict[str, dict[str, Any]] = {item_id: {} for item_id in item_ids}
        for n, column in enumerate(COLUMNS.values()):
            order = list(range(len(item_ids)))
            random.Random(n).shuffle(order)
            for item_id, rank in zip(item_ids, order, strict=True):
                value: Any = {"date_created": 1_600_000_000_000 + rank * 86_400_000,
                              "premiere_date": 900_000_000_000 + rank * 86_400_000, "production_year": 1990 + rank,
                              "community_rating": 1.0 + rank / 2, "critic_rating": 10.0 + rank * 5,
                              "runtime_ticks": (rank + 1) * 600_000_000, "path": f"/media/p{rank:02d}"}[column]  # fmt: skip
                values[item_id][column] = value
                await store.execute(f"UPDATE items SET {column} = ? WHERE id = ?", (value, item_id))
        ratings = ["G", "PG", "PG-13", "R", "NC-17"]
        for n, item_id in enumerate(item_ids):
            await store.execute("UPDATE items SET official_rating = ? WHERE id = ?", (ratings[n % 5], item_id))
    return values


async def watch(client: httpx.AsyncClient, shelf: Shelf) -> None:
    """Played, played twice, half-way, favourite: distinct watch states for the watch-state sorts."""
    await mark_played(client, shelf.gore)
    await play_half_way(client, shelf.sunny, "sort-1")
    await mark_played(client, shelf.calm_episodes[0])
    for n in range(2):
        report = {"ItemId": shelf.scary_episodes[0], "PlaySessionId": f"sort-full-{n}", "PositionTicks": 0}
        assert (await client.post("/Sessions/Playing", json=report)).status_code == 204
        done = await client.post("/Sessions/Playing/Stopped", json={**report, "PositionTicks": 2999 * 10_000_000})
        assert done.status_code == 204
    assert (await client.post(f"/UserFavoriteItems/{shelf.calm}")).status_code == 200


async def jellyfin_order(client: httpx.AsyncClient, sort_by: str, order: str) -> list[str]:
    answer = await client.get("/Items", params={"Recursive": "true", "SortBy": sort_by, "SortOrder": order})
    assert answer.status_code == 200, answer.text
    return [ids.item_id(item["Id"]) for item in answer.json()["Items"]]


async def native_order(client: httpx.AsyncClient, sort: str, order: str) -> list[str]:
    answer = await client.get("/items", params={"recursive": "true", "sort": sort, "order": order, "limit": 200})
    assert answer.status_code == 200, answer.text
    return [item["id"] for item in answer.json()["items"]]


@dataclass(frozen=True)
class Sorted:
    """The module's server with its shelf, the column values written and Ann's token (her watch states set)."""

    server: RunningServer
    values: dict[str, dict[str, Any]]
    token: str


async def start_sorted(nursery: trio.Nursery, database_url: str, data_dir: Path) -> Sorted:
    server = await start_server(nursery, database_url, data_dir)
    try:
        with trio.fail_after(LIMIT_S):
            shelf = await make_shelf(server, random.Random(SEED).randbytes)  # the same ids, so orders, every run
            values = await shuffled_values(server)
            await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
            token = await sign_in(server, "Ann")
            async with jellyfin(server, token) as ann:
                await watch(ann, shelf)
    except trio.TooSlowError:
        raise AssertionError(f"the sorting module's shelf, member and watch states took over {LIMIT_S} s") from None
    return Sorted(server, values, token)


@pytest.fixture(scope="module")
def shelved(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sorted]:
    root = tmp_path_factory.mktemp(f"sorting-{backend}")
    with module_database(backend, root) as url, started_in_thread(
        lambda nursery: start_sorted(nursery, url, root / "data"), lambda shelved: shelved.server.shutdown,
        start_cap_s=START_CAP_S + LIMIT_S,  # the server, then the shelf and watch states
    ) as shelved:
        yield shelved


@pytest.mark.parametrize("sort_by", sorted(SORTS))
async def test_every_sort_orders_items_as_the_native_sort_it_names(shelved: Sorted, sort_by: str) -> None:
    server, values = shelved.server, shelved.values
    spelled = "".join(c.upper() if n % 3 == 0 else c for n, c in enumerate(sort_by))  # Jellyfin's names, any case
    async with jellyfin(server, shelved.token) as ann, server.client(shelved.token) as native:
        with trio.fail_after(LIMIT_S):
            ascending = await jellyfin_order(ann, spelled, "Ascending")
            descending = await jellyfin_order(ann, spelled, "Descending")
            assert sorted(ascending) == sorted(descending) == sorted(values)
            if SORTS[sort_by] == "random":
                return
            assert ascending != descending
            assert ascending == await native_order(native, SORTS[sort_by], "asc")
            assert descending == await native_order(native, SORTS[sort_by], "desc")
            if sort_by in COLUMNS:
                column = COLUMNS[sort_by]
                assert ascending == sorted(values, key=lambda item_id: values[item_id][column])
                assert descending == ascending[::-1]
