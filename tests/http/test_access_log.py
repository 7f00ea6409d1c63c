"""The access log: one line per request, named after it, with no token, key, id or query in it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.logs import JsonFormatter, OriginFilter

from ..tls import shared_tls_context
from .conftest import start_server
from .jellyfin.surface import PASSWORD, make_shelf, sign_in
from .members import add_member


async def test_one_line_per_request_with_route_status_duration_and_bytes_and_nothing_secret(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="reelhouse.access")
    server = await start_server(nursery, database_url, tmp_path / "data", access_log=True)
    async with server.client() as client:
        with trio.fail_after(20):
            response = await client.get("/libraries/0123456789abcdef", params={"api_key": "query-secret"})
            # The line is written once the last byte left, which may be just after the client read it.
            while not (lines := [r for r in caplog.records if r.name == "reelhouse.access"]):
                await trio.sleep(0.01)
    assert response.status_code == 404
    assert len(lines) == 1
    record = lines[0]
    request_id = response.headers["X-Request-Id"]
    assert record.origin == f"request:{request_id}"  # type: ignore[attr-defined]
    message = record.getMessage()
    assert message.startswith("GET /api/v1/libraries/<library_id> 404 ")
    assert message.endswith(f" {len(response.content)} B")
    shipped = json.loads(JsonFormatter().format(record))
    assert shipped["origin"] == f"request:{request_id}"
    assert shipped["http"] == {"method": "GET", "route": "/api/v1/libraries/<library_id>", "status": 404,
                               "durationMs": shipped["http"]["durationMs"], "bytes": len(response.content),
                               "requestId": request_id}
    assert shipped["http"]["durationMs"] >= 0
    text = message + json.dumps(shipped)
    for secret in (server.key, "query-secret", "0123456789abcdef", "Bearer"):
        assert secret not in text


async def test_a_jellyfin_path_in_any_spelling_is_logged_under_its_route_template(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="reelhouse.access")
    server = await start_server(nursery, database_url, tmp_path / "data", access_log=True)
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url) as client:
        with trio.fail_after(20):
            response = await client.get("/Emby/System/Info/Public")
            while not (lines := [r for r in caplog.records if r.name == "reelhouse.access"]):
                await trio.sleep(0.01)
    assert response.status_code == 200
    assert lines[0].http["route"] == "/system/info/public"  # type: ignore[attr-defined]
    assert lines[0].http["requestId"] is not None  # type: ignore[attr-defined]


async def test_no_access_log_unless_asked(server, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="reelhouse.access")
    async with server.client() as client:
        with trio.fail_after(20):
            await client.get("/libraries")
    assert [r for r in caplog.records if r.name == "reelhouse.access"] == []


def test_a_line_without_an_origin_is_the_servers() -> None:
    record = logging.LogRecord("reelhouse", logging.WARNING, __file__, 1, "disk %s", ("full",), None)
    OriginFilter().filter(record)
    shipped = json.loads(JsonFormatter().format(record))
    assert (shipped["origin"], shipped["level"], shipped["message"]) == ("server", "warning", "disk full")
    assert shipped["time"].endswith("Z")


async def test_no_jellyfin_token_or_signed_tag_reaches_any_log(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A Jellyfin app puts its token in stream URLs (``api_key``) and the server's tags in image and
    subtitle URLs: neither is written by the access log, nor by any other logger."""
    caplog.set_level(logging.DEBUG)
    server = await start_server(nursery, database_url, tmp_path / "data", access_log=True)
    shelf = await make_shelf(server)
    await add_member(server, "Ann", password=PASSWORD, all_libraries=True)
    token = await sign_in(server, "Ann")
    tag = "f" * 32
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url) as client:
        with trio.fail_after(20):
            asked = [
                await client.get(f"/Videos/{shelf.sunny}/stream", params={"static": "true", "api_key": token}),
                await client.get(f"/emby/Items/{shelf.sunny}/Images/Primary", params={"tag": tag, "ApiKey": token}),
                await client.get(f"/Items/{shelf.gore}/Images/Primary", params={"tag": tag}),
                await client.get(f"/Videos/{shelf.sunny}/{shelf.sunny}/Subtitles/3/0/Stream.srt", params={"tag": tag}),
                await client.get("/Items", params={"api_key": token, "Recursive": "true"}),
            ]
            while len([r for r in caplog.records if r.name == "reelhouse.access"]) < len(asked):
                await trio.sleep(0.01)
    assert [a.status_code for a in asked] == [404, 404, 401, 401, 200]
    for record in caplog.records:
        if record.name.startswith(("httpx", "httpcore")):  # the test's own client, not the server
            continue
        text = record.getMessage() + json.dumps(JsonFormatter().format(record))
        assert token not in text and tag not in text, record.name
