"""apply_match's world: a store (both backends), a served image folder, deps to apply with."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.actors.scrape.apply import ApplyDeps, ApplyRequest, ApplyResult, apply_match
from reelhouse.actors.scrape.download_slots import DownloadSlots
from reelhouse.media.provider_metadata import ProviderImage, ProviderItem
from reelhouse.media.remote_targets import Origin, url_origin
from reelhouse.storage import Store
from reelhouse.storage._store import as_dict

from ...catalog_factory import CatalogFactory
from ...tls import shared_tls_context
from .image_server import FileServer, image_bytes, serve_files

POSTER = image_bytes((60, 90), "JPEG")
BACKDROP = image_bytes((160, 90), "PNG", (200, 40, 40))
LIMIT_S = 20


@dataclass
class World:
    store: Store
    cat: CatalogFactory
    files: FileServer
    deps: ApplyDeps
    data_dir: Path
    media: Path

    async def apply(self, item_id: str, match: Any, **fields: Any) -> ApplyResult:
        request = ApplyRequest(
            item_id=item_id, provider_id=fields.pop("provider_id", "tmdb"), match=match,
            mode=fields.pop("mode", "missing"), replace_images=fields.pop("replace_images", False),
            scrape_state=fields.pop("scrape_state", "scraped"),
        )  # fmt: skip
        deps = replace(self.deps, **fields) if fields else self.deps
        with trio.fail_after(LIMIT_S):
            return await apply_match(deps, request)

    async def row(self, item_id: str) -> dict[str, Any]:
        row = await self.store.fetch_one("SELECT * FROM items WHERE id = ?", (item_id,))
        assert row is not None
        return dict(as_dict(row))

    async def images(self, item_id: str) -> dict[tuple[str, int], dict[str, Any]]:
        rows = await self.store.fetch_all(
            "SELECT kind, idx, path, tag, width, height, size, source FROM images WHERE item_id = ?", (item_id,)
        )
        return {(r["kind"], r["idx"]): {k: r[k] for k in ("path", "tag", "width", "height", "size", "source")} for r in rows}

    async def library_at(self, library_id: str, root: Path, **options: Any) -> None:
        """Point the library at a real folder, with these options (camelCase)."""
        await self.store.execute("UPDATE library_paths SET path = ? WHERE library_id = ?", (str(root), library_id))
        await self.store.execute("UPDATE libraries SET options = ? WHERE id = ?", (json.dumps(options), library_id))


@pytest.fixture
async def world(store: Store, tmp_path: Path, nursery: trio.Nursery) -> AsyncIterator[World]:
    answers = {
        "/poster.jpg": (200, "image/jpeg", POSTER),
        "/backdrop.png": (200, "image/png", BACKDROP),
        "/page.html": (200, "text/html", b"<html><body>not an image</body></html>"),
        "/moved.jpg": (302, "/poster.jpg", b""),
    }
    files = await nursery.start(serve_files, answers)
    media = tmp_path / "media"
    media.mkdir()
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        deps = ApplyDeps(store, tmp_path / "data", client, DownloadSlots(4), provider_origins=origins(files.base))
        yield World(store, CatalogFactory(store), files, deps, tmp_path / "data", media)


def origins(*urls: str) -> frozenset[Origin]:
    """The origins of ``urls`` (a provider's baseUrl), as ApplyDeps trusts them."""
    found = {url_origin(url) for url in urls}
    assert None not in found
    return frozenset(origin for origin in found if origin is not None)


def movie_answer(files: FileServer | None = None, **fields: Any) -> ProviderItem:
    images = (ProviderImage("primary", files.url("/poster.jpg")),) if files is not None else ()
    base: dict[str, Any] = {
        "provider_item_id": "329865", "name": "Arrival", "overview": "Aliens arrive.", "tagline": "Why are they here?",
        "production_year": 2016, "community_rating": 7.6, "genres": ("Drama", "Science Fiction"),
        "studios": ("FilmNation",), "provider_ids": {"tmdb": "329865", "imdb": "tt2543164"}, "images": images,
    }  # fmt: skip
    base.update(fields)
    return ProviderItem(**base)

