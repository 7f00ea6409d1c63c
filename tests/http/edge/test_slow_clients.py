"""Clients that hold connections without a key, over real sockets: request
bodies under a deadline and a minimum rate, and the share of the connection
cap kept for authenticated clients."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from ..conftest import RunningServer, start_server
from .rawhttp import RawResponse, Reader, connect, request

LIMIT_S = 30
# The edge's rules, not the store's: one backend is enough.
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
LOGIN_HEAD = request("POST", "/api/v1/auth/login", "Content-Type: application/json", "Content-Length: 100000")


async def _server(nursery: trio.Nursery, database_url: str, tmp_path: Path, **http: object) -> RunningServer:
    return await start_server(nursery, database_url, tmp_path / "data", http=http)


def _auth(server: RunningServer) -> str:
    return f"Authorization: Bearer {server.key}"


async def _authenticated(server: RunningServer) -> tuple[int, trio.SocketStream]:
    """A request with the key on a new connection: its status, and the connection (kept open)."""
    stream = await connect(server.base_url)
    await stream.send_all(request("GET", "/api/v1/system/status", _auth(server)))
    return (await Reader(stream).response()).status, stream


async def _authenticated_status(server: RunningServer) -> int:
    """A request with the key on a new connection; its status."""
    status, stream = await _authenticated(server)
    await stream.aclose()
    return status


async def _capped_server(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, max_connections: int, share: float
) -> RunningServer:
    """A server whose slow clients wait for ever (60 s): only the cap and the share apply."""
    return await _server(nursery, database_url, tmp_path, max_connections=max_connections,
                         authenticated_share=share, body_seconds=60, keep_alive_seconds=60)  # fmt: skip


async def _held_sign_ins(server: RunningServer, count: int) -> list[trio.SocketStream]:
    """Sign-ins whose bodies never come: they hold their connections."""
    held = []
    for _ in range(count):
        stream = await connect(server.base_url)
        await stream.send_all(LOGIN_HEAD)
        held.append(stream)
    return held


async def _answer_and_close(reader: Reader) -> RawResponse:
    response = await reader.response()
    assert await reader.at_eof(), "the connection must close after the answer"
    return response


@SQLITE_ONLY
async def test_a_request_body_that_never_comes_is_answered_408_after_the_body_deadline(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path, body_seconds=0.5)
    with trio.fail_after(LIMIT_S):  # without a body deadline the app waited 60 s
        stream = await connect(server.base_url)
        await stream.send_all(LOGIN_HEAD)
        response = await _answer_and_close(Reader(stream))
    assert response.status == 408
    assert response.headers["content-type"] == "application/json"
    assert response.json()["code"] == "bad_request" and response.json()["message"]
    server.shutdown.set()


@SQLITE_ONLY
async def test_a_request_body_slower_than_the_minimum_rate_is_answered_408(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path, body_seconds=0.5, body_min_bytes_per_second=1024)
    with trio.fail_after(LIMIT_S):
        stream = await connect(server.base_url)
        await stream.send_all(LOGIN_HEAD)
        reader = Reader(stream)
        async with trio.open_nursery() as dripping:

            async def drip() -> None:  # a byte every 0.1 s: far below 1 KiB/s
                while True:
                    await stream.send_all(b" ")
                    await trio.sleep(0.1)

            dripping.start_soon(drip)
            response = await reader.response()
            dripping.cancel_scope.cancel()
    assert response.status == 408
    server.shutdown.set()


@SQLITE_ONLY
async def test_a_request_body_at_a_good_rate_may_take_longer_than_the_body_seconds(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _server(nursery, database_url, tmp_path, body_seconds=0.2, body_min_bytes_per_second=1024)
    (tmp_path / "films").mkdir()
    fields = {"name": "Films", "paths": [str(tmp_path / "films")], "collectionType": "movies",
              "options": {"remoteAllowedHosts": [], "scansSuspended": True}}  # fmt: skip
    body = json.dumps(fields).encode() + b" " * 20_000  # 20 s of allowance at the minimum rate
    whole = request("POST", "/api/v1/libraries", _auth(server), "Content-Type: application/json", body=body)
    with trio.fail_after(LIMIT_S):
        stream = await connect(server.base_url)
        for start in range(0, len(whole), 2048):
            await stream.send_all(whole[start : start + 2048])
            await trio.sleep(0.05)  # ten times 2 KiB a second: about 0.5 s in all
        response = await Reader(stream).response()
    assert response.status == 201, response.body
    server.shutdown.set()


@SQLITE_ONLY
async def test_connections_without_a_key_leave_the_reserved_share_to_authenticated_clients(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _capped_server(nursery, database_url, tmp_path, 8, 0.25)  # 6 may be held without credentials
    with trio.fail_after(LIMIT_S):
        held = await _held_sign_ins(server, 6)
        for _ in range(4):  # beyond the share: answered at once
            stream = await connect(server.base_url)
            await stream.send_all(LOGIN_HEAD)
            refused = await _answer_and_close(Reader(stream))
            assert refused.status == 503, refused.body
            assert refused.json()["code"] == "service_unavailable"
            assert refused.headers["retry-after"] == "1"
            await stream.aclose()
        for _ in range(4):  # a client with a key still gets in, again and again
            assert await _authenticated_status(server) == 200
    for stream in held:
        await stream.aclose()
    server.shutdown.set()


@SQLITE_ONLY
async def test_at_the_cap_a_new_connection_takes_the_place_of_the_oldest_one_on_trial(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await _capped_server(nursery, database_url, tmp_path, 4, 0.5)  # 2 may be held without credentials
    with trio.fail_after(LIMIT_S):
        held = await _held_sign_ins(server, 2)
        silent = [await connect(server.base_url) for _ in range(2)]  # on trial, no request head: the cap is full
        first, kept = await _authenticated(server)
        assert first == 200
        assert await Reader(silent[0]).at_eof()  # the oldest one on trial made room
        second, also_kept = await _authenticated(server)  # the cap is full again
        assert second == 200
        assert await Reader(silent[1]).at_eof()
    for stream in held + silent + [kept, also_kept]:
        await stream.aclose()
    server.shutdown.set()
