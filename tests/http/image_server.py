"""A served app with a movie and its images, for the image route's tests (see test_images*.py).

Real images are written with Pillow into tmp_path and image rows point at
them.  :class:`HungMount` stands in for a mount that stopped answering.
"""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
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
from PIL import Image

from reelhouse.config import load_settings
from reelhouse.http import AppContext, create_app
from reelhouse.http import image_sources as image_sources_module
from reelhouse.http.images import blueprint
from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from ..tls import shared_tls_context
from .hung_mount import HungMount
from .shared_server import started_in_thread

LIMIT_S = 20
POSTER_TAG = "a1b2c3d4e5f60718"
URL = "/images/items/movie"


@dataclass
class Api:
    client: httpx.AsyncClient
    store: Store
    data_dir: Path
    media: Path

    async def get(self, path: str = URL, headers: dict[str, str] | None = None, **params: Any) -> httpx.Response:
        with trio.fail_after(LIMIT_S):
            return await self.client.get(path, params=params, headers=headers or {})

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache" / "images"

    def cached_files(self) -> list[Path]:
        if not self.cache_dir.exists():
            return []
        return sorted(p for p in self.cache_dir.rglob("*") if p.is_file())

    async def add_image(self, kind: str, index: int, path: Path, tag: str, item_id: str = "movie") -> None:
        await self.store.execute(
            "INSERT INTO images (item_id, kind, idx, path, tag) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (item_id, kind, idx) DO UPDATE SET path = excluded.path, tag = excluded.tag",
            (item_id, kind, index, str(path), tag),
        )


def write_image(path: Path, size: tuple[int, int], fmt: str, color: tuple[int, int, int] = (200, 30, 30)) -> Path:
    Image.new("RGB", size, color).save(path, fmt)
    return path


def write_noise(path: Path, size: tuple[int, int]) -> Path:
    """A JPEG of fixed pseudo-random pixels: renditions grow with their size, the same every run."""
    pixels = random.Random(7).randbytes(size[0] * size[1] * 3)
    Image.frombytes("RGB", size, pixels).save(path, "JPEG")
    return path


def decode(response: httpx.Response) -> Image.Image:
    return Image.open(io.BytesIO(response.content))


ServerFactory = Callable[..., Awaitable[Api]]


@pytest.fixture
async def start(nursery: trio.Nursery, tmp_path: Path) -> AsyncIterator[ServerFactory]:
    """``await start(database_url=..., budget=...)``: a served app with a movie and images."""
    shutdowns: list[trio.Event] = []

    async def factory(database_url: str | None = None, budget: int = 64 * 1024 * 1024) -> Api:
        base = tmp_path / f"server{len(shutdowns)}"
        base.mkdir()
        shutdown = trio.Event()
        shutdowns.append(shutdown)
        return await serve_images(nursery, base, shutdown, database_url, budget)

    yield factory
    for shutdown in shutdowns:
        shutdown.set()


async def serve_images(
    nursery: trio.Nursery, base: Path, shutdown: trio.Event, database_url: str | None = None,
    budget: int = 64 * 1024 * 1024,
) -> Api:
    """The app with the image routes, a movie and its images, in ``nursery`` until ``shutdown`` is set."""
    database_url = database_url or f"sqlite:///{base / 'db.sqlite'}"
    settings = load_settings(flags={"data_dir": str(base / "data"), "image_cache_max_bytes": budget}, environ={})
    store = await nursery.start(_open_store, database_url, shutdown)
    _record, key = await create_api_key(store, "tests")
    app = create_app(AppContext(settings, store, "dev", "sid", datetime.now(UTC), actors=None))
    if blueprint.name not in app.blueprints:
        app.register_blueprint(blueprint, url_prefix="/api/v1")
    config = HypercornConfig()
    config.bind = ["127.0.0.1:0"]
    binds = await nursery.start(partial(hypercorn_serve, app, config, shutdown_trigger=shutdown.wait))
    client = httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{binds[0]}/api/v1", headers={"Authorization": f"Bearer {key}"})
    nursery.start_soon(_close_on, shutdown, client)
    api = Api(client, store, base / "data", base / "media")
    await _fill(api)
    return api


@dataclass(frozen=True)
class SharedImages:
    """The module's one image app, for requests that are refused: they read and change nothing."""

    url: str
    headers: dict[str, str]
    shutdown: trio.Event


@pytest.fixture(scope="module")
def shared_images(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedImages]:
    base = tmp_path_factory.mktemp("images")
    with started_in_thread(lambda nursery: _shared(nursery, base), lambda shared: shared.shutdown) as shared:
        yield shared


async def _shared(nursery: trio.Nursery, base: Path) -> SharedImages:
    shutdown = trio.Event()
    api = await serve_images(nursery, base, shutdown)
    return SharedImages(str(api.client.base_url), dict(api.client.headers), shutdown)


@dataclass
class Refusing:
    client: httpx.AsyncClient

    async def get(self, path: str = URL, headers: dict[str, str] | None = None, **params: Any) -> httpx.Response:
        with trio.fail_after(LIMIT_S):
            return await self.client.get(path, params=params, headers=headers or {})


@pytest.fixture
async def refusing(shared_images: SharedImages) -> AsyncIterator[Refusing]:
    """A client of the module's shared image app (``shared_images``)."""
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=shared_images.url, headers=shared_images.headers) as client:
        yield Refusing(client)


async def _open_store(database_url: str, shutdown: trio.Event, task_status: trio.TaskStatus[Store]) -> None:
    async with open_store(database_url) as store:
        await migrate(store)
        task_status.started(store)
        await shutdown.wait()


async def _close_on(shutdown: trio.Event, client: httpx.AsyncClient) -> None:
    await shutdown.wait()
    await client.aclose()


async def _fill(api: Api) -> None:
    api.media.mkdir(exist_ok=True)
    await api.store.execute(
        "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES ('lib', 'M', 'movies', 1, 1)"
    )
    await api.store.execute("INSERT INTO library_paths (library_id, path, position) VALUES ('lib', ?, 0)", (str(api.media),))
    await api.store.execute(
        "INSERT INTO items (id, library_id, type, name, sort_name, date_created, date_modified)"
        " VALUES ('movie', 'lib', 'Movie', 'Arrival', 'Arrival', 1, 1)"
    )
    await api.add_image("primary", 0, write_noise(api.media / "poster.jpg", (400, 600)), POSTER_TAG)
    await api.add_image("backdrop", 0, write_image(api.media / "fanart.png", (640, 360), "PNG"), "backdrop0")
    await api.add_image("backdrop", 1, write_image(api.media / "fanart1.webp", (320, 180), "WEBP"), "backdrop1")


@pytest.fixture
async def api(start: ServerFactory) -> Api:
    return await start()


def assert_error(response: httpx.Response, status: int, code: str, field: str | None = None) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code and body["message"]
    if field is not None:
        assert body["params"]["field"] == field


@pytest.fixture
def hung_mount(monkeypatch: pytest.MonkeyPatch) -> Iterator[HungMount]:
    monkeypatch.setattr(image_sources_module, "SOURCE_TIMEOUT_SECONDS", 0.2)
    mount = HungMount()
    yield mount
    mount.release()  # the abandoned threads finish before the server closes its pool
