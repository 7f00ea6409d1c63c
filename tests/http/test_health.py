"""GET /health and GET /health/ready: no key, no details, 503 with Retry-After when not ready.

The two tests of a real server only read: they share one per backend.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import httpx
import pytest
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve

from reelhouse.config import load_settings
from reelhouse.http import AppContext, create_app
from reelhouse.storage import StoreUnavailable, migrate, open_store

from ..tls import shared_tls_context
from .conftest import RunningServer
from .shared_server import backend, server, shared_server  # noqa: F401  (fixtures)


async def test_liveness_and_readiness_answer_without_a_key_and_say_nothing_more(server: RunningServer) -> None:
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url) as anonymous:
        with trio.fail_after(20):
            live = await anonymous.get("/health")
            ready = await anonymous.get("/health/ready")
            api = await anonymous.get("/api/v1/system/status")
    assert (live.status_code, live.text) == (200, "ok\n")
    assert (ready.status_code, ready.text) == (200, "ready\n")
    assert api.status_code == 401  # the probes open nothing else
    for response in (live, ready):
        assert response.headers["Content-Type"].startswith("text/plain")
        assert response.headers["Cache-Control"] == "no-store"


async def test_the_probes_are_not_in_the_api_description(server: RunningServer) -> None:
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url) as anonymous:
        with trio.fail_after(20):
            document = (await anonymous.get("/api/v1/openapi.json")).json()
    assert not any(path.startswith("/health") for path in document["paths"])


@dataclass
class FakeTree:
    """The actor tree as readiness sees it."""

    up: bool = True

    def running(self) -> bool:
        return self.up


class DownStore:
    """A store whose database does not answer."""

    def __init__(self, store: object) -> None:
        self._store = store

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)

    async def ping(self) -> None:
        raise StoreUnavailable("connection refused")


@dataclass
class Probed:
    client: httpx.AsyncClient
    context: AppContext
    tree: FakeTree


@pytest.fixture
async def probed(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[Probed]:
    settings = load_settings(flags={"data_dir": str(tmp_path)}, environ={})
    async with open_store(f"sqlite:///{tmp_path / 'db.sqlite'}") as store:
        await migrate(store)
        tree = FakeTree()
        context = AppContext(settings, store, "dev", "sid", datetime.now(UTC), tree)  # type: ignore[arg-type]
        config = HypercornConfig()
        config.bind = ["127.0.0.1:0"]
        shutdown = trio.Event()
        async with trio.open_nursery() as http:
            binds = await http.start(partial(hypercorn_serve, create_app(context), config, shutdown_trigger=shutdown.wait))
            async with httpx.AsyncClient(verify=shared_tls_context(), base_url=binds[0]) as client:
                yield Probed(client, context, tree)
            shutdown.set()


async def ready(probed: Probed) -> httpx.Response:
    with trio.fail_after(20):
        return await probed.client.get("/health/ready")


async def test_not_ready_while_the_actor_tree_is_not_up(probed: Probed) -> None:
    probed.tree.up = False
    response = await ready(probed)
    assert (response.status_code, response.text) == (503, "starting\n")
    assert int(response.headers["Retry-After"]) > 0
    probed.tree.up = True
    assert (await ready(probed)).status_code == 200


async def test_not_ready_while_stopping_yet_still_alive(probed: Probed) -> None:
    probed.context.shutting_down.set()
    response = await ready(probed)
    assert (response.status_code, response.text) == (503, "stopping\n")
    assert int(response.headers["Retry-After"]) > 0
    with trio.fail_after(20):
        assert (await probed.client.get("/health")).status_code == 200


async def test_not_ready_when_the_database_does_not_answer_and_no_error_text_leaks(probed: Probed) -> None:
    probed.context.store = DownStore(probed.context.store)  # type: ignore[assignment]
    response = await ready(probed)
    assert (response.status_code, response.text) == (503, "unavailable\n")
    assert "refused" not in response.text
    assert int(response.headers["Retry-After"]) > 0
