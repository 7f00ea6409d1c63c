"""Renditions of GET /images/items/{id} over a real socket: sizes, formats, the time limit, the cache."""

from __future__ import annotations

import time
from typing import Any

import pytest

from reelhouse.http import file_body
from reelhouse.http import image_service as image_service_module

from .image_server import (  # noqa: F401 (fixtures)
    Api,
    Refusing,
    ServerFactory,
    api,
    assert_error,
    decode,
    refusing,
    shared_images,
    start,
    write_image,
    write_noise,
)

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
async def test_a_size_out_of_range_is_field_invalid_naming_it(refusing: Refusing, name: str, value: str) -> None:
    assert_error(await refusing.get(**{name: value}), 400, "field_invalid", name)


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

    monkeypatch.setattr(image_service_module, "RENDER_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(image_service_module, "render", slow_render)
    response = await api.get(maxWidth="70")
    assert_error(response, 503, "service_unavailable")
    assert response.headers["retry-after"] == str(file_body.RETRY_AFTER_SECONDS)


# -- the rendition cache ----------------------------------------------------------------------


async def test_a_cached_rendition_is_stored_on_disk_and_served_without_rendering_again(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await api.get(maxWidth="120")
    (cached,) = api.cached_files()
    assert cached.read_bytes() == first.content

    def no_render(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("rendered again")

    monkeypatch.setattr(image_service_module, "render", no_render)
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
