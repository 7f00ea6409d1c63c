"""Issue 33, items 2-4: people's pages, provider collections as BoxSets, NFO sync.

The bundled tmdb plugin against the local fake TMDB API (nothing leaves
127.0.0.1), a library of real video files, both backends, over HTTP:
a scraped film's actor gets a biography and a picture from
personDetailsFill, served by GET /images/people/{id}, and their credits
list through GET /items?personId=; films of one provider collection
become one BoxSet (listed with type=BoxSet only, its members through
parentId) whose name, overview and poster collectionNameFill reads; NFO
sync writes NFO files and posters only where none exist.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.http.jellyfin.ids import item_guid
from tests.fakes.tmdb_api import FakeTmdb, fake_tmdb
from tests.fakes.tmdb_catalogue import Collection, Image, fixture_catalogue, with_collection, with_movies
from tests.media_factory import MediaFactory

from ..tls import shared_tls_context
from .conftest import RunningServer, start_server
from .scanning import create_library
from .scrape_support import TmdbServer, detail, films, job_matching, tmdb_server, wait_for_states, wait_until

CAP_S = 120
KEANU = "Keanu Reeves"
MATRIX_COLLECTION = Collection(
    2344, {"en": {"name": "The Matrix Collection", "overview": "The Matrix films."}},
    poster_path="/matrix-collection.jpg")


def _catalogue() -> Any:
    catalogue = fixture_catalogue()
    reloaded = replace(catalogue.movies[603], id=604, release_date="2003-05-15", imdb_id="tt0234215",
                       texts={"en": {"title": "The Matrix Reloaded", "overview": "Neo goes on."}},
                       posters=(Image("/reloaded-poster.jpg", "en", 300, 450),), backdrops=(), logos=())
    return with_collection(with_movies(catalogue, [reloaded]), MATRIX_COLLECTION, [603, 604])


@pytest.fixture
def fake() -> Iterator[FakeTmdb]:
    with fake_tmdb(_catalogue()) as running:
        yield running


@pytest.fixture
async def tmdb(nursery: trio.Nursery, database_url: str, tmp_path: Path, fake: FakeTmdb) -> AsyncIterator[TmdbServer]:
    async with tmdb_server(nursery, database_url, tmp_path, fake) as running:
        yield running


async def _activity(client: httpx.AsyncClient, action: str) -> list[dict[str, Any]]:
    response = await client.get("/activity", params={"limit": 100})
    assert response.status_code == 200, response.text
    return [entry for entry in response.json()["entries"] if entry["action"] == action]


async def _person_filled(client: httpx.AsyncClient, person_id: str) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        person = (await client.get(f"/people/{person_id}")).json()
        return person if person["detailsState"] == "filled" else None

    return await wait_until(probe, f"person {person_id} filled")


async def test_after_a_scrape_a_person_has_details_a_picture_and_credits(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "The Matrix (1999)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])
            items = await wait_for_states(client, library["id"], {"The Matrix": "scraped"})
            matrix = await detail(client, items["The Matrix"]["id"])
            keanu = next(p for p in matrix["people"] if p["name"] == KEANU)
            person = await _person_filled(client, keanu["id"])  # filled after the batch, by itself
            automatic = await job_matching(client, "personDetailsFill", state="succeeded")
            picture = await client.get(f"/images/people/{keanu['id']}", params={"tag": person["imageTag"]})
            small = await client.get(f"/images/people/{keanu['id']}", params={"maxWidth": 60})
            credits = await client.get("/items", params={"personId": keanu["id"]})
            jellyfin = await _jellyfin_picture(tmdb.server, client, matrix["id"], KEANU)
            unknown = await client.get("/people/nobody")
            no_picture = await client.get(f"/images/people/{_id_of(matrix, 'Joel Silver')}")
            started = await client.post("/people/details-fill")
            assert started.status_code == 202, started.text
            job = await job_matching(client, started.json()["jobId"], state="succeeded", trigger="manual")
            logged = await _activity(client, "person.details_fill")
    assert automatic["trigger"] == "scan" and automatic["messageCode"] == "peopleDetailsFilled"
    assert automatic["messageParams"]["filled"] >= 1
    assert person["overview"] == "Keanu Charles Reeves is a Canadian actor."
    assert person["birthDate"] == "1964-09-02" and person["birthPlace"] == "Beirut, Lebanon"
    assert person["providerIds"]["tmdb"] == "6384"
    assert [c["itemId"] for c in person["credits"]] == [matrix["id"]]
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/jpeg"
    assert "immutable" in picture.headers["cache-control"] and picture.headers["etag"]
    assert small.status_code == 200 and small.headers["content-type"].startswith("image/")
    assert [item["id"] for item in credits.json()["items"]] == [matrix["id"]]
    assert jellyfin.status_code == 200 and jellyfin.content == picture.content
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
    assert no_picture.status_code == 404
    assert started.json()["kind"] == "personDetailsFill" and job["messageCode"] == "peopleDetailsFilled"
    assert logged and logged[0]["details"]["jobId"] == job["id"]


async def _jellyfin_picture(server: RunningServer, client: httpx.AsyncClient, item_id: str, name: str
                            ) -> httpx.Response:
    """A cast member's picture as a Jellyfin player asks for it: the PrimaryImageTag of the item's People."""
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, headers={"X-Emby-Token": server.key},
                                 timeout=10.0) as jellyfin:
        people = (await jellyfin.get(f"/Items/{item_guid(item_id)}")).json()["People"]
        person = next(p for p in people if p["Name"] == name)
        return await jellyfin.get(f"/Items/{person['Id']}/Images/Primary", params={"tag": person["PrimaryImageTag"]})


def _id_of(detail_json: dict[str, Any], name: str) -> str:
    return next(p["id"] for p in detail_json["people"] if p["name"] == name)


async def test_recheck_and_source_refetch_bring_a_lost_picture_back(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "The Matrix (1999)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])
            items = await wait_for_states(client, library["id"], {"The Matrix": "scraped"})
            keanu = _id_of(await detail(client, items["The Matrix"]["id"]), KEANU)
            await _person_filled(client, keanu)
            await job_matching(client, "personDetailsFill", state="succeeded")
            for picture in (tmdb.server.data_dir / "people").iterdir():
                picture.unlink()  # the picture store lost its files
            lost = await client.get(f"/images/people/{keanu}")
            refetch = await client.post("/people/source-refetch")
            refetched = await job_matching(client, refetch.json()["jobId"], state="succeeded")
            back = await client.get(f"/images/people/{keanu}")
            recheck = await client.post("/people/recheck")
            rechecked = await job_matching(client, recheck.json()["jobId"], state="succeeded")
    assert lost.status_code == 404
    assert refetched["kind"] == "personSourceRefetch" and refetched["messageCode"] == "personSourceRefetchDone"
    assert refetched["messageParams"]["refetched"] >= 1 and refetched["messageParams"]["failed"] == 0
    assert back.status_code == 200
    assert rechecked["kind"] == "personRecheck" and rechecked["messageCode"] == "peopleDetailsFilled"


async def test_films_of_one_provider_collection_become_one_boxset(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "The Matrix (1999)", "The Matrix Reloaded (2003)", "Heat (1995)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])
            items = await wait_for_states(client, library["id"], {
                "The Matrix": "scraped", "The Matrix Reloaded": "scraped", "Heat": "scraped"})
            listed = (await client.get("/items", params={"libraryId": library["id"]})).json()["items"]
            boxsets = (await client.get("/items", params={"libraryId": library["id"], "type": "BoxSet"})).json()
            box = boxsets["items"][0]
            members = (await client.get("/items", params={"parentId": box["id"]})).json()["items"]
            automatic = await job_matching(client, f"collectionNameFill:{library['id']}", state="succeeded")
            filled = await detail(client, box["id"])
            poster = await client.get(f"/images/items/{box['id']}")
            again = await client.post("/collections/fill", params={"libraryId": library["id"]})
            manual = await job_matching(client, again.json()["jobId"], state="succeeded", trigger="manual")
            unknown = await client.post("/collections/fill", params={"libraryId": "nope"})
            logged = await _activity(client, "library.collections_fill")
    assert "BoxSet" not in {item["type"] for item in listed}
    assert [b["type"] for b in boxsets["items"]] == ["BoxSet"] and box["name"] == "The Matrix Collection"
    assert sorted(m["id"] for m in members) == sorted((items["The Matrix"]["id"], items["The Matrix Reloaded"]["id"]))
    assert automatic["kind"] == "collectionNameFill" and automatic["trigger"] == "scan"
    assert automatic["messageCode"] == "collectionsFilled" and automatic["messageParams"]["skipped"] == 0
    assert filled["overview"] == "The Matrix films." and filled["providerIds"] == {"tmdb": "2344"}
    assert filled["images"].get("primary") and poster.status_code == 200
    assert manual["messageParams"] == {"filled": 0, "skipped": 0}  # nothing left to read
    assert unknown.status_code == 404
    assert logged and logged[0]["target"]["id"] == library["id"]


async def test_an_nfo_collection_becomes_a_boxset_when_collections_are_filled(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "Heat (1995)")
    media.text(root / "Heat (1995)" / "Heat (1995).nfo",
               "<movie><title>Heat</title><year>1995</year><set><name>Mann Films</name></set></movie>")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root], options={
                "remoteAllowedHosts": [], "metadataProviders": []})
            await wait_until(lambda: _named(client, library["id"], "Heat"), "Heat scanned")
            started = await client.post("/collections/fill")
            await job_matching(client, started.json()["jobId"], state="succeeded")
            boxsets = (await client.get("/items", params={"type": "BoxSet"})).json()["items"]
    assert [b["name"] for b in boxsets] == ["Mann Films"]


async def _named(client: httpx.AsyncClient, library_id: str, name: str) -> bool:
    items = (await client.get("/items", params={"libraryId": library_id})).json()["items"]
    return any(item["name"] == name for item in items)


async def test_nfo_sync_writes_nfo_files_and_posters_only_where_none_exist(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "The Matrix (1999)", "Heat (1995)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root], options={  # no rescan reads "mine" meanwhile
                "remoteAllowedHosts": [], "metadataProviders": ["tmdb"], "realtimeMonitor": False})
            await wait_for_states(client, library["id"], {"The Matrix": "scraped", "Heat": "scraped"})
            refused = await client.post(f"/libraries/{library['id']}/nfo-sync")
            mine = root / "Heat (1995)" / "Heat (1995).nfo"
            mine.write_text("<movie><title>My Heat</title></movie>")  # appeared after the scan
            options = {**library["options"], "writeBack": True}
            updated = await client.patch(f"/libraries/{library['id']}/options", json=_settable(options))
            started = await client.post(f"/libraries/{library['id']}/nfo-sync")
            job = await job_matching(client, started.json()["jobId"], state="succeeded")
            logged = await _activity(client, "library.nfo_sync")
    matrix_nfo = root / "The Matrix (1999)" / "The Matrix (1999).nfo"
    assert refused.status_code == 409 and refused.json()["code"] == "nfo_write_disabled"
    assert updated.status_code == 200, updated.text
    assert updated.json()["nfoSyncSuggested"] is True
    assert job["kind"] == "nfoSync" and job["changed"] == 2 and job.get("errors") == 0  # Heat: its poster only
    assert "<title>The Matrix</title>" in matrix_nfo.read_text()
    assert "Keanu Reeves" in matrix_nfo.read_text()
    assert list((root / "The Matrix (1999)").glob("The Matrix (1999)-poster.*"))
    assert mine.read_text() == "<movie><title>My Heat</title></movie>"
    assert logged and logged[0]["target"]["id"] == library["id"]


def _settable(options: dict[str, Any]) -> dict[str, Any]:
    skip = {name for name in options if name.startswith("effective")}
    return {name: value for name, value in options.items() if name not in skip and value is not None}


async def test_filling_people_without_a_person_provider_is_409(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await start_server(nursery, database_url, tmp_path / "data")
    try:
        with trio.fail_after(CAP_S):
            async with server.client() as client:
                refused = await client.post("/people/details-fill")
                refetch = await client.post("/people/source-refetch")
                job = await job_matching(client, refetch.json()["jobId"], state="succeeded")
    finally:
        server.shutdown.set()
    assert refused.status_code == 409 and refused.json()["code"] == "no_person_provider"
    assert job["messageParams"] == {"refetched": 0, "failed": 0}


async def test_a_running_people_job_is_cancelled_through_the_jobs_route(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "The Matrix (1999)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root])
            items = await wait_for_states(client, library["id"], {"The Matrix": "scraped"})
            await _person_filled(client, _id_of(await detail(client, items["The Matrix"]["id"]), KEANU))
            await job_matching(client, "personDetailsFill", state="succeeded")
            tmdb.fake.hold()  # the recheck's first question waits
            try:
                started = await client.post("/people/recheck")
                running = await job_matching(client, "personRecheck", state="running", cancellable=True)
                cancelled = await client.post("/jobs/personRecheck/cancel")
                ended = await job_matching(client, "personRecheck", state="cancelled")
            finally:
                tmdb.fake.release()
            again = await client.post("/jobs/personRecheck/cancel")
    assert started.status_code == 202 and running["kind"] == "personRecheck"
    assert cancelled.status_code == 204
    assert ended["cancellable"] is False and "finishedAt" in ended
    assert again.status_code == 409


async def test_a_folder_that_refuses_the_files_ends_nfo_sync_with_nfo_write_failed(
    tmdb: TmdbServer, tmp_path: Path, media: MediaFactory
) -> None:
    root = films(media, tmp_path / "films", "The Matrix (1999)", "Heat (1995)")
    with trio.fail_after(CAP_S):
        async with tmdb.server.client() as client:
            library = await create_library(client, "Films", [root], options={
                "remoteAllowedHosts": [], "metadataProviders": ["tmdb"], "realtimeMonitor": False})
            await wait_for_states(client, library["id"], {"The Matrix": "scraped", "Heat": "scraped"})
            options = _settable({**library["options"], "writeBack": True})
            assert (await client.patch(f"/libraries/{library['id']}/options", json=options)).status_code == 200
            outside = tmp_path / "elsewhere"
            (root / "Heat (1995)").rename(outside)  # the folder now leads out of the library's roots
            (root / "Heat (1995)").symlink_to(outside, target_is_directory=True)
            started = await client.post(f"/libraries/{library['id']}/nfo-sync")
            job = await job_matching(client, started.json()["jobId"], state="succeeded")
    assert job["messageCode"] == "nfoWriteFailed" and job["messageParams"] == {"failures": 1}
    assert job["changed"] == 1 and job["errors"] == 1
    assert sorted(p.name for p in outside.iterdir()) == ["Heat (1995).mkv"]  # nothing written out there
    assert (root / "The Matrix (1999)" / "The Matrix (1999).nfo").is_file()
