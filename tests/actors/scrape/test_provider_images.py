"""Which provider image URLs are fetched (UrlRule) and what a redirect may lead to."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.actors.scrape.provider_images import ImageRefused, UrlRule, fetch_and_store, fetch_image
from reelhouse.actors.scrape.providers import setting_origins
from reelhouse.media.remote_targets import Origin

from ...tls import shared_tls_context
from .conftest import origins
from .image_server import image_bytes, serve_files

REFUSED = [
    "file:///etc/passwd", "ftp://example.com/a.jpg", "http://user:pw@example.com/a.jpg", "http:///a.jpg",
    "http://127.0.0.1/a.jpg", "http://[::1]/a.jpg", "http://169.254.169.254/latest/meta-data",
    "http://0.0.0.0/a.jpg", "http://[::ffff:127.0.0.1]/a.jpg", "http://localhost/a.jpg",
]  # fmt: skip


@pytest.mark.parametrize("url", REFUSED)
async def test_a_url_to_a_local_target_or_another_scheme_is_refused(url: str) -> None:
    with pytest.raises(ImageRefused):
        await UrlRule().check(url)


async def test_the_providers_origin_may_be_local_and_a_listed_host_too() -> None:
    await UrlRule(origins("http://127.0.0.1:8080/3")).check("http://127.0.0.1:8080/a.jpg")
    await UrlRule(allowed_hosts=("localhost:8080",)).check("http://localhost:8080/a.jpg")
    await UrlRule(allowed_hosts=("127.0.0.1",)).check("http://127.0.0.1:9090/a.jpg")  # as for remote sources
    with pytest.raises(ImageRefused):
        await UrlRule(allowed_hosts=("localhost:8080",)).check("http://localhost:9090/a.jpg")


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9090/a.jpg", "http://127.0.0.1/a.jpg", "https://127.0.0.1:8080/a.jpg",
    "http://localhost:8080/a.jpg",
])  # fmt: skip
async def test_another_port_scheme_or_name_of_the_providers_host_is_not_trusted(url: str) -> None:
    with pytest.raises(ImageRefused, match="local address"):
        await UrlRule(origins("http://127.0.0.1:8080/3")).check(url)


def test_a_providers_trust_is_the_origin_of_its_url_settings() -> None:
    settings = {"baseUrl": "http://LOCALHOST:8080/3", "apiKey": "http://not-a-secret.example", "mirror": "https://[::1]/x",
                "count": 3, "name": "plain text"}  # fmt: skip
    assert setting_origins(settings) == {
        Origin("http", "localhost", 8080), Origin("http", "not-a-secret.example", 80), Origin("https", "::1", 443)}


async def test_a_poster_redirecting_to_another_port_of_the_providers_host_is_refused(nursery: trio.Nursery) -> None:
    other = await nursery.start(serve_files, {"/secret.jpg": (200, "image/jpeg", image_bytes())})
    provider = await nursery.start(serve_files, {"/poster.jpg": (302, other.url("/secret.jpg"), b"")})
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        with pytest.raises(ImageRefused, match="local address"):
            await fetch_image(client, provider.url("/poster.jpg"), UrlRule(origins(provider.base)), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip
        with pytest.raises(ImageRefused, match="local address"):
            await fetch_image(client, other.url("/secret.jpg"), UrlRule(origins(provider.base)), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip
    assert provider.hits["/poster.jpg"] == 1 and other.hits["/secret.jpg"] == 0


@pytest.mark.parametrize("location", ["file:///etc/passwd", "http://169.254.169.254/latest/meta-data"])
async def test_a_redirect_to_a_refused_target_is_not_followed(nursery: trio.Nursery, location: str) -> None:
    files = await nursery.start(serve_files, {"/a.jpg": (302, location, b"")})
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        with pytest.raises(ImageRefused):
            await fetch_image(client, files.url("/a.jpg"), UrlRule(origins(files.base)), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip


async def test_endless_redirects_end(nursery: trio.Nursery) -> None:
    files = await nursery.start(serve_files, {"/a.jpg": (302, "/a.jpg", b"")})
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        with pytest.raises(ImageRefused, match="redirects"):
            await fetch_image(client, files.url("/a.jpg"), UrlRule(origins(files.base)), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip
    assert files.hits["/a.jpg"] == 4


async def test_a_truncated_image_is_refused(nursery: trio.Nursery) -> None:
    broken = image_bytes((200, 200), "PNG")[:120]
    files = await nursery.start(serve_files, {"/a.png": (200, "image/png", broken)})
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        with pytest.raises(ImageRefused):
            await fetch_image(client, files.url("/a.png"), UrlRule(origins(files.base)), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip


async def test_fetch_and_store_writes_the_checked_image_at_each_place(nursery: trio.Nursery, tmp_path: Path) -> None:
    data = image_bytes((60, 90), "PNG")
    files = await nursery.start(serve_files, {"/a.png": (200, "image/png", data)})
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        image, stored = await fetch_and_store(
            client, files.url("/a.png"), UrlRule(origins(files.base)),
            lambda image: [tmp_path / f"primary-0-{image.tag}.{image.extension}", tmp_path / "still-0.png"],
            max_bytes=1 << 20, threads=trio.CapacityLimiter(1))  # fmt: skip
    assert (image.extension, image.width, image.height) == ("png", 60, 90)
    assert [path.name for path, _mtime in stored] == [f"primary-0-{image.tag}.png", "still-0.png"]
    for path, mtime in stored:
        assert path.read_bytes() == data
        assert mtime == path.stat().st_mtime_ns // 1_000_000


async def test_fetch_and_store_writes_nothing_for_a_refused_image(nursery: trio.Nursery, tmp_path: Path) -> None:
    files = await nursery.start(serve_files, {"/a.png": (200, "image/png", image_bytes((200, 200), "PNG")[:120])})
    async with httpx.AsyncClient(verify=shared_tls_context()) as client:
        with pytest.raises(ImageRefused):
            await fetch_and_store(client, files.url("/a.png"), UrlRule(origins(files.base)), lambda _: [tmp_path / "a.png"],
                                  max_bytes=1 << 20, threads=trio.CapacityLimiter(1))  # fmt: skip
    assert list(tmp_path.iterdir()) == []
