"""The Store contract, on both backends (the ``store`` fixture)."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from reelhouse.storage import IntegrityError, Statement, StoreError, open_store

LIMIT_S = 20

CREATE_NOTES = "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE, n INTEGER)"


async def _notes(store) -> list[str]:
    rows = await store.fetch_all("SELECT body FROM notes ORDER BY id")
    return [row["body"] for row in rows]


async def test_reads_return_rows_by_name_and_position(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        await store.execute("INSERT INTO notes (id, body, n) VALUES (?, ?, ?)", (1, "one", 10))
        rows = await store.fetch_all("SELECT id, body FROM notes WHERE n > ?", (5,))
        assert [(row["id"], row[1]) for row in rows] == [(1, "one")]
        assert (await store.fetch_one("SELECT body FROM notes WHERE id = ?", (1,)))["body"] == "one"
        assert await store.fetch_one("SELECT body FROM notes WHERE id = ?", (2,)) is None
        assert await store.fetch_value("SELECT n FROM notes WHERE id = ?", (1,)) == 10
        assert await store.fetch_value("SELECT n FROM notes WHERE id = ?", (2,)) is None


async def test_fetch_each_answers_each_query_in_order(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        await store.execute_many("INSERT INTO notes (id, body, n) VALUES (?, ?, ?)", [(1, "a", 1), (2, "b", 2)])
        bodies, none, count = await store.fetch_each([
            ("SELECT body FROM notes ORDER BY id", ()),
            ("SELECT body FROM notes WHERE n > ?", (5,)),
            ("SELECT count(*) AS c FROM notes WHERE n >= ?", (2,)),
        ])  # fmt: skip
        assert [row["body"] for row in bodies] == ["a", "b"]
        assert none == [] and count[0]["c"] == 1
        assert await store.fetch_each([]) == []


async def test_fetch_each_reads_one_snapshot_while_a_write_commits_between_its_queries(store) -> None:
    # The middle query runs for about a second; a write commits meanwhile.
    slow = {
        "sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000)"
                  " SELECT count(*) FROM c",
        "postgresql": "SELECT pg_sleep(1.5)",
    }[store.backend]  # fmt: skip
    count = "SELECT count(*) AS c FROM notes"
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        answers: list[list] = []
        async with trio.open_nursery() as nursery:

            async def read() -> None:
                answers.extend(await store.fetch_each([(count, ()), (slow, ()), (count, ())]))

            nursery.start_soon(read)
            await trio.sleep(0.1)
            await store.execute("INSERT INTO notes (id, body) VALUES (1, 'meanwhile')")
            committed_while_reading = bool(nursery.child_tasks)
        assert committed_while_reading, "the slow query ended before the write: the test proved nothing"
        assert answers[0][0]["c"] == answers[2][0]["c"] == 0
        assert await store.fetch_value(count) == 1


async def test_a_failing_query_in_fetch_each_raises_and_leaves_the_store_working(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        with pytest.raises(StoreError):
            await store.fetch_each([("SELECT 1", ()), ("SELECT nothing FROM nowhere", ())])
        for i in range(1, 9):  # every reader connection is out of its read transaction
            await store.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (i, f"n{i}"))
            assert (await store.fetch_each([("SELECT count(*) AS c FROM notes", ())]))[0][0]["c"] == i


async def test_write_results_carry_rowcounts_and_returning_rows(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        inserted = await store.execute(
            "INSERT INTO notes (id, body) VALUES (?, ?), (?, ?) RETURNING id", (1, "a", 2, "b")
        )
        assert inserted.rowcount == 2
        assert sorted(row["id"] for row in inserted.rows) == [1, 2]
        updated = await store.execute("UPDATE notes SET n = ? WHERE id >= ?", (7, 1))
        assert (updated.rowcount, updated.rows) == (2, [])
        none = await store.execute("DELETE FROM notes WHERE id = ?", (99,))
        assert none.rowcount == 0


async def test_transaction_returns_one_result_per_statement(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        results = await store.transaction(
            [
                Statement("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "a")),
                Statement("INSERT INTO notes (id, body) VALUES (?, ?)", many=[(2, "b"), (3, "c")]),
                Statement("SELECT body FROM notes ORDER BY id"),
            ]
        )
        assert [r.rowcount for r in results] == [1, 2, 3]
        assert [row["body"] for row in results[2].rows] == ["a", "b", "c"]
        assert await store.transaction([]) == []


async def test_transaction_is_all_or_nothing(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        await store.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "taken"))
        with pytest.raises(IntegrityError):
            await store.transaction(
                [
                    Statement("INSERT INTO notes (id, body) VALUES (?, ?)", (2, "fresh")),
                    Statement("UPDATE notes SET n = ? WHERE id = ?", (5, 1)),
                    Statement("INSERT INTO notes (id, body) VALUES (?, ?)", (3, "taken")),
                ]
            )
        assert await _notes(store) == ["taken"]
        assert await store.fetch_value("SELECT n FROM notes WHERE id = ?", (1,)) is None


async def test_constraint_violations_raise_integrity_error(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        await store.execute("CREATE TABLE tags (note_id INTEGER NOT NULL REFERENCES notes (id), tag TEXT)")
        await store.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "a"))
        with pytest.raises(IntegrityError):  # unique
            await store.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (2, "a"))
        with pytest.raises(IntegrityError):  # foreign key
            await store.execute("INSERT INTO tags (note_id, tag) VALUES (?, ?)", (99, "x"))
        with pytest.raises(IntegrityError):  # not null
            await store.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (3, None))


async def test_other_failures_raise_store_error_not_integrity_error(store) -> None:
    with trio.fail_after(LIMIT_S):
        with pytest.raises(StoreError) as bad_write:
            await store.execute("INSERT INTO no_such_table (x) VALUES (?)", (1,))
        assert not isinstance(bad_write.value, IntegrityError)
        with pytest.raises(StoreError):
            await store.fetch_all("SELEKT 1")
        await store.ping()


async def test_execute_many_writes_twenty_thousand_rows(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        rows = [(i, f"note {i}", i % 7) for i in range(20_000)]
        result = await store.execute_many("INSERT INTO notes (id, body, n) VALUES (?, ?, ?)", rows)
        assert result.rowcount == 20_000
        assert await store.fetch_value("SELECT count(*) FROM notes") == 20_000
        assert await store.fetch_value("SELECT body FROM notes WHERE id = ?", (19_999,)) == "note 19999"


async def test_reads_are_not_blocked_by_a_running_write(store, write_gate) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        async with write_gate(store) as gate, trio.open_nursery() as nursery:
            writing = [Statement("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "late")), gate.statement]
            nursery.start_soon(store.transaction, writing)
            await gate.wait_blocked()
            assert await _notes(store) == []  # answered while the write is held open
            await gate.open()
        assert await _notes(store) == ["late"]


async def test_a_failing_caller_does_not_undo_a_concurrent_callers_write(store, write_gate) -> None:
    # On SQLite the gate holds the writer so that both callers are queued
    # and committed in one batch; each has its own savepoint.
    outcomes: dict[str, object] = {}

    async def call(name: str, statements: list[Statement]) -> None:
        try:
            outcomes[name] = await store.transaction(statements)
        except StoreError as exc:
            outcomes[name] = exc

    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        await store.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "taken"))
        async with write_gate(store) as gate, trio.open_nursery() as nursery:
            nursery.start_soon(store.transaction, [gate.statement])
            await gate.wait_blocked()
            insert = "INSERT INTO notes (id, body) VALUES (?, ?)"
            nursery.start_soon(call, "good", [Statement(insert, (2, "good"))])
            nursery.start_soon(call, "bad", [Statement(insert, (3, "fine")), Statement(insert, (4, "taken"))])
            await trio.testing.wait_all_tasks_blocked()
            await gate.open()
        assert isinstance(outcomes["bad"], IntegrityError)
        assert await _notes(store) == ["taken", "good"]


async def test_a_cancelled_caller_leaves_its_transaction_whole(database_url, write_gate) -> None:
    # SQLite: a transaction handed to the writer completes (and is flushed
    # when the store closes).  PostgreSQL: cancelling rolls it back.
    with trio.fail_after(LIMIT_S):
        async with open_store(database_url) as store:
            await store.execute(CREATE_NOTES)
            async with write_gate(store) as gate:
                insert = "INSERT INTO notes (id, body) VALUES (?, ?)"
                statements = [Statement(insert, (1, "a")), gate.statement, Statement(insert, (2, "b"))]
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(store.transaction, statements)
                    nursery.start_soon(store.transaction, [Statement(insert, (3, "c"))])
                    await gate.wait_blocked()
                    nursery.cancel_scope.cancel()
                await gate.open()
        async with open_store(database_url) as reopened:
            notes = await _notes(reopened)
        if reopened.backend == "sqlite":
            assert notes == ["a", "b", "c"]
        else:
            assert "a" not in notes and "b" not in notes


async def test_a_second_store_on_the_same_database_writes_while_the_first_is_open(database_url) -> None:
    # The admin commands write while the server runs.
    with trio.fail_after(LIMIT_S):
        async with open_store(database_url) as server, open_store(database_url) as admin:
            await server.execute(CREATE_NOTES)
            async with trio.open_nursery() as nursery:
                for i in range(20):
                    owner = server if i % 2 else admin
                    nursery.start_soon(owner.execute, "INSERT INTO notes (id, body) VALUES (?, ?)", (i, str(i)))
            assert await server.fetch_value("SELECT count(*) FROM notes") == 20


async def test_a_closed_store_refuses_work(database_url) -> None:
    with trio.fail_after(LIMIT_S):
        async with open_store(database_url) as store:
            await store.execute(CREATE_NOTES)
        with pytest.raises(StoreError):
            await store.execute("INSERT INTO notes (id, body) VALUES (?, ?)", (1, "x"))


async def test_the_portable_dialect_forms_agree_on_both_backends(store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        await store.execute_many(
            "INSERT INTO notes (id, body, n) VALUES (?, ?, ?)", [(1, "Apple", 2), (2, "apricot", None), (3, "Bean", 5)]
        )
        rows = await store.fetch_all("SELECT id FROM notes ORDER BY n NULLS LAST, id")
        assert [row["id"] for row in rows] == [1, 3, 2]
        rows = await store.fetch_all("SELECT id FROM notes WHERE lower(body) LIKE lower(?) ORDER BY id", ("AP%",))
        assert [row["id"] for row in rows] == [1, 2]
        total = await store.fetch_value("SELECT CAST(SUM(n) AS BIGINT) FROM notes")
        assert (total, type(total)) == (7, int)
        upserted = await store.execute(
            "INSERT INTO notes (id, body) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body RETURNING body",
            (1, "Avocado"),
        )
        assert [row["body"] for row in upserted.rows] == ["Avocado"]


async def test_the_data_version_moves_only_once_a_write_has_committed(store, write_gate) -> None:
    """A cache that saw the same data version before and after a read knows no write committed meanwhile."""
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE_NOTES)
        before = store.data_version()
        async with write_gate(store) as gate, trio.open_nursery() as nursery:
            nursery.start_soon(store.transaction, [gate.statement, Statement("INSERT INTO notes (id, body) VALUES (1, 'a')")])
            await gate.wait_blocked()
            assert store.data_version() == before  # running, not committed
            await gate.open()
        assert store.data_version() != before
        read_from = store.data_version()
        await _notes(store)
        assert store.data_version() == read_from  # reads leave it
