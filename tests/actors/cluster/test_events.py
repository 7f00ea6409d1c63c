"""One event stream across the nodes: every node's events in one order, with one sequence.

A scan led by node 0 is watched from node 1's stream; the client then
reconnects to node 0 with Last-Event-ID and resumes with no gap and no
duplicate.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import trio

from .nodes import open_cluster, write_films
from .test_leaders import create_library

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

FINAL = ("scan.completed", "scan.failed", "scan.cancelled")


async def sse(client: httpx.AsyncClient, headers: dict[str, str] | None = None) -> AsyncIterator[tuple[int, str, dict]]:
    """(id, event, data) of every event of GET /scans/events."""
    async with client.stream("GET", "/scans/events", headers=headers or {}) as response:
        assert response.status_code == 200
        fields: dict[str, str] = {}
        async for line in response.aiter_lines():
            if line == "":
                if "id" in fields:
                    yield int(fields["id"]), fields["event"], json.loads(fields["data"])
                fields = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value


async def test_a_scan_led_by_one_node_streams_on_another_and_resumes_on_a_third_connection_without_gap(
    tmp_path: Path, database_url: str
) -> None:
    films = write_films(tmp_path / "films", 8)
    with trio.fail_after(150):
        async with open_cluster(tmp_path, database_url, 2) as cluster:
            async with cluster.client(0) as leader, cluster.client(1) as watcher:
                library_id = await create_library(leader, films, suspended=True)
                seen: list[tuple[int, str]] = []
                opened = trio.Event()

                async def watch() -> None:
                    async for seq, kind, data in sse(watcher):
                        if kind == "scan.snapshot":
                            opened.set()
                            continue
                        seen.append((seq, kind))
                        if kind in FINAL and data.get("libraryId") == library_id:
                            return

                async with trio.open_nursery() as nursery:
                    nursery.start_soon(watch)
                    await opened.wait()
                    changed = await leader.patch(f"/libraries/{library_id}/options",
                                                 json={"scansSuspended": False, "remoteAllowedHosts": []})
                    assert changed.status_code == 200, changed.text
                    started = await leader.post(f"/libraries/{library_id}/scan", json={"mode": "full"})
                    assert started.status_code == 200, started.text
                assert seen[-1][1] == "scan.completed", seen
                assert "scan.started" in [kind for _seq, kind in seen]
                seqs = [seq for seq, _kind in seen]
                assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "one sequence, no gap, no duplicate"
                # Resume on the other node from the middle of what was seen.
                middle = seqs[len(seqs) // 2]
                resumed: list[tuple[int, str]] = []
                async for seq, kind, _data in sse(leader, {"Last-Event-ID": str(middle)}):
                    resumed.append((seq, kind))
                    if seq == seqs[-1]:
                        break
                assert resumed == seen[len(seqs) // 2 + 1:]
