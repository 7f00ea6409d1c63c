"""File and directory names that are not UTF-8, scanned for real and served over HTTP, on both backends.

Names are bytes on Linux. A file named ``b"Caf\\xe9 (2001).mkv"`` (Latin-1,
as old tools wrote it) once failed a whole scan; it is indexed, listed in
valid JSON with a path that leads back to the file, and seen unchanged by
the next quick scan.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.media.file_names import to_fs

from ..media_factory import MediaFactory
from .conftest import start_server
from .scanning import create_library, wait_for_state
from .test_scan_events import collect_until

CAFE_DIR = b"Caf\xe9 (2001)"
CAFE_FILE = b"Caf\xe9 (2001).mkv"
LOOSE_FILE = b"Na\xefve \xff(2005).mkv"


def _make(root: Path, *names: bytes) -> Path:
    return Path(os.fsdecode(os.path.join(os.fsencode(root), *names)))


@pytest.fixture
def root(tmp_path: Path, media: MediaFactory) -> Path:
    films = tmp_path / "films"
    media.video(films / "Arrival (2016)" / "Arrival (2016).mkv")
    media.video(_make(films, CAFE_DIR, CAFE_FILE))
    media.image(_make(films, CAFE_DIR, b"poster.jpg"))
    media.text(_make(films, CAFE_DIR, b"Caf\xe9 (2001).en.srt"), "1\n00:00:00,000 --> 00:00:01,000\nHi\n")
    media.video(_make(films, LOOSE_FILE))
    os.symlink(b"nowhere", os.path.join(os.fsencode(films), b"gone \xe9.mkv"))  # a scan error with a bad name
    return films


async def _json(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return json.loads(response.content.decode("utf-8"))  # strict: the body is valid UTF-8 JSON


async def _movies(client: httpx.AsyncClient, library_id: str) -> list[dict[str, Any]]:
    body = await _json(await client.get("/items", params={"libraryId": library_id, "limit": 50}))
    return list(body["items"])


async def test_names_with_invalid_utf8_are_indexed_listed_served_and_rescanned(
    client: httpx.AsyncClient, root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with trio.fail_after(90):
        library = await create_library(client, "Films", [root])
        status = await wait_for_state(client, library["id"])
        assert status["state"] == "completed", status
        assert status.get("watch") == "watching", status  # the realtime monitor takes such trees too
        movies = await _movies(client, library["id"])
        assert sorted((m["name"], m.get("productionYear")) for m in movies) == [
            ("Arrival", 2016), ("Caf\ufffd", 2001), ("Na\ufffdve \ufffd", 2005),
        ]  # fmt: skip
        cafe = next(m for m in movies if m["name"] == "Caf\ufffd")
        detail = await _json(await client.get(f"/items/{cafe['id']}"))
        (source,) = detail["mediaSources"]
        assert source["path"] == f"{root}/Caf\\xe9 (2001)/Caf\\xe9 (2001).mkv"
        assert os.fsencode(to_fs(source["path"])) == os.path.join(os.fsencode(root), CAFE_DIR, CAFE_FILE)
        assert "probeFailure" not in source, source
        assert {(s["type"], s.get("isExternal", False)) for s in _streams(source)} >= {("Video", False), ("Subtitle", True)}
        poster = await client.get(f"/images/items/{cafe['id']}")
        assert poster.status_code == 200 and poster.headers["content-type"] == "image/jpeg"

        paged = await _paged_by_path(client, library["id"])  # the cursor carries a path text sort key
        assert sorted(paged) == sorted(m["id"] for m in movies)
        errors = await _json(await client.get("/scans/errors", params={"libraryId": library["id"]}))
        assert [e["path"] for e in errors] == [f"{root}/gone \\xe9.mkv"]
        assert status["errors"] == 1

        async def rescan() -> None:
            response = await client.post(f"/libraries/{library['id']}/scan", json={"mode": "quick"})
            assert response.status_code == 200, response.text

        events = await collect_until(client, "scan.completed", during=rescan, after_started=status["startedAt"])
        again = events[-1].data
        assert (again["added"], again["changed"], again["missing"]) == (0, 0, 0), again
        assert sorted(m["id"] for m in await _movies(client, library["id"])) == sorted(m["id"] for m in movies)
    for record in caplog.records:  # a log line is text a UTF-8 log file takes
        record.getMessage().encode("utf-8")


async def _paged_by_path(client: httpx.AsyncClient, library_id: str) -> list[str]:
    params: dict[str, Any] = {"libraryId": library_id, "sort": "path", "limit": 1}
    ids: list[str] = []
    while True:
        body = await _json(await client.get("/items", params=params))
        ids += [i["id"] for i in body["items"]]
        if "nextCursor" not in body:
            return ids
        params["cursor"] = body["nextCursor"]


def _streams(source: dict[str, Any]) -> list[dict[str, Any]]:
    return next(v for k, v in source.items() if isinstance(v, list) and k.lower().endswith("streams"))


async def test_a_file_added_below_a_directory_that_is_not_utf8_is_picked_up_by_the_monitor(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    server = await start_server(nursery, database_url, tmp_path / "data", scan={"monitor_debounce_seconds": 0.2})
    root = tmp_path / "films"
    media.video(_make(root, CAFE_DIR, CAFE_FILE))
    async with server.client() as client:
        with trio.fail_after(60):
            library = await create_library(client, "Films", [root])
            status = await wait_for_state(client, library["id"])
            assert status["watch"] == "watching", status
            media.video(_make(root, CAFE_DIR, b"Caf\xe9 (2001)-trailer.mkv"))
            while len(trailers := await _trailers(client, library["id"])) != 1:
                await trio.sleep(0.1)
    assert trailers[0]["mediaSources"][0]["path"] == f"{root}/Caf\\xe9 (2001)/Caf\\xe9 (2001)-trailer.mkv"


async def _trailers(client: httpx.AsyncClient, library_id: str) -> list[dict[str, Any]]:
    """The extras of the library's one movie, in detail (their paths)."""
    (movie,) = await _movies(client, library_id)
    body = await _json(await client.get("/items", params={"parentId": movie["id"], "type": "Video"}))
    return [await _json(await client.get(f"/items/{i['id']}")) for i in body["items"]]
