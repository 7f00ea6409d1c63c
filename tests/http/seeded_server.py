"""A live server holding one scanned library with one movie and its poster, per test module.

Shared by the property tests that fuzz every documented operation
(test_schemathesis.py, test_text_fuzz.py): both need the app's OpenAPI
document, a server per backend, and the ids of things that exist on it.
Import the fixtures (``backend``, ``served``, ``seeded_ids``) into the test
module.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from reelhouse.http import create_app

from ..conftest import BACKENDS
from ..media_factory import MediaFactory
from ..tls import shared_tls_context
from .live_server import LiveServer, live_server, module_database

REQUEST_TIMEOUT_S = 15.0
SCAN_TIMEOUT_S = 60.0


def openapi_document() -> dict[str, Any]:
    """The app's OpenAPI document (building the routes needs no context)."""
    app = create_app(SimpleNamespace(version="test"))  # type: ignore[arg-type]
    return app.extensions["QUART_SCHEMA"].openapi_provider.schema()  # type: ignore[no-any-return]


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def served(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp(f"served-{backend}")
    with module_database(backend, root) as url, live_server(url, root / "data") as server:
        yield server


@pytest.fixture(scope="module")
def seeded_ids(served: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Path parameter -> the id of something that exists on the server (library, movie, scan job)."""
    media = tmp_path_factory.mktemp("seeded-media")
    movie = media / "Arrival (2016)"
    movie.mkdir()
    (movie / "Arrival (2016).mkv").write_bytes(b"not really a video")  # indexed; its probe fails
    MediaFactory.image(movie / "poster.jpg")
    with httpx.Client(verify=shared_tls_context(), base_url=served.api_url, headers=served.auth, timeout=REQUEST_TIMEOUT_S) as client:
        body = {"name": "Films", "paths": [str(media)], "collectionType": "movies"}
        created = client.post("/libraries", json=body)
        assert created.status_code == 201, created.text
        library_id = created.json()["id"]
        _wait_for_scan(client, library_id)
        items = client.get("/items", params={"libraryId": library_id}).json()["items"]
    assert items, "the seeded movie was not indexed"
    return {"library_id": library_id, "item_id": items[0]["id"], "job_id": f"scan:{library_id}"}


def _wait_for_scan(client: httpx.Client, library_id: str) -> None:
    deadline = time.monotonic() + SCAN_TIMEOUT_S
    while time.monotonic() < deadline:
        status = next(s for s in client.get("/scans/status").json() if s["libraryId"] == library_id)
        if status["state"] in ("completed", "failed", "cancelled"):
            return
        time.sleep(0.05)
    raise AssertionError("the seeding scan did not finish")
