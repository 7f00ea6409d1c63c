"""Cover regeneration and clearing the image cache over HTTP (both backends)."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import trio

from reelhouse.actors.scan.covers import COVERS_DIR
from reelhouse.storage.image_cache import IMAGE_CACHE_DIR
from tests.media_factory import MediaFactory

from .conftest import RunningServer
from .scanning import create_library, wait_for_state
from .scrape_support import items_by_name

CAP_S = 60


async def _library_with_posters(client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory) -> dict[str, object]:
    root = tmp_path / "films"
    for n, color in enumerate(("red", "blue")):
        media.video(root / f"Film {n} (200{n})" / f"Film {n} (200{n}).mkv")
        media.image(root / f"Film {n} (200{n})" / "poster.jpg", color=color)
    library = await create_library(client, "Films", [root])
    await wait_for_state(client, library["id"])
    covers: dict[str, object] = {}
    while "primary" not in covers:  # chosen right after the scan completes
        covers = (await client.get(f"/libraries/{library['id']}")).json()["covers"]
        await trio.sleep(0.05)
    return library


async def test_cover_regeneration_makes_the_collage_again_and_answers_the_library(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    with trio.fail_after(CAP_S):
        library = await _library_with_posters(client, tmp_path, media)
        collage = server.data_dir / COVERS_DIR / f"{library['id']}-primary.jpg"
        before = os.stat(collage).st_ino
        response = await client.post(f"/libraries/{library['id']}/covers/regenerate")
        absent = await client.post("/libraries/nope/covers/regenerate")
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["id"] == library["id"] and answer["covers"]["primarySource"] == "auto"
    assert answer["covers"]["primaryGeneratedAt"].endswith("Z")
    assert os.stat(collage).st_ino != before  # written anew (an atomic replace), though its posters did not change
    assert absent.status_code == 404 and absent.json()["code"] == "not_found"


async def test_clearing_the_image_cache_empties_it_and_images_are_rendered_again(
    server: RunningServer, client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory
) -> None:
    with trio.fail_after(CAP_S):
        library = await _library_with_posters(client, tmp_path, media)
        film = (await items_by_name(client, str(library["id"])))["Film 0"]
        first = await client.get(f"/images/items/{film['id']}", params={"maxWidth": 50})
        cache_dir = server.data_dir / IMAGE_CACHE_DIR
        rendered = [path for path in cache_dir.rglob("*") if path.is_file()]
        status = (await client.get("/system/status")).json()
        cleared = await client.post("/system/caches/images/clear")
        left = [path for path in cache_dir.rglob("*") if path.is_file()]
        reported = (await client.get("/system/status")).json()
        again = await client.get(f"/images/items/{film['id']}", params={"maxWidth": 50})
        unknown = await client.post("/system/caches/nope/clear")
    assert first.status_code == 200 and rendered
    assert next(c for c in status["caches"] if c["name"] == "images")["clearable"] is True
    assert cleared.status_code == 200, cleared.text
    body = cleared.json()
    assert body["name"] == "images" and body["status"] == "ok" and body["clearable"] is True
    assert body["sizeBytes"] == 0 and body["fileCount"] == 0 and left == []
    assert next(c for c in reported["caches"] if c["name"] == "images")["fileCount"] == 0
    assert again.status_code == 200 and again.content == first.content
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
