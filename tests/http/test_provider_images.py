"""Provider images over a real socket (both backends): served from the image store like local ones.

apply_match fetches a poster from a local HTTP server into the server's
data directory; GET /images/items/{id} serves it with its tag as ETag, 304
on a match, renditions; a provider row pointing anywhere else in the data
directory (or a local row pointing into the image store) stays refused;
an image from another port of the provider's host is never fetched, so
never served. The tests share a server per backend: each scrapes a film of
its own and points only its rows elsewhere.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.actors.scrape.apply import ApplyDeps, ApplyRequest, apply_match
from reelhouse.actors.scrape.download_slots import DownloadSlots
from reelhouse.media.local_images import image_tag
from reelhouse.media.provider_metadata import ProviderImage, ProviderItem
from reelhouse.storage import Store, open_store

from ..actors.scrape.conftest import origins
from ..actors.scrape.image_server import image_bytes, serve_files
from ..catalog_factory import CatalogFactory
from ..tls import shared_tls_context
from .conftest import RunningServer
from .shared_server import backend, server, shared_server  # noqa: F401  (fixtures)

POSTER = image_bytes((120, 180), "JPEG")
SECRET = image_bytes((30, 30), "PNG", (255, 0, 0))
LIMIT_S = 20


@dataclass
class Scraped:
    api: httpx.AsyncClient
    store: Store
    movie: str
    data_dir: Path
    deps: ApplyDeps


@pytest.fixture
async def scraped(server: RunningServer, nursery: trio.Nursery) -> AsyncIterator[Scraped]:
    files = await nursery.start(serve_files, {"/poster.jpg": (200, "image/jpeg", POSTER)})
    async with open_store(server.database_url) as store, httpx.AsyncClient(verify=shared_tls_context()) as http, server.client() as api:
        cat = CatalogFactory(store)
        library = cat.library("Films", "movies")
        movie = cat.movie(library, "arrival")
        await cat.flush()
        deps = ApplyDeps(store, server.data_dir, http, DownloadSlots(2), provider_origins=origins(files.base))
        answer = ProviderItem("329865", name="Arrival", images=(ProviderImage("primary", files.url("/poster.jpg")),))
        with trio.fail_after(LIMIT_S):
            result = await apply_match(deps, ApplyRequest(movie, "tmdb", answer, "missing", False, "scraped"))
        assert result.images_added == 1
        yield Scraped(api, store, movie, server.data_dir, deps)


async def _get(scraped: Scraped, headers: dict[str, str] | None = None, **params: str) -> httpx.Response:
    with trio.fail_after(LIMIT_S):
        return await scraped.api.get(f"/images/items/{scraped.movie}", params=params, headers=headers or {})


async def test_a_provider_image_is_served_with_its_tag_as_etag_and_304(scraped: Scraped) -> None:
    response = await _get(scraped)
    tag = image_tag(POSTER)
    assert response.status_code == 200, response.text
    assert (response.content, response.headers["content-type"]) == (POSTER, "image/jpeg")
    assert response.headers["etag"] == f'"{tag}"' and response.headers["last-modified"]
    again = await _get(scraped, {"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304 and again.headers["etag"] == f'"{tag}"'
    pinned = await _get(scraped, tag=tag)
    assert pinned.headers["cache-control"] == "public, max-age=31536000, immutable"


async def test_a_provider_image_renders_like_a_local_one(scraped: Scraped) -> None:
    response = await _get(scraped, maxWidth="40")
    assert response.status_code == 200 and response.headers["content-type"] == "image/jpeg"
    assert response.headers["etag"].startswith(f'"{image_tag(POSTER)}')


async def _point_at(scraped: Scraped, path: Path, source: str) -> None:
    await scraped.store.execute(
        "UPDATE images SET path = ?, source = ? WHERE item_id = ? AND kind = 'primary'", (str(path), source, scraped.movie)
    )


async def test_a_provider_row_pointing_elsewhere_in_the_data_dir_is_refused(scraped: Scraped) -> None:
    secret = scraped.data_dir / "secret.jpg"
    secret.write_bytes(POSTER)
    await _point_at(scraped, secret, "provider")
    response = await _get(scraped)
    assert response.status_code == 404 and POSTER not in response.content


async def test_a_link_in_the_image_store_leading_out_of_it_is_refused(scraped: Scraped) -> None:
    secret = scraped.data_dir / "secret.jpg"
    secret.write_bytes(POSTER)
    link = scraped.data_dir / "metadata" / scraped.movie / "primary-9-link.jpg"
    link.symlink_to(secret)
    await _point_at(scraped, link, "provider")
    assert (await _get(scraped)).status_code == 404


async def test_a_local_row_pointing_into_the_image_store_is_refused(scraped: Scraped) -> None:
    stored = next((scraped.data_dir / "metadata" / scraped.movie).iterdir())
    await _point_at(scraped, stored, "local")
    assert (await _get(scraped)).status_code == 404


async def test_a_poster_from_another_port_of_the_providers_host_is_never_fetched_nor_served(
    scraped: Scraped, nursery: trio.Nursery
) -> None:
    other = await nursery.start(serve_files, {"/secret.jpg": (200, "image/jpeg", SECRET)})
    provider = await nursery.start(serve_files, {"/poster.jpg": (302, other.url("/secret.jpg"), b"")})
    deps = replace(scraped.deps, provider_origins=origins(provider.base))
    for url in (provider.url("/poster.jpg"), other.url("/secret.jpg")):
        answer = ProviderItem("329865", name="Arrival", images=(ProviderImage("primary", url),))
        with trio.fail_after(LIMIT_S):
            result = await apply_match(deps, ApplyRequest(scraped.movie, "tmdb", answer, "missing", True, "scraped"))
        assert (result.images_added, result.images_failed) == (0, 1)
    response = await _get(scraped)
    assert response.status_code == 200 and response.content == POSTER and SECRET not in response.content
    assert other.hits["/secret.jpg"] == 0
