"""Which provider image URLs are fetched (UrlRule) and what a redirect may lead to."""

from __future__ import annotations

import httpx
import pytest
import trio

from reelhouse.actors.scrape.provider_images import ImageRefused, UrlRule, fetch_image

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


async def test_a_trusted_host_may_be_local_by_name_or_with_its_port() -> None:
    await UrlRule(frozenset({"127.0.0.1"})).check("http://127.0.0.1:8080/a.jpg")
    await UrlRule(frozenset({"localhost:8080"})).check("http://localhost:8080/a.jpg")
    with pytest.raises(ImageRefused):
        await UrlRule(frozenset({"localhost:8080"})).check("http://localhost:9090/a.jpg")


@pytest.mark.parametrize("location", ["file:///etc/passwd", "http://169.254.169.254/latest/meta-data"])
async def test_a_redirect_to_a_refused_target_is_not_followed(nursery: trio.Nursery, location: str) -> None:
    files = await nursery.start(serve_files, {"/a.jpg": (302, location, b"")})
    async with httpx.AsyncClient() as client:
        with pytest.raises(ImageRefused):
            await fetch_image(client, files.url("/a.jpg"), UrlRule(frozenset({"127.0.0.1"})), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip


async def test_endless_redirects_end(nursery: trio.Nursery) -> None:
    files = await nursery.start(serve_files, {"/a.jpg": (302, "/a.jpg", b"")})
    async with httpx.AsyncClient() as client:
        with pytest.raises(ImageRefused, match="redirects"):
            await fetch_image(client, files.url("/a.jpg"), UrlRule(frozenset({"127.0.0.1"})), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip
    assert files.hits["/a.jpg"] == 4


async def test_a_truncated_image_is_refused(nursery: trio.Nursery) -> None:
    broken = image_bytes((200, 200), "PNG")[:120]
    files = await nursery.start(serve_files, {"/a.png": (200, "image/png", broken)})
    async with httpx.AsyncClient() as client:
        with pytest.raises(ImageRefused):
            await fetch_image(client, files.url("/a.png"), UrlRule(frozenset({"127.0.0.1"})), max_bytes=1 << 20,
                              threads=trio.CapacityLimiter(1))  # fmt: skip
