"""GET /images/items/{id} over a real socket: selection, renditions, caching, HTTP rules.

Real images are written with Pillow into tmp_path and image rows point at
them.  Every rule runs on SQLite; the selection smoke test on both backends.
"""

from __future__ import annotations

import io
import random
import time
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
from werkzeug.http import http_date

from reelhouse.config import load_settings
from reelhouse.http import AppContext, create_app
from reelhouse.http import file_body
from reelhouse.http import image_sources as image_sources_module
from reelhouse.http import images as images_module
from reelhouse.http.images import blueprint
from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from .hung_mount import HungMount

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
        database_url = database_url or f"sqlite:///{base / 'db.sqlite'}"
        settings = load_settings(flags={"data_dir": str(base / "data"), "image_cache_max_bytes": budget}, environ={})
        store = await nursery.start(_open_store, database_url)
        _record, key = await create_api_key(store, "tests")
        app = create_app(AppContext(settings, store, "dev", "sid", datetime.now(UTC), actors=None))
        if blueprint.name not in app.blueprints:
            app.register_blueprint(blueprint, url_prefix="/api/v1")
        config = HypercornConfig()
        config.bind = ["127.0.0.1:0"]
        shutdown = trio.Event()
        shutdowns.append(shutdown)
        binds = await nursery.start(partial(hypercorn_serve, app, config, shutdown_trigger=shutdown.wait))
        client = httpx.AsyncClient(base_url=f"{binds[0]}/api/v1", headers={"Authorization": f"Bearer {key}"})
        nursery.start_soon(_close_on, shutdown, client)
        api = Api(client, store, base / "data", base / "media")
        await _fill(api)
        return api

    yield factory
    for shutdown in shutdowns:
        shutdown.set()


async def _open_store(database_url: str, task_status: trio.TaskStatus[Store]) -> None:
    async with open_store(database_url) as store:
        await migrate(store)
        task_status.started(store)
        await trio.sleep_forever()


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


# -- selection and originals -------------------------------------------------------


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"], indirect=True)
async def test_the_primary_image_is_served_as_stored_by_default(start: ServerFactory, database_url: str) -> None:
    api = await start(database_url=database_url)
    response = await api.get()
    assert response.status_code == 200
    assert response.content == (api.media / "poster.jpg").read_bytes()
    assert response.headers["content-type"] == "image/jpeg"
    assert response.headers["content-length"] == str(len(response.content))
    assert "vary" not in response.headers


async def test_kind_and_index_pick_the_image_served_with_its_own_type(api: Api) -> None:
    png = await api.get(kind="backdrop")
    webp = await api.get(kind="backdrop", index="1")
    assert (png.headers["content-type"], png.content) == ("image/png", (api.media / "fanart.png").read_bytes())
    assert (webp.headers["content-type"], decode(webp).size) == ("image/webp", (320, 180))


@pytest.mark.parametrize(("name", "value"), [("kind", "poster"), ("index", "-1"), ("index", "x"), ("index", "10001")])
async def test_an_unknown_kind_or_bad_index_is_field_invalid(api: Api, name: str, value: str) -> None:
    assert_error(await api.get(**{name: value}), 400, "field_invalid", name)


async def test_every_image_response_has_etag_last_modified_and_accept_ranges(api: Api) -> None:
    modified = datetime.fromtimestamp((api.media / "poster.jpg").stat().st_mtime, UTC)
    for response in (await api.get(), await api.get(maxWidth="50")):
        assert response.headers["etag"].startswith(f'"{POSTER_TAG}')
        assert response.headers["last-modified"] == http_date(modified)
        assert response.headers["accept-ranges"] == "bytes"
    original, rendition = (await api.get()).headers["etag"], (await api.get(maxWidth="50")).headers["etag"]
    assert original == f'"{POSTER_TAG}"' and rendition != original


async def test_an_image_replaced_in_the_catalogue_is_served_new_on_the_next_request(api: Api) -> None:
    """Regression guard for the remembered sources: a catalogue write is seen at once."""
    assert (await api.get(maxWidth="50")).status_code == 200
    first = await api.get()
    assert first.content == (api.media / "poster.jpg").read_bytes()
    replacement = write_image(api.media / "replacement.png", (60, 90), "PNG", color=(10, 200, 10))
    await api.add_image("primary", 0, replacement, "replacementtag")
    second = await api.get()
    assert (second.content, second.headers["etag"]) == (replacement.read_bytes(), '"replacementtag"')
    rendition = await api.get(maxWidth="50")
    assert rendition.headers["etag"].startswith('"replacementtag-') and decode(rendition).getpixel((5, 5))[1] > 150


async def test_an_original_rewritten_on_disk_behind_the_catalogue_is_served_whole(api: Api) -> None:
    """Regression guard: a remembered size must not cut a grown file short (or pad a shrunk one)."""
    poster = api.media / "poster.jpg"
    assert (await api.get()).content == poster.read_bytes()
    write_image(poster, (400, 600), "JPEG", color=(10, 10, 200))  # no rescan: the catalogue is unchanged
    grown = await api.get()
    assert grown.content == poster.read_bytes()
    assert grown.headers["content-length"] == str(poster.stat().st_size)


async def test_an_original_that_keeps_changing_while_read_is_503_with_the_error_body(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looked up anew once; a second change answers 503 with Retry-After, never a wrong length."""
    opened: list[Path] = []

    def always_changed(self: Any, inspect: Any, *, with_body: bool = True) -> tuple[str, bytes]:
        opened.append(self.path)
        raise image_sources_module.SourceChanged()

    monkeypatch.setattr(file_body.FileRange, "open", always_changed)
    response = await api.get()
    assert_error(response, 503, "service_unavailable")
    assert response.headers["retry-after"] == str(images_module.RETRY_AFTER_SECONDS)
    assert len(opened) == 2


# -- renditions ------------------------------------------------------------------------


async def test_max_sizes_scale_down_keeping_aspect(api: Api) -> None:
    assert decode(await api.get(maxWidth="100")).size == (100, 150)
    assert decode(await api.get(maxHeight="60")).size == (40, 60)
    assert decode(await api.get(maxWidth="100", maxHeight="100")).size == (67, 100)
    assert decode(await api.get(maxWidth="5000")).size == (400, 600)  # never upscaled


async def test_fill_sizes_scale_and_crop_to_exactly_that_size(api: Api) -> None:
    assert decode(await api.get(fillWidth="100", fillHeight="100")).size == (100, 100)
    assert decode(await api.get(kind="backdrop", fillWidth="90", fillHeight="160")).size == (90, 160)


async def test_renditions_are_jpeg_unless_accept_allows_webp_and_vary_on_accept(api: Api) -> None:
    jpeg = await api.get(maxWidth="80")
    webp = await api.get(maxWidth="80", headers={"Accept": "image/avif,image/webp,*/*"})
    refused = await api.get(maxWidth="80", headers={"Accept": "image/webp;q=0, */*"})
    assert (jpeg.headers["content-type"], decode(jpeg).format) == ("image/jpeg", "JPEG")
    assert (webp.headers["content-type"], decode(webp).format) == ("image/webp", "WEBP")
    assert refused.headers["content-type"] == "image/jpeg"
    assert all(r.headers["vary"] == "Accept" for r in (jpeg, webp, refused))
    assert jpeg.headers["etag"] != webp.headers["etag"]


@pytest.mark.parametrize("name", ["maxWidth", "maxHeight", "fillWidth", "fillHeight"])
@pytest.mark.parametrize("value", ["0", "-3", "10001", "wide"])
async def test_a_size_out_of_range_is_field_invalid_naming_it(api: Api, name: str, value: str) -> None:
    assert_error(await api.get(**{name: value}), 400, "field_invalid", name)


async def test_a_broken_image_file_is_an_error_body_when_resized_and_bytes_when_not(api: Api) -> None:
    broken = api.media / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff this is not really a jpeg")
    await api.add_image("thumb", 0, broken, "broken0")
    assert_error(await api.get(kind="thumb", maxWidth="50"), 500, "internal_error")
    as_is = await api.get(kind="thumb")
    assert (as_is.status_code, as_is.content) == (200, broken.read_bytes())


async def test_rendering_past_its_time_limit_is_503_not_a_hung_request(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow_render(*args: Any, **kwargs: Any) -> None:
        time.sleep(1.0)

    monkeypatch.setattr(images_module, "RENDER_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(images_module, "render", slow_render)
    response = await api.get(maxWidth="70")
    assert_error(response, 503, "service_unavailable")
    assert response.headers["retry-after"] == str(images_module.RETRY_AFTER_SECONDS)


# -- tags and cache headers -------------------------------------------------------------


async def test_the_current_tag_makes_the_response_immutable(api: Api) -> None:
    for params in ({"tag": POSTER_TAG}, {"tag": POSTER_TAG, "maxWidth": "90"}):
        assert (await api.get(**params)).headers["cache-control"] == "public, max-age=31536000, immutable"


async def test_a_stale_tag_or_no_tag_serves_the_current_image_to_be_revalidated(api: Api) -> None:
    stale = await api.get(tag="0000000000000000")
    untagged = await api.get()
    assert stale.status_code == 200 and stale.content == untagged.content
    assert stale.headers["cache-control"] == untagged.headers["cache-control"] == "no-cache"


# -- conditional requests ---------------------------------------------------------------


@pytest.mark.parametrize("params", [{}, {"maxWidth": "64"}])
async def test_if_none_match_and_if_modified_since_give_304(api: Api, params: dict[str, str]) -> None:
    first = await api.get(**params)
    by_tag = await api.get(headers={"If-None-Match": first.headers["etag"]}, **params)
    by_date = await api.get(headers={"If-Modified-Since": first.headers["last-modified"]}, **params)
    for response in (by_tag, by_date):
        assert response.status_code == 304 and response.content == b""
        assert response.headers["etag"] == first.headers["etag"]
        assert response.headers["accept-ranges"] == "bytes" and "last-modified" in response.headers


async def test_a_304_never_renders(api: Api) -> None:
    etag = f'"{POSTER_TAG}-77-0-0-0-jpeg"'
    response = await api.get(maxWidth="77", headers={"If-None-Match": etag})
    assert response.status_code == 304 and api.cached_files() == []


@pytest.mark.parametrize("params", [{}, {"maxWidth": "64"}])
async def test_if_match_and_if_unmodified_since_failures_give_412(api: Api, params: dict[str, str]) -> None:
    wrong_tag = await api.get(headers={"If-Match": '"something-else"'}, **params)
    too_old = await api.get(headers={"If-Unmodified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"}, **params)
    for response in (wrong_tag, too_old):
        assert_error(response, 412, "bad_request")
        assert "etag" in response.headers and response.headers["accept-ranges"] == "bytes"
    current = await api.get(**params)
    assert (await api.get(headers={"If-Match": current.headers["etag"]}, **params)).status_code == 200


# -- ranges --------------------------------------------------------------------------------


@pytest.mark.parametrize("params", [{}, {"maxWidth": "64"}])
async def test_a_single_range_gives_206_with_content_range(api: Api, params: dict[str, str]) -> None:
    whole = (await api.get(**params)).content
    part = await api.get(headers={"Range": "bytes=10-29"}, **params)
    assert part.status_code == 206 and part.content == whole[10:30]
    assert part.headers["content-range"] == f"bytes 10-29/{len(whole)}"
    tail = await api.get(headers={"Range": "bytes=-5"}, **params)
    assert tail.content == whole[-5:]


async def test_a_stored_file_of_many_chunks_is_served_whole_and_in_ranges_across_them(api: Api) -> None:
    chunk = file_body.READ_CHUNK_BYTES
    stored = b"\xff\xd8\xff" + random.Random(7).randbytes(3 * chunk)  # JPEG magic, then noise
    path = api.media / "big-thumb.jpg"
    path.write_bytes(stored)
    await api.add_image("thumb", 0, path, "bigthumb")
    whole = await api.get(kind="thumb")
    assert whole.status_code == 200 and whole.content == stored
    assert whole.headers["content-type"] == "image/jpeg"
    first, last = chunk - 10, 2 * chunk + 10  # starts in the first chunk, ends in the third
    part = await api.get(kind="thumb", headers={"Range": f"bytes={first}-{last}"})
    assert part.status_code == 206 and part.content == stored[first : last + 1]
    assert part.headers["content-type"] == "image/jpeg"  # sniffed from the file's head, not the range's


@pytest.fixture
def hung_mount(monkeypatch: pytest.MonkeyPatch) -> Iterator[HungMount]:
    monkeypatch.setattr(image_sources_module, "SOURCE_TIMEOUT_SECONDS", 0.2)
    mount = HungMount()
    yield mount
    mount.release()  # the abandoned threads finish before the server closes its pool


@pytest.mark.parametrize("hung", ["_stat", "open"])
async def test_a_stored_image_on_a_hung_mount_is_503_not_a_hung_request(
    api: Api, hung_mount: HungMount, monkeypatch: pytest.MonkeyPatch, hung: str
) -> None:
    if hung == "_stat":
        monkeypatch.setattr(image_sources_module, "stat_confined", hung_mount.hang(image_sources_module.stat_confined))
    else:
        monkeypatch.setattr(file_body.FileRange, "open", hung_mount.hang(file_body.FileRange.open))
    response = await api.get()
    assert_error(response, 503, "service_unavailable")
    assert response.headers["retry-after"] == str(images_module.RETRY_AFTER_SECONDS)
    if hung == "_stat":  # every image request starts with it, renditions too
        assert_error(await api.get(maxWidth="50"), 503, "service_unavailable")


async def test_a_mount_hanging_mid_file_cuts_the_response_short(
    api: Api, hung_mount: HungMount, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = b"\xff\xd8\xff" + random.Random(7).randbytes(3 * file_body.READ_CHUNK_BYTES)
    path = api.media / "big-thumb.jpg"
    path.write_bytes(stored)
    await api.add_image("thumb", 0, path, "bigthumb")
    monkeypatch.setattr(file_body.FileRange, "read", hung_mount.hang(file_body.FileRange.read, after=1))
    with pytest.raises(httpx.RemoteProtocolError):  # fewer bytes than Content-Length, then the end
        await api.get(kind="thumb")
    hung_mount.release()
    assert (await api.get(kind="thumb")).content == stored  # the file threads still serve


async def test_an_unsatisfiable_range_gives_416_with_the_length(api: Api) -> None:
    size = (api.media / "poster.jpg").stat().st_size
    response = await api.get(headers={"Range": f"bytes={size}-"})
    assert_error(response, 416, "bad_request")
    assert response.headers["content-range"] == f"bytes */{size}"


async def test_if_range_serves_the_range_only_while_the_representation_matches(api: Api) -> None:
    first = await api.get()
    matching = await api.get(headers={"Range": "bytes=0-3", "If-Range": first.headers["etag"]})
    by_date = await api.get(headers={"Range": "bytes=0-3", "If-Range": first.headers["last-modified"]})
    changed = await api.get(headers={"Range": "bytes=0-3", "If-Range": '"an-older-version"'})
    assert (matching.status_code, matching.content) == (206, first.content[:4])
    assert by_date.status_code == 206
    assert (changed.status_code, changed.content) == (200, first.content)


# -- not found ------------------------------------------------------------------------------


async def test_unknown_item_missing_image_and_vanished_file_are_404(api: Api) -> None:
    assert_error(await api.get("/images/items/nope"), 404, "not_found")
    assert_error(await api.get(kind="logo"), 404, "not_found")
    assert_error(await api.get(kind="backdrop", index="7"), 404, "not_found")
    (api.media / "poster.jpg").unlink()
    assert_error(await api.get(), 404, "not_found")
    assert_error(await api.get(maxWidth="40"), 404, "not_found")


# -- the rendition cache ----------------------------------------------------------------------


async def test_a_cached_rendition_is_stored_on_disk_and_served_without_rendering_again(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await api.get(maxWidth="120")
    (cached,) = api.cached_files()
    assert cached.read_bytes() == first.content

    def no_render(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("rendered again")

    monkeypatch.setattr(images_module, "render", no_render)
    assert (await api.get(maxWidth="120")).content == first.content
    monkeypatch.undo()
    await api.get(maxWidth="120", headers={"Accept": "image/webp"})
    assert len(api.cached_files()) == 2  # another format, another rendition


async def test_a_changed_image_never_meets_its_old_rendition(api: Api) -> None:
    old = await api.get(maxWidth="100")
    write_image(api.media / "poster2.jpg", (300, 300), "JPEG", color=(10, 200, 10))
    await api.add_image("primary", 0, api.media / "poster2.jpg", "ffffffffffffffff")
    new = await api.get(maxWidth="100")
    assert decode(old).size == (100, 150) and decode(new).size == (100, 100)
    assert new.headers["etag"] != old.headers["etag"] and len(api.cached_files()) == 2


async def test_the_cache_evicts_least_recently_used_beyond_its_budget(start: ServerFactory) -> None:
    probe = await start()
    size = {width: len((await probe.get(maxWidth=str(width))).content) for width in (100, 150, 200, 250)}
    assert size[100] < size[150] < size[200] < size[250]
    api = await start(budget=size[100] + size[200] + size[250])
    for width in (100, 150, 200):
        await api.get(maxWidth=str(width))
    assert len(api.cached_files()) == 3
    await api.get(maxWidth="100")  # a hit: 100 is now the most recently used, 150 the least
    await api.get(maxWidth="250")  # over budget until 150 goes
    remaining = sorted(path.stat().st_size for path in api.cached_files())
    assert remaining == [size[100], size[200], size[250]]


async def test_a_zero_budget_disables_the_cache(start: ServerFactory) -> None:
    api = await start(budget=0)
    assert (await api.get(maxWidth="50")).status_code == 200
    assert api.cached_files() == []


async def test_head_gives_the_headers_without_the_body(api: Api) -> None:
    with trio.fail_after(LIMIT_S):
        response = await api.client.head(URL, params={"maxWidth": "90"})
    assert response.status_code == 200 and response.content == b""
    assert int(response.headers["content-length"]) > 0 and response.headers["etag"]


async def test_head_of_a_stored_image_gives_its_type_and_length_without_the_body(api: Api) -> None:
    size = (api.media / "fanart.png").stat().st_size
    with trio.fail_after(LIMIT_S):
        response = await api.client.head(URL, params={"kind": "backdrop"})
    assert response.status_code == 200 and response.content == b""
    assert response.headers["content-type"] == "image/png"
    assert int(response.headers["content-length"]) == size


# -- containment and sniffing (issue 12, item 1) ------------------------------------------------


async def test_non_image_poster_is_not_served(api: Api) -> None:
    """A catalogued image whose file is no image (whatever its name) is 404, never its bytes."""
    text = api.media / "notes.jpg"
    text.write_bytes(b"root:$6$secret:19000:0:99999:7:::\n")
    await api.add_image("logo", 0, text, "notes0")
    for response in (await api.get(kind="logo"), await api.get(kind="logo", maxWidth="50")):
        assert_error(response, 404, "not_found")
        assert b"secret" not in response.content
    with trio.fail_after(LIMIT_S):
        head = await api.client.head(URL, params={"kind": "logo"})
    assert head.status_code == 404


async def test_image_symlinked_to_secret_is_not_served(api: Api, tmp_path: Path) -> None:
    """A catalogued path that resolves outside the library's roots is 404, even a real image."""
    outside = write_image(tmp_path / "private.jpg", (50, 50), "JPEG", color=(1, 2, 3))
    link = api.media / "linked.jpg"
    link.symlink_to(outside)
    await api.add_image("banner", 0, link, "linked0")
    await api.add_image("art", 0, outside, "outside0")  # not even through a link
    for kind in ("banner", "art"):
        for response in (await api.get(kind=kind), await api.get(kind=kind, maxWidth="20")):
            assert_error(response, 404, "not_found")
            assert outside.read_bytes() not in response.content
