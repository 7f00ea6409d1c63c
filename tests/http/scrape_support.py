"""Helpers for the scrape queue's API tests: a server with a provider plugin, waiting on items and jobs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import trio

from reelhouse.storage import plugin_catalog
from tests.actors.scrape.providers import make_provider
from tests.fakes.tmdb_api import FakeTmdb
from tests.media_factory import MediaFactory

from .conftest import RunningServer, start_server

WAIT_S = 60.0
POLL_S = 0.1


async def server_with_provider(nursery: trio.Nursery, database_url: str, tmp_path: Path,
                               catalogue: Mapping[str, Any], *, settings: Mapping[str, Any] | None = None,
                               **provider: Any) -> tuple[RunningServer, Path]:
    """A server (with these settings) whose data directory holds the provider plugin ``test``; (server, plugin directory)."""
    data_dir = tmp_path / "data"
    directory = make_provider(plugin_catalog.plugins_dir(data_dir), "test", catalogue, **provider)
    return await start_server(nursery, database_url, data_dir, **(settings or {})), directory


@dataclass
class TmdbServer:
    """A server whose bundled tmdb plugin is configured against the fake TMDB API."""

    server: RunningServer
    fake: FakeTmdb


@asynccontextmanager
async def tmdb_server(nursery: trio.Nursery, database_url: str, tmp_path: Path,
                      fake: FakeTmdb) -> AsyncIterator[TmdbServer]:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    plugin_catalog.update_state(data_dir, "tmdb", settings={"apiKey": fake.api_key, "baseUrl": fake.base_url})
    server = await start_server(nursery, database_url, data_dir)
    yield TmdbServer(server, fake)
    server.shutdown.set()


def films(media: MediaFactory, root: Path, *titles: str) -> Path:
    """``root`` holding a real video per title, each in its own folder (``Title (Year)/Title (Year).mkv``)."""
    for title in titles:
        media.video(root / title / f"{title}.mkv")
    return root


async def job_matching(client: httpx.AsyncClient, job_id: str, **expected: Any) -> dict[str, Any]:
    """The job ``job_id`` of GET /jobs once its fields hold ``expected``."""
    async def probe() -> dict[str, Any] | None:
        response = await client.get("/jobs")
        assert response.status_code == 200, response.text
        jobs = response.json()
        jobs = jobs["items"] if isinstance(jobs, dict) else jobs
        job = next((job for job in jobs if job["id"] == job_id), None)
        return job if job is not None and all(job.get(k) == v for k, v in expected.items()) else None

    return await wait_until(probe, f"the job {job_id} with {expected}")


async def items_by_name(client: httpx.AsyncClient, library_id: str) -> dict[str, dict[str, Any]]:
    response = await client.get("/items", params={"libraryId": library_id, "limit": 200})
    assert response.status_code == 200, response.text
    return {item["name"]: item for item in response.json()["items"]}


async def detail(client: httpx.AsyncClient, item_id: str) -> dict[str, Any]:
    response = await client.get(f"/items/{item_id}")
    assert response.status_code == 200, response.text
    return response.json()


async def scrape_job(client: httpx.AsyncClient, library_id: str) -> dict[str, Any] | None:
    response = await client.get("/jobs")
    assert response.status_code == 200, response.text
    jobs = response.json()
    jobs = jobs["items"] if isinstance(jobs, dict) else jobs
    return next((job for job in jobs if job["id"] == f"scrape:{library_id}"), None)


async def wait_until(probe: Callable[[], Any], what: str) -> Any:
    """Poll ``probe`` (async) until it returns something truthy."""
    with trio.move_on_after(WAIT_S):
        while True:
            value = await probe()
            if value:
                return value
            await trio.sleep(POLL_S)
    raise AssertionError(f"timed out waiting for {what}")


async def wait_for_states(client: httpx.AsyncClient, library_id: str, wanted: Mapping[str, str]) -> dict[str, Any]:
    """Wait until each named item has the scrape state given; the items by name."""

    async def probe() -> dict[str, Any] | None:
        items = await items_by_name(client, library_id)
        done = all(items.get(name, {}).get("scrapeState") == state for name, state in wanted.items())
        return items if done else None

    return await wait_until(probe, f"scrape states {dict(wanted)}")


async def wait_for_job(client: httpx.AsyncClient, library_id: str, **expected: Any) -> dict[str, Any]:
    async def probe() -> dict[str, Any] | None:
        job = await scrape_job(client, library_id)
        return job if job is not None and all(job.get(k) == v for k, v in expected.items()) else None

    return await wait_until(probe, f"the scrape job with {expected}")
