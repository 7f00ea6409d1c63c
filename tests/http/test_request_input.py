"""Text the stores cannot take is refused at the edge: 400 (or 404 for a path) with the error body, never 500.

Each case once answered 500 on at least one backend (NUL reached an FTS
MATCH or PostgreSQL text; Python's JSON decoder raised RecursionError or
UnicodeDecodeError), so each runs on both. Every request here is refused,
so the module's tests share one server per backend.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import trio

from .conftest import RunningServer
from .shared_server import backend, client, shared_server  # noqa: F401  (fixtures)

LIMIT_S = 20
JSON = {"Content-Type": "application/json"}


async def send(client: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> httpx.Response:
    with trio.fail_after(LIMIT_S):
        return await client.request(method, path, **kwargs)


def assert_error(response: httpx.Response, status: int, code: str, **params: Any) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code
    assert body["message"]
    for name, value in params.items():
        assert body["params"][name] == value


async def test_search_query_holding_nul_is_400_naming_q(client: httpx.AsyncClient) -> None:
    response = await send(client, "GET", "/search", params={"q": "abc\x00"})
    assert_error(response, 400, "field_invalid", field="q")


@pytest.mark.parametrize("name", ["q", "libraryId", "parentId", "nameFrom", "genreId", "personId"])
async def test_item_query_value_holding_nul_is_400_naming_the_parameter(client: httpx.AsyncClient, name: str) -> None:
    response = await send(client, "GET", "/items", params={name: "a\x00b"})
    assert_error(response, 400, "field_invalid", field=name)


async def test_scan_errors_library_id_holding_nul_is_400(client: httpx.AsyncClient) -> None:
    response = await send(client, "GET", "/scans/errors", params={"libraryId": "a\x00"})
    assert_error(response, 400, "field_invalid", field="libraryId")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/items/a%00b"),
        ("GET", "/libraries/a%00b"),
        ("GET", "/images/items/a%00b"),
        ("POST", "/items/a%00b/rescan"),
        ("POST", "/libraries/a%00b/rescrape"),
    ],
)
async def test_path_id_holding_nul_is_404_not_found(client: httpx.AsyncClient, method: str, path: str) -> None:
    assert_error(await send(client, method, path), 404, "not_found")


@pytest.mark.parametrize("path", ["/libraries", "/libraries/x/scan", "/items/x/refresh"])
async def test_json_body_nested_a_thousand_levels_is_400_bad_request(client: httpx.AsyncClient, path: str) -> None:
    body = b"[" * 1000 + b"]" * 1000
    assert_error(await send(client, "POST", path, content=body, headers=JSON), 400, "bad_request")


async def test_json_body_nested_past_the_limit_inside_an_object_is_400(client: httpx.AsyncClient) -> None:
    body = b'{"name": "n", "paths": [], "options": ' + b'{"a": ' * 40 + b"1" + b"}" * 40 + b"}"
    assert_error(await send(client, "POST", "/libraries", content=body, headers=JSON), 400, "bad_request")


@pytest.mark.parametrize(
    "body",
    [b'{"name": "\xff\xfe", "paths": []}', b'{"name": "\\ud800", "paths": []}', b'{"mode": "\xed\xa0\x80"}'],
    ids=["invalid-utf8", "lone-surrogate-escape", "encoded-surrogate"],
)
async def test_json_body_that_is_not_utf8_text_is_400_bad_request(client: httpx.AsyncClient, body: bytes) -> None:
    for path in ("/libraries", "/libraries/x/scan"):
        assert_error(await send(client, "POST", path, content=body, headers=JSON), 400, "bad_request")


async def test_json_string_holding_nul_is_400_naming_the_field(client: httpx.AsyncClient) -> None:
    response = await send(client, "POST", "/libraries", json={"name": "a\x00", "paths": ["/x"]})
    assert_error(response, 400, "field_invalid", field="name")
    response = await send(client, "POST", "/libraries", json={"name": "a", "paths": ["/tmp/a\x00"]})
    assert_error(response, 400, "field_invalid", field="paths")


async def test_body_over_the_limit_is_413_too_large_with_max_bytes(shared_server: RunningServer) -> None:
    async with shared_server.client() as fresh:  # the early answer may spoil the connection for later requests
        response = await send(fresh, "POST", "/libraries", content=b" " * (1024 * 1024 + 1), headers=JSON)
    assert_error(response, 413, "too_large", maxBytes=1024 * 1024)


@pytest.mark.parametrize("name", ["recursive", "includeTotal", "sort", "order", "type", "limit"])
async def test_empty_boolean_enum_or_number_on_items_is_400_not_absent(client: httpx.AsyncClient, name: str) -> None:
    response = await send(client, "GET", f"/items?{name}=")
    assert_error(response, 400, "field_invalid", field=name)


async def test_empty_image_kind_is_400_not_the_default(client: httpx.AsyncClient) -> None:
    assert_error(await send(client, "GET", "/images/items/x?kind="), 400, "field_invalid", field="kind")


@pytest.mark.parametrize("value", ["\u00b2", "1" * 19, "-1", " 1"])
async def test_last_event_id_that_is_not_a_small_decimal_is_400(client: httpx.AsyncClient, value: str) -> None:
    response = await send(client, "GET", "/scans/events", params={"lastEventId": value})
    assert_error(response, 400, "field_invalid", field="Last-Event-ID")
