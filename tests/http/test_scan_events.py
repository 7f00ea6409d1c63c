"""GET /scans/events: the SSE contract of api-decisions.md, over real HTTP."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
import trio

from reelhouse.actors import tree
from reelhouse.runtime import _eventbus

from ..media_factory import MediaFactory
from ..sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from .conftest import start_server
from .scanning import create_library, wait_for_state


@dataclass
class SseEvent:
    id: int
    event: str
    data: dict[str, Any]


async def read_events(response: httpx.Response) -> AsyncIterator[SseEvent | str]:
    """Yields events, and comment lines as strings."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line.startswith(":"):
            yield line
        elif line == "":
            if fields:
                yield SseEvent(int(fields["id"]), fields["event"], json.loads(fields["data"]))
                fields = {}
        else:
            name, _, value = line.partition(": ")
            fields[name] = value


async def collect_until(client: httpx.AsyncClient, stop: str, *, headers: dict[str, str] | None = None,
                        params: dict[str, str] | None = None, during: Any = None,
                        after_started: str | None = None) -> list[SseEvent]:
    """Open the stream, optionally run ``during`` once its first event (a library's snapshot) arrived,
    and read until an event named ``stop`` (of a scan started after ``after_started``, when given).

    Not at the stream's opening comment: the snapshot is taken after it, so a scan started then
    could already show in the snapshot (seen under load with three test workers)."""
    events: list[SseEvent] = []
    async with client.stream("GET", "/scans/events", headers=headers, params=params, timeout=None) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        started = False
        async for item in read_events(response):
            if isinstance(item, SseEvent):
                events.append(item)
                if not started and during is not None:
                    started = True
                    await during()
                newer = after_started is None or item.data.get("startedAt", "") > after_started
                if item.event == stop and newer:
                    break
    return events


@pytest.fixture
def root(tmp_path: Path, media: MediaFactory) -> Path:
    media.video(tmp_path / "films" / "Heat (1995).mkv")
    return tmp_path / "films"


async def test_a_new_connection_gets_a_snapshot_per_library_then_live_events(client: httpx.AsyncClient, root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root])
        first = await wait_for_state(client, library["id"])

        async def scan() -> None:
            assert (await client.post(f"/libraries/{library['id']}/scan", json={"mode": "full"})).status_code == 200

        events = await collect_until(client, "scan.completed", during=scan, after_started=first["startedAt"])
    assert events[0].event == "scan.snapshot" and events[0].data["libraryId"] == library["id"]
    # The first scan's last events may still be on their way when the stream
    # opens (persist first, deliver second); the scan started here is whole.
    events = [e for e in events if e.data.get("startedAt", "") > first["startedAt"]]
    live = [e.event for e in events]
    assert live[:2] == ["scan.queued", "scan.started"]
    assert live[-1] == "scan.completed"
    ids = [e.id for e in events]
    assert ids == list(range(ids[0], ids[0] + len(ids)))  # one global sequence, no holes
    assert events[-1].data["state"] == "completed" and "finishedAt" in events[-1].data


async def test_last_event_id_replays_every_later_event(client: httpx.AsyncClient, root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root])
        first = await wait_for_state(client, library["id"])
        first_run = await collect_until(client, "scan.snapshot")
        mark = first_run[0].id
        for _ in range(2):
            await client.post(f"/libraries/{library['id']}/scan", json={"mode": "full"})
            await wait_for_state(client, library["id"])
        later = first["startedAt"]
        replayed = await collect_until(client, "scan.completed", headers={"Last-Event-ID": str(mark)}, after_started=later)
        again = await collect_until(
            client, "scan.completed", params={"lastEventId": str(replayed[0].id - 1)}, after_started=later
        )
    assert replayed[0].id == mark + 1
    # The first scan's last events may be persisted after the snapshot was
    # taken (persist first, deliver second): they replay too, before ours.
    ours = [e.event for e in replayed if e.data.get("startedAt", "") > later]
    assert ours[:2] == ["scan.queued", "scan.started"]
    assert again[0].id == replayed[0].id


async def test_an_unknown_last_event_id_gets_snapshots(client: httpx.AsyncClient, root: Path) -> None:
    with trio.fail_after(60):
        library = await create_library(client, "Films", [root])
        await wait_for_state(client, library["id"])
        events = await collect_until(client, "scan.snapshot", headers={"Last-Event-ID": "999999999"})
    assert events[0].data["libraryId"] == library["id"]


async def test_a_malformed_last_event_id_is_400(client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        response = await client.get("/scans/events", headers={"Last-Event-ID": "abc"})
    assert response.status_code == 400 and response.json()["code"] == "field_invalid"


async def test_event_ids_survive_a_restart(nursery: trio.Nursery, database_url: str, tmp_path: Path, root: Path) -> None:
    from reelhouse.storage import open_store

    first = await start_server(nursery, database_url, tmp_path / "data")
    async with first.client() as client:
        with trio.fail_after(60):
            library = await create_library(client, "Films", [root])
            await wait_for_state(client, library["id"])
    first.shutdown.set()
    with trio.fail_after(60):
        await first.stopped.wait()  # the bus persisted what was queued before it stopped
    async with open_store(database_url) as store:
        last_before = int(await store.fetch_value("SELECT max(seq) FROM events"))
    assert last_before >= 3
    second = await start_server(nursery, database_url, tmp_path / "data")
    async with second.client() as client:
        with trio.fail_after(60):
            replay = await collect_until(client, "scan.completed", headers={"Last-Event-ID": str(last_before - 3)})

            async def scan() -> None:
                await client.post(f"/libraries/{library['id']}/scan", json={"mode": "quick"})

            fresh = await collect_until(client, "scan.started", during=scan)
    second.shutdown.set()
    assert replay[0].id == last_before - 2  # persisted events replayed across the restart
    new_ids = [e.id for e in fresh if e.event != "scan.snapshot"]
    assert new_ids[0] > last_before  # numbers are never reused


async def test_shutdown_ends_open_streams(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> None:
    running = await start_server(nursery, database_url, tmp_path / "data", shutdown_grace_seconds=5)
    async with running.client() as client:
        with trio.fail_after(15):
            async with client.stream("GET", "/scans/events", timeout=None) as response:
                lines = response.aiter_lines()
                assert (await lines.__anext__()).startswith(":")
                running.shutdown.set()
                async for _ in lines:
                    pass  # the server closes the stream; the loop ends


class SmallQueueBus(_eventbus.EventBus):
    """The server's EventBus, kept where the test can publish, with a short subscriber queue."""

    made: ClassVar[list[SmallQueueBus]] = []

    def __init__(self, log: _eventbus.EventLog, **kwargs: object) -> None:
        super().__init__(log, subscriber_queue_size=20, **kwargs)  # type: ignore[arg-type]
        SmallQueueBus.made.append(self)


async def test_a_dropped_slow_subscriber_gets_its_connection_closed(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tree, "EventBus", SmallQueueBus)
    SmallQueueBus.made.clear()
    running = await start_server(nursery, database_url, tmp_path / "data")
    bus = SmallQueueBus.made[-1]
    host, port = running.base_url.removeprefix("http://").rsplit(":", 1)
    sock = trio.socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that reads little...
    received = bytearray()
    others = set(bus._subscribers)  # the server's own (the scheduler follows scans)
    with trio.fail_after(60):
        await sock.connect((host, int(port)))
        stream = trio.SocketStream(sock)
        await stream.send_all(
            f"GET /api/v1/scans/events HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {running.key}\r\n\r\n".encode()
        )
        while b": stream open" not in received:
            received += await stream.receive_some(4096)
        assert received.startswith(b"HTTP/1.1 200")
        ours = set(bus._subscribers) - others  # the stream's subscription, until the bus drops it
        assert len(ours) == 1
        pad = "x" * 65536
        while ours & set(bus._subscribers):  # ...and now nothing: the server's writes wait, its queue overflows
            bus.publish("scan.progress", {"libraryId": "slow", "pad": pad})
            await trio.sleep(0.01)
        with trio.fail_after(10):  # the server has closed: what was sent, then end of file
            while chunk := await stream.receive_some(1 << 20):
                received += chunk
        await stream.aclose()
    running.shutdown.set()
    assert b"event: scan.progress" in received
    assert not received.endswith(b"0\r\n\r\n")  # cut off, not a response ended for keep-alive
