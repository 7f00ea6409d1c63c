"""The PostgreSQL dialect bridge: placeholders and which statements return rows."""

from __future__ import annotations

import pytest
import trio

import reelhouse.storage._postgres as postgres_backend
from reelhouse.storage import open_store
from reelhouse.storage._postgres import translate_sql


def test_question_marks_become_numbered_placeholders() -> None:
    sql, _ = translate_sql("UPDATE t SET a = ?, b = ? WHERE id IN (?, ?)")
    assert sql == "UPDATE t SET a = $1, b = $2 WHERE id IN ($3, $4)"
    assert translate_sql("SELECT 1")[0] == "SELECT 1"


def test_queries_and_returning_statements_return_rows() -> None:
    assert translate_sql("  select * from t")[1]
    assert translate_sql("INSERT INTO t (a) VALUES (?) RETURNING id")[1]
    assert translate_sql("WITH x AS (SELECT 1) SELECT * FROM x")[1]
    assert not translate_sql("UPDATE t SET a = ?")[1]
    assert not translate_sql("WITH x AS (SELECT 1) DELETE FROM t WHERE a IN (SELECT * FROM x)")[1]
    assert not translate_sql("CREATE TABLE t (a INTEGER)")[1]


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_callers_waiting_for_a_connection_are_served_first_come_first_served(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_backend, "POOL_MAX_SIZE", 1)
    finished: list[int] = []
    with trio.fail_after(30):
        async with open_store(database_url) as store:
            slots = store._slots  # type: ignore[attr-defined]

            async def caller(number: int) -> None:
                await store.fetch_value("SELECT pg_sleep(0.05)")
                finished.append(number)

            async with trio.open_nursery() as nursery:
                for number in range(6):
                    nursery.start_soon(caller, number)
                    while slots.statistics().tasks_waiting + slots.borrowed_tokens < number + 1:
                        await trio.sleep(0.001)  # this caller is queued before the next arrives
    assert finished == list(range(6))
