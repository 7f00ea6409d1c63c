"""SQLite WAL checkpoints run beside the writer, not inside its commits."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import trio

from reelhouse.storage import Statement, open_store

LIMIT_S = 20


async def _write_rows(store, count: int) -> None:  # type: ignore[no-untyped-def]
    await store.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)")
    for start in range(0, count, 500):
        rows = [(n, "x" * 500) for n in range(start, start + 500)]
        await store.transaction([Statement("INSERT INTO notes (id, body) VALUES (?, ?)", many=rows)])


async def test_commits_leave_checkpoints_to_the_checkpointer(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with trio.fail_after(LIMIT_S):
        async with open_store(f"sqlite:///{path}") as store:
            writer = store._writer._conn  # type: ignore[attr-defined]
            assert writer.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
            await _write_rows(store, 5000)
            checkpointer = store._writer._after_commit.__self__  # type: ignore[attr-defined]
            begun = checkpointer.started
            while checkpointer.started == begun or checkpointer.running or checkpointer._wanted.is_set():
                await trio.sleep(0.01)  # until one begun after the last commit ended, and none runs or waits
            busy, frames, backfilled = await trio.to_thread.run_sync(
                lambda: sqlite3.connect(path).execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            )
            assert busy == 0 and frames == backfilled  # nothing was left behind


async def test_closing_the_store_leaves_the_database_whole_and_the_wal_empty(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with trio.fail_after(LIMIT_S):
        async with open_store(f"sqlite:///{path}") as store:
            await _write_rows(store, 2000)
    wal = Path(f"{path}-wal")
    assert not wal.exists() or os.path.getsize(wal) == 0
    assert sqlite3.connect(path).execute("SELECT count(*) FROM notes").fetchone()[0] == 2000
