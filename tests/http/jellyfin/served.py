"""A live server (a real process) per backend holding real media, for the Jellyfin client tests.

Module-scoped: the published clients are synchronous (requests,
websocket-client) or a node process, so the server runs apart from the
test, as ``tests/http/live_server.py`` runs it.  The library holds a movie
with its poster and a series of one season with three episodes, made by
ffmpeg; Ann (password) sees it, Bob (hidden) does not exist for
``/Users/Public``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, add_user, update_member

from ...conftest import BACKENDS
from ...media_factory import MediaFactory, VideoSpec
from ...tls import shared_tls_context
from ..live_server import LiveServer, live_server, module_database

PASSWORD = "correct horse battery"
ADMIN_PASSWORD = "staple battery horse"
REQUEST_TIMEOUT_S = 15.0
SCAN_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Served:
    server: LiveServer
    database_url: str
    movies_id: str
    shows_id: str
    media_root: Path

    @property
    def url(self) -> str:
        return self.server.base_url

    def native(self) -> httpx.Client:
        return httpx.Client(verify=shared_tls_context(), base_url=self.server.api_url, headers=self.server.auth, timeout=REQUEST_TIMEOUT_S)


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def served(backend: str, tmp_path_factory: pytest.TempPathFactory, media: MediaFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp(f"jellyfin-{backend}")
    library_root = make_media(root / "media", media)
    with module_database(backend, root) as url, live_server(url, root / "data") as server:
        with httpx.Client(verify=shared_tls_context(), base_url=server.api_url, headers=server.auth, timeout=REQUEST_TIMEOUT_S) as client:
            movies_id = create_library(client, "Films", library_root / "Movies", "movies")
            shows_id = create_library(client, "Shows", library_root / "Shows", "tvshows")
        trio.run(add_members, url, (movies_id, shows_id))
        yield Served(server, url, movies_id, shows_id, library_root)


def create_library(client: httpx.Client, name: str, path: Path, collection_type: str) -> str:
    body = {"name": name, "paths": [str(path)], "collectionType": collection_type, "realtimeMonitor": False}
    created = client.post("/libraries", json=body)
    assert created.status_code == 201, created.text
    library_id: str = created.json()["id"]
    wait_for_scan(client, library_id)
    return library_id


def make_media(root: Path, media: MediaFactory) -> Path:
    movie = root / "Movies" / "Arrival (2016)"
    media.video(movie / "Arrival (2016).mkv", VideoSpec(subtitle=True))
    MediaFactory.image(movie / "poster.jpg")
    MediaFactory.text(movie / "Arrival (2016).en.srt", "1\n00:00:00,000 --> 00:00:00,900\nHello\n")
    season = root / "Shows" / "Severance" / "Season 1"
    for number in (1, 2, 3):
        media.video(season / f"Severance S01E0{number}.mkv")
    MediaFactory.image(root / "Shows" / "Severance" / "poster.jpg", color="teal")
    return root


async def add_members(database_url: str, library_ids: tuple[str, ...]) -> None:
    async with open_store(database_url) as store:
        await add_user(store, "Ann", is_admin=False, password=PASSWORD)
        await update_member(store, "Ann", MemberChanges(libraries=library_ids))
        await add_user(store, "Root", is_admin=True, password=ADMIN_PASSWORD)
        await add_user(store, "Bob", is_admin=False, password=PASSWORD)
        await update_member(store, "Bob", MemberChanges(hidden=True))


def wait_for_scan(client: httpx.Client, library_id: str) -> None:
    deadline = time.monotonic() + SCAN_TIMEOUT_S
    while time.monotonic() < deadline:
        status = next(s for s in client.get("/scans/status").json() if s["libraryId"] == library_id)
        if status["state"] in ("completed", "failed", "cancelled") and not status.get("probePending"):
            return
        time.sleep(0.05)
    raise AssertionError("the scan did not finish")
