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
