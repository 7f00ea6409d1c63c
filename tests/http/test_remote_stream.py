"""The proxy's target check and its pinning to the checked address (no network: IP literals only)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from reelhouse.errors import Forbidden
from reelhouse.http.remote_stream import check_target, pinned_request

from ..tls import shared_tls_context


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(verify=shared_tls_context()) as opened:
        yield opened


async def test_without_a_list_the_checked_address_is_answered() -> None:
    assert await check_target("http://93.184.216.34:8080/film.mkv", []) == "93.184.216.34"


async def test_with_a_list_nothing_is_resolved_or_pinned() -> None:
    assert await check_target("http://127.0.0.1:8080/film.mkv", ["127.0.0.1:8080"]) is None


@pytest.mark.parametrize("url", ["http://127.0.0.1/a.mkv", "http://169.254.169.254/latest", "http://0.0.0.0/x"])
async def test_loopback_link_local_and_unspecified_targets_are_refused_without_a_list(url: str) -> None:
    with pytest.raises(Forbidden):
        await check_target(url, [])


async def test_an_unpinned_request_goes_to_the_url(client: httpx.AsyncClient) -> None:
    request = pinned_request(client, "GET", "http://media.example:8080/a.mkv", {"range": "bytes=0-9"}, None)
    assert str(request.url) == "http://media.example:8080/a.mkv" and request.headers["range"] == "bytes=0-9"


async def test_a_pinned_http_request_connects_to_the_address_and_names_the_host(client: httpx.AsyncClient) -> None:
    request = pinned_request(client, "GET", "http://media.example:8080/a.mkv?t=1", {}, "203.0.113.7")
    assert str(request.url) == "http://203.0.113.7:8080/a.mkv?t=1"
    assert request.headers["host"] == "media.example:8080"
    assert "sni_hostname" not in request.extensions and request.headers["connection"] == "keep-alive"


async def test_a_pinned_https_request_keeps_the_tls_name_and_its_own_connection(client: httpx.AsyncClient) -> None:
    request = pinned_request(client, "GET", "https://media.example/a.mkv", {}, "2001:db8::7")
    assert str(request.url) == "https://[2001:db8::7]/a.mkv"
    assert request.headers["host"] == "media.example"
    assert request.extensions["sni_hostname"] == "media.example" and request.headers["connection"] == "close"
