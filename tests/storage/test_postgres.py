"""The PostgreSQL dialect bridge: placeholders and which statements return rows."""

from __future__ import annotations

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
