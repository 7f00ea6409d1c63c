"""``reelhouse serve`` start-up, run as a real process."""

from __future__ import annotations

import socket
from pathlib import Path

import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage.activity import list_activity
from reelhouse.storage.scans import get_scan_run, insert_scan_run

from .process import run_cli


async def test_start_on_a_busy_port_exits_2_with_one_line_and_writes_nothing(tmp_path: Path, database_url: str) -> None:
    async with open_store(database_url) as store:  # an installation whose last run was killed mid-scan
        await migrate(store)
        await store.execute(
            "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            ("l1", "Films", "movies", 1, 1),
        )
        run = await insert_scan_run(store, "l1", "full")
        activity_before = await list_activity(store, 100)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with trio.fail_after(60):
            done = await run_cli(["serve", "--bind", f"127.0.0.1:{port}", "--data-dir", str(tmp_path / "data"),
                                  "--database", database_url])
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "in use" in lines[0], lines
    async with open_store(database_url) as store:
        still = await get_scan_run(store, run.id)
        assert still is not None and still.state == "running"  # not failed: start-up never began
        assert await list_activity(store, 100) == activity_before  # no server.start
