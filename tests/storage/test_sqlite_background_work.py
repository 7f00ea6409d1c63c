"""The SQLite store under background work: small transactions before bulk
ones (bulk ones never starved), and reader threads of its own for background
reads.

SQLite only: PostgreSQL runs each transaction on a connection of its own,
with no queue of writes to order.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
import trio
import trio.testing

from reelhouse.loop.thread_priority import (
    BACKGROUND_READER_NICENESS,
    CHECKPOINT_NICENESS,
    MAX_NICENESS,
    WRITER_NICENESS,
)
from reelhouse.storage import Statement, background_reads, open_store, prepared_for_sqlite
from reelhouse.storage._sqlite import BACKGROUND_READERS, READER_POOL_SIZE
from reelhouse.storage._sqlite_writer import BULK_PASSES_MAX, BULK_ROWS, _FairQueue, _WriteRequest

from ..thread_niceness import thread_niceness

LIMIT_S = 20
CREATE_LOG = "CREATE TABLE log (seq INTEGER PRIMARY KEY AUTOINCREMENT, who TEXT NOT NULL)"
INSERT_LOG = "INSERT INTO log (who) VALUES (?)"


def _bulk(who: str) -> list[Statement]:
    return [Statement(INSERT_LOG, many=[(who,)] * BULK_ROWS)]


def _small(who: str) -> list[Statement]:
    return [Statement(INSERT_LOG, (who,))]


async def test_a_small_write_queued_behind_bulk_ones_commits_before_them(tmp_path: Path, write_gate) -> None:
    # Eight scans writing their batches queued seconds of work before a
    # scan's run record or an event; those wait for one bulk commit at most.
    async with open_store(f"sqlite:///{tmp_path / 'writer.db'}") as store:
        with trio.fail_after(LIMIT_S):
            await store.execute(CREATE_LOG)
            async with write_gate(store) as gate, trio.open_nursery() as nursery:
                nursery.start_soon(store.transaction, [gate.statement])
                await gate.wait_blocked()
                for name in ("bulk 1", "bulk 2"):
                    nursery.start_soon(store.transaction, _bulk(name))
                    await trio.testing.wait_all_tasks_blocked()
                nursery.start_soon(store.transaction, _small("small"))
                await trio.testing.wait_all_tasks_blocked()
                await gate.open()
            rows = await store.fetch_all("SELECT who, min(seq) AS first, count(*) AS n FROM log GROUP BY who")
    order = [row["who"] for row in sorted(rows, key=lambda row: row["first"])]
    assert order == ["small", "bulk 1", "bulk 2"]
    assert {row["who"]: row["n"] for row in rows} == {"small": 1, "bulk 1": BULK_ROWS, "bulk 2": BULK_ROWS}


def test_a_bulk_write_goes_next_once_small_ones_passed_it_a_few_times() -> None:
    queue = _FairQueue()
    bulk = _WriteRequest(tuple(_bulk("bulk")))
    queue.add(bulk)
    for turn in range(BULK_PASSES_MAX):
        small = _WriteRequest(tuple(_small(f"small {turn}")))
        queue.add(small)
        assert queue.next_batch() == [small]
    late = _WriteRequest(tuple(_small("late")))
    queue.add(late)
    assert queue.next_batch() == [bulk, late]  # the small ones then queued ride along
    assert queue.empty()


def test_bulk_writes_commit_one_at_a_time_in_arrival_order() -> None:
    queue = _FairQueue()
    first, second = _WriteRequest(tuple(_bulk("first"))), _WriteRequest(tuple(_bulk("second")))
    queue.add(first)
    queue.add(second)
    assert queue.next_batch() == [first]
    assert queue.next_batch() == [second]
    assert queue.empty()


async def test_a_request_is_answered_while_background_reads_hold_their_readers(tmp_path: Path) -> None:
    # Eight scans starting at once each read their library's whole index;
    # a request's one-row read (an API key, the status ping) must not wait.
    release = threading.Event()
    async with open_store(f"sqlite:///{tmp_path / 'lanes.db'}") as store:

        async def background_read() -> None:
            with background_reads():
                await store._read(lambda _conn: release.wait(LIMIT_S))  # type: ignore[attr-defined]

        with trio.fail_after(LIMIT_S):
            async with trio.open_nursery() as nursery:
                for _ in range(READER_POOL_SIZE + BACKGROUND_READERS):
                    nursery.start_soon(background_read)
                await trio.testing.wait_all_tasks_blocked()
                assert await store.fetch_value("SELECT 41 + 1") == 42
                assert not release.is_set()  # answered while every background read still waits
                release.set()


async def test_rows_prepared_away_from_the_writer_are_written_as_given(tmp_path: Path) -> None:
    rows = [(n, f"note {n} " + "x" * 500, None if n % 3 else n * 1.5) for n in range(BULK_ROWS)]  # rows as long as a scan's
    statements = [
        Statement("INSERT INTO notes (id, body, x) VALUES (?, ?, ?)", many=rows),
        Statement("UPDATE notes SET body = body || ? WHERE id = ?", many=[("!", 1), ("?", 2)]),  # no JSON form
    ]
    prepared = prepared_for_sqlite(statements)
    assert prepared[0].many is None and prepared[1] == statements[1]
    async with open_store(f"sqlite:///{tmp_path / 'prepared.db'}") as store:
        with trio.fail_after(LIMIT_S):
            await store.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, x REAL)")
            await store.transaction(prepared)
            stored = await store.fetch_all("SELECT id, body, x FROM notes ORDER BY id")
    expected = [(n, body + {1: "!", 2: "?"}.get(n, ""), x) for n, body, x in rows]
    assert [tuple(row) for row in stored] == expected
    queue = _FairQueue()
    queue.add(_WriteRequest(tuple(prepared)))
    queue.add(small := _WriteRequest(tuple(_small("small"))))
    assert queue.next_batch() == [small]  # the prepared rows weigh as what they are: bulk


def _current_thread(_conn: object) -> tuple[str, int]:
    return threading.current_thread().name, thread_niceness(threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice values are per thread on Linux")
async def test_checkpoints_and_background_reads_run_niced_and_the_writer_and_request_reads_at_theirs(
    tmp_path: Path,
) -> None:
    # Two scans on two cores: the loop's thread and the request readers get
    # the CPU first; checkpoints and the scans' reads take the rest. The
    # writer, which commits requests' writes too, has its own value.
    base = thread_niceness(threading.get_native_id())
    async with open_store(f"sqlite:///{tmp_path / 'nice.db'}") as store:
        with trio.fail_after(LIMIT_S):
            await store.execute(CREATE_LOG)  # a commit on the writer's one thread
            checkpointer = store._writer._after_commit.__self__  # type: ignore[attr-defined]
            while not checkpointer.checkpoints:  # one ran on the checkpoint's one thread
                await trio.sleep(0.01)
            request_read = await store._read(_current_thread)  # type: ignore[attr-defined]
            with background_reads():
                background_read = await store._read(_current_thread)  # type: ignore[attr-defined]
            by_name = {t.name: thread_niceness(t.native_id or 0) for t in threading.enumerate()}
    assert by_name["sqlite-writer-0"] == min(MAX_NICENESS, base + WRITER_NICENESS)
    assert by_name["sqlite-checkpoint-0"] == min(MAX_NICENESS, base + CHECKPOINT_NICENESS)
    assert background_read[0].startswith("sqlite-background-reader")
    assert background_read[1] == min(MAX_NICENESS, base + BACKGROUND_READER_NICENESS)
    assert request_read[0].startswith("sqlite-reader") and request_read[1] == base
