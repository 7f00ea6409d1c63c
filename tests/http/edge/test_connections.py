"""The connection layer over real sockets: keep-alive timeout, the
connection cap, early responses, and the HTTP layer's own error bodies.
Tests whose server keeps no state they change share one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import trio

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ..conftest import RunningServer, start_server
from ..shared_server import shared_server  # noqa: F401  (fixtures)
from .rawhttp import Reader, connect, request

LIMIT_S = 30
LEAK_RUN_CAP_S = 120  # 300 early responses on a loaded machine
LEAK_SETTLE_CAP_S = 30  # for the last closes to land once every client is done
KEEP_ALIVE_S = 0.5


async def _server(nursery: trio.Nursery, database_url: str, tmp_path: Path, **http: object) -> RunningServer:
    return await start_server(nursery, database_url, tmp_path / "data", http=http)


def _auth(server: RunningServer) -> str:
    return f"Authorization: Bearer {server.key}"


async def test_an_idle_keep_alive_connection_is_closed_after_the_keep_alive_timeout(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path, keep_alive_seconds=KEEP_ALIVE_S)
    with trio.fail_after(LIMIT_S):
        stream = await connect(server.base_url)
        reader = Reader(stream)
        await stream.send_all(request("GET", "/api/v1/system/status", _auth(server)))
        assert (await reader.response()).status == 200
        await stream.send_all(request("GET", "/api/v1/system/status", _auth(server)))
        assert (await reader.response()).status == 200  # kept alive between requests
        assert await reader.at_eof()  # then closed once idle past the timeout
    server.shutdown.set()


async def test_a_connection_that_never_completes_a_request_head_is_closed_after_the_timeout(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path, keep_alive_seconds=KEEP_ALIVE_S)
    with trio.fail_after(LIMIT_S):
        stream = await connect(server.base_url)
        await stream.send_all(b"GET /api/v1/system/status HTTP/1.1\r\nHost: te")
        assert await Reader(stream).at_eof()
    server.shutdown.set()


async def test_a_request_in_flight_outlives_the_keep_alive_timeout(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path, keep_alive_seconds=KEEP_ALIVE_S)
    (tmp_path / "films").mkdir()
    body = json.dumps({"name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies",
                       "options": {"remoteAllowedHosts": [], "scansSuspended": True}}).encode()
    with trio.fail_after(LIMIT_S):
        stream = await connect(server.base_url)
        whole = request("POST", "/api/v1/libraries", _auth(server), "Content-Type: application/json", body=body)
        await stream.send_all(whole[:-5])
        await trio.sleep(KEEP_ALIVE_S * 3)  # the body is late, but the request is in flight
        await stream.send_all(whole[-5:])
        response = await Reader(stream).response()
    assert response.status == 201, response.body
    server.shutdown.set()


async def test_connections_beyond_max_connections_are_answered_503_at_once_and_closed(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path, max_connections=2, keep_alive_seconds=60)
    with trio.fail_after(LIMIT_S):
        held = []
        for _ in range(2):
            stream = await connect(server.base_url)
            await stream.send_all(request("GET", "/api/v1/system/status", _auth(server)))
            assert (await Reader(stream).response()).status == 200
            held.append(stream)
        extra = await connect(server.base_url)
        await extra.send_all(request("GET", "/api/v1/system/status", _auth(server)))
        reader = Reader(extra)
        refused = await reader.response()
        assert refused.status == 503
        assert refused.headers["retry-after"] == "1"
        assert refused.json()["code"] == "service_unavailable"
        assert refused.json()["params"] == {"retryAfterSeconds": 1}
        assert await reader.at_eof()
        await held.pop().aclose()  # a slot frees: new connections are served again
        while True:
            stream = await connect(server.base_url)
            await stream.send_all(request("GET", "/api/v1/system/status", _auth(server)))
            if (await Reader(stream).response()).status == 200:
                break
            await trio.sleep(0.05)
    server.shutdown.set()


EARLY = [
    pytest.param("POST", "/api/v1/libraries", False, 401, id="401-without-a-key"),
    pytest.param("PATCH", "/api/v1/system/status", True, 405, id="405-wrong-method"),
    pytest.param("POST", "/api/v1/no-such-route", True, 404, id="404-unknown-route"),
]


async def _early_response_try(server: RunningServer, method: str, path: str, authed: bool) -> tuple[int, str]:
    """Head first; the body (and a next request) only after the answer."""
    body = b"x" * 100_000
    headers = [_auth(server)] if authed else []
    head = request(method, path, *headers, f"Content-Length: {len(body)}")
    stream = await connect(server.base_url)
    try:
        await stream.send_all(head)
        reader = Reader(stream)
        answer = await reader.response()
        try:
            await stream.send_all(body + request("GET", "/api/v1/system/status", _auth(server)))
        except trio.BrokenResourceError:
            pass  # closed already: just as good
        assert await reader.at_eof(), "the connection must close, not hang"
        return answer.status, answer.headers.get("connection", "")
    finally:
        await stream.aclose()


@pytest.mark.parametrize(("method", "path", "authed", "status"), EARLY)
async def test_an_early_response_closes_the_connection_instead_of_hanging(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, method: str, path: str, authed: bool, status: int
) -> None:
    server = await _server(nursery, database_url, tmp_path)
    with trio.fail_after(LIMIT_S):
        answered, connection = await _early_response_try(server, method, path, authed)
    assert answered == status
    assert connection == "close"  # the client knows not to send the next request here
    server.shutdown.set()


async def test_an_early_response_to_a_request_sent_whole_keeps_the_connection(shared_server: RunningServer) -> None:
    """The body already read when the answer goes out: nothing to close for,
    the next request on the connection is answered."""
    with trio.fail_after(LIMIT_S):
        stream = await connect(shared_server.base_url)
        await stream.send_all(
            request("POST", "/api/v1/libraries", "Content-Type: application/json", body=b"{}")
            + request("GET", "/api/v1/system/status", _auth(shared_server))
        )
        reader = Reader(stream)
        first, second = await reader.response(), await reader.response()
    assert first.status == 401 and first.headers.get("connection") != "close"
    assert second.status == 200


def _open_descriptors() -> int:
    return len(os.listdir(f"/proc/{os.getpid()}/fd"))  # the server runs in this process


async def test_many_early_responses_leak_no_descriptor(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path)
    tries = [p.values for p in EARLY] * 100

    async def worker(share: list[tuple[object, ...]]) -> None:
        for method, path, authed, _status in share:
            await _early_response_try(server, str(method), str(path), bool(authed))

    async def run_all(share: list[tuple[object, ...]]) -> None:
        async with trio.open_nursery() as workers:
            for i in range(20):
                workers.start_soon(worker, share[i::20])

    with trio.fail_after(LEAK_RUN_CAP_S):
        await run_all(tries[:60])  # warm up: database connections the server keeps open
        await trio.sleep(0.5)  # the warm-up's last closes land
        before = _open_descriptors()
        await run_all(tries)
    with trio.move_on_after(LEAK_SETTLE_CAP_S):
        while _open_descriptors() > before:  # the last closes are on their way
            await trio.sleep(0.05)
    after = _open_descriptors()
    server.shutdown.set()
    assert after <= before, f"{after - before} descriptors still open {LEAK_SETTLE_CAP_S} s after {len(tries)} early responses"


HEAD_LIMIT = 16 * 1024
BAD_REQUESTS = [
    pytest.param(request("GET", "/api/v1/system/status", "X-Big: " + "a" * 100_000), 431, "too_large", id="headers-over-the-limit"),
    pytest.param(request("GET", "/api/v1/" + "a" * 100_000), 431, "too_large", id="url-over-the-limit"),
    pytest.param(request("GET", "/api/v1/system/status", "X-Nul: a\x00b"), 400, "bad_request", id="nul-in-a-header"),
    pytest.param(b"NONSENSE\r\n\r\n", 400, "bad_request", id="malformed-request-line"),
    pytest.param(request("GET", "/api/v1/system/status", "Content-Length: x"), 400, "bad_request", id="bad-content-length"),
]


@pytest.mark.parametrize(("raw", "status", "code"), BAD_REQUESTS)
async def test_errors_of_the_http_layer_carry_the_json_error_body(
    server: RunningServer, raw: bytes, status: int, code: str
) -> None:
    with trio.fail_after(LIMIT_S):
        stream = await connect(server.base_url)
        await stream.send_all(raw)
        reader = Reader(stream)
        response = await reader.response()
        assert await reader.at_eof()
    assert response.status == status
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["code"] == code and body["message"]
    if status == 431:
        assert body["params"] == {"maxBytes": HEAD_LIMIT}
    else:
        assert "params" not in body
