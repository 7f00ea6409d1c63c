"""Nothing outside a library's roots is served, over a real server (issue 12, item 1).

The issue's repro: ``ln -s /etc/shadow "<root>/Leak (2013)/fanart.jpg"``, scan,
``GET /images/items/<id>?kind=backdrop``.  A stand-in secret beside the root
plays /etc/shadow (the suite need not run as root). The tests share a server,
each with a library of its own folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
import trio

from tests.media_factory import MediaFactory

from ..sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .scanning import create_library, wait_for_state
from .shared_server import client, shared_server  # noqa: F401  (fixtures)

LIMIT_S = 60
SECRET = b"root:$6$rounds=5000$saltsalt$sEcReThAsH:19000:0:99999:7:::\n"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "etc" / "shadow"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    return path


async def scan_movie(client: httpx.AsyncClient, root: Path) -> dict:
    library = await create_library(client, "Films", [root])
    assert (await wait_for_state(client, library["id"]))["state"] == "completed"
    [movie] = (await client.get("/items", params={"libraryId": library["id"]})).json()["items"]
    return (await client.get(f"/items/{movie['id']}")).json()


async def image(client: httpx.AsyncClient, item_id: str, **params: str) -> httpx.Response:
    return await client.get(f"/images/items/{item_id}", params=params)


def assert_not_served(response: httpx.Response, *secrets: bytes) -> None:
    assert response.status_code == 404, response.text
    assert response.json()["code"] == "not_found"
    assert all(secret not in response.content for secret in secrets)


async def test_image_symlinked_to_secret_is_not_served(
    client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory, secret: Path
) -> None:
    root = tmp_path / "films"
    media.video(root / "Leak (2013)" / "Leak (2013).mkv")
    media.image(root / "Leak (2013)" / "poster.jpg")
    os.symlink(secret, root / "Leak (2013)" / "fanart.jpg")
    with trio.fail_after(LIMIT_S):
        movie = await scan_movie(client, root)
        backdrop = await image(client, movie["id"], kind="backdrop")
        resized = await image(client, movie["id"], kind="backdrop", maxWidth="50")
        poster = await image(client, movie["id"])
        errors = (await client.get("/scans/errors")).json()
    assert_not_served(backdrop, SECRET)
    assert_not_served(resized, SECRET)
    assert poster.status_code == 200 and poster.headers["content-type"] == "image/jpeg"
    assert list(movie["images"]) == ["primary"]  # the link out was never indexed
    assert str(secret) not in str(errors)  # the link's target is not told


async def test_image_swapped_for_a_link_out_after_the_scan_is_not_served(
    client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory, secret: Path
) -> None:
    """Checked again when served: a link swapped in after the scan (to an image or not) leaks nothing."""
    root = tmp_path / "films"
    media.video(root / "Leak (2013)" / "Leak (2013).mkv")
    fanart = media.image(root / "Leak (2013)" / "fanart.jpg", (320, 180))
    poster = media.image(root / "Leak (2013)" / "poster.jpg")
    private = media.image(tmp_path / "private" / "photo.jpg", (320, 180), color="red")
    with trio.fail_after(LIMIT_S):
        movie = await scan_movie(client, root)
        assert (await image(client, movie["id"], kind="backdrop")).status_code == 200
        assert (await image(client, movie["id"])).status_code == 200
        fanart.unlink()
        fanart.symlink_to(secret)
        poster.unlink()
        poster.symlink_to(private)
        responses = [
            await image(client, movie["id"], kind="backdrop"),
            await client.head(f"/images/items/{movie['id']}", params={"kind": "backdrop"}),
            await image(client, movie["id"]),
            await image(client, movie["id"], maxWidth="60"),
        ]
    for response in responses[:1] + responses[2:]:
        assert_not_served(response, SECRET, private.read_bytes())
    assert responses[1].status_code == 404 and responses[1].content == b""


async def test_symlink_inside_root_still_served(client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "films"
    media.video(root / "Arrival (2016)" / "Arrival (2016).mkv")
    shared = media.image(root / "Shared" / "artwork.jpg")
    os.symlink("../Shared/artwork.jpg", root / "Arrival (2016)" / "poster.jpg")
    with trio.fail_after(LIMIT_S):
        library = await create_library(client, "Films", [root])
        assert (await wait_for_state(client, library["id"]))["state"] == "completed"
        [movie] = (await client.get("/items", params={"libraryId": library["id"]})).json()["items"]
        response = await image(client, movie["id"])
    assert movie["hasPoster"] is True
    assert response.status_code == 200 and response.content == shared.read_bytes()


async def test_non_image_poster_is_not_served(client: httpx.AsyncClient, tmp_path: Path, media: MediaFactory) -> None:
    """Named poster.jpg, it is text: not indexed as an image, so never served as one."""
    root = tmp_path / "films"
    media.video(root / "Notes (2010)" / "Notes (2010).mkv")
    (root / "Notes (2010)" / "poster.jpg").write_bytes(SECRET)
    with trio.fail_after(LIMIT_S):
        movie = await scan_movie(client, root)
        response = await image(client, movie["id"])
    assert_not_served(response, SECRET)
