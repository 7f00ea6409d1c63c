"""Many-row statements (``Statement(many=...)``) on both backends.

SQLite runs the shapes :mod:`reelhouse.storage._sqlite_bulk` knows as one
statement over a JSON array, PostgreSQL as one statement over arrays
(:mod:`reelhouse.storage._postgres_bulk`); these tests hold both to what
``executemany`` would have written, value types included, and check the
fallbacks.
"""

from __future__ import annotations

import pytest
import trio

from reelhouse.storage import IntegrityError, Statement, Store, _sqlite_bulk
from reelhouse.storage._postgres_bulk import bulk_shape
from reelhouse.storage._sqlite_bulk import bulk_form, encode_rows

LIMIT_S = 20
CREATE = (
    "CREATE TABLE things (id TEXT PRIMARY KEY, kind TEXT NOT NULL, n BIGINT, x DOUBLE PRECISION,"
    " note TEXT, source TEXT NOT NULL DEFAULT 'local')"
)
UPSERT = (
    "INSERT INTO things (id, kind, n, x, note) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET n = excluded.n, note = COALESCE(excluded.note, things.note)"
)
ROWS = [
    ("a", "genre", 1, 1.5, "plain"),
    ("b", "genre", None, None, None),
    ("c", "studio", -7, 2.0, "ünïcödé, \"quotes\" and 'apostrophes' \\ and [brackets]"),
    ("d", "studio", 2**53, 1e-9, "12"),
    ("e", "tag", 0, 0.0, ""),
]


async def _things(store: Store) -> list[tuple[object, ...]]:
    rows = await store.fetch_all("SELECT id, kind, n, x, note, source FROM things ORDER BY id")
    return [tuple(row) for row in rows]


async def test_many_rows_insert_every_value_with_its_type(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE)
        await store.transaction([Statement(UPSERT, many=ROWS)])
        assert await _things(store) == [(*row, "local") for row in ROWS]
        assert await store.fetch_value("SELECT n FROM things WHERE id = 'd'") == 2**53
        assert await store.fetch_value("SELECT note FROM things WHERE id = 'd'") == "12"


async def test_many_rows_upsert_and_later_rows_see_earlier_ones(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE)
        await store.transaction([Statement(UPSERT, many=ROWS[:2])])
        again = [("a", "genre", 10, 1.5, None), ("z", "tag", 1, None, "new"), ("z", "tag", 2, None, None)]
        await store.transaction([Statement(UPSERT, many=again)])
        rows = {row[0]: row for row in await _things(store)}
        assert rows["a"][2:5] == (10, 1.5, "plain")  # note kept by COALESCE
        assert rows["z"][2:5] == (2, None, "new")  # the second z updated the first


async def test_many_rows_delete_by_one_or_more_columns_and_a_fixed_term(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE)
        await store.transaction([Statement(UPSERT, many=ROWS)])
        await store.transaction([Statement("DELETE FROM things WHERE id = ?", many=[("a",), ("missing",)])])
        await store.transaction(
            [Statement("DELETE FROM things WHERE kind = ? AND source = 'local' AND n = ?", many=[("studio", -7), ("tag", 99)])]
        )
        assert [row[0] for row in await _things(store)] == ["b", "d", "e"]


async def test_a_conflict_in_many_rows_fails_the_whole_transaction(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE)
        plain = "INSERT INTO things (id, kind) VALUES (?, ?)"
        with pytest.raises(IntegrityError):
            await store.transaction([Statement(plain, many=[("a", "x"), ("b", "x")]), Statement(plain, many=[("c", "x"), ("a", "x")])])
        assert await _things(store) == []


def test_inserts_and_deletes_get_a_json_form_and_other_shapes_do_not() -> None:
    assert bulk_form("INSERT INTO t (a, b, c) VALUES (?, 'x', ?)") == (
        f"WITH bulk_rows (bulk_row) AS {_sqlite_bulk._MATERIALIZED}(SELECT value FROM json_each(?))"
        " INSERT INTO t (a, b, c) SELECT json_extract(bulk_row, '$[0]'), 'x', json_extract(bulk_row, '$[1]')"
        " FROM bulk_rows WHERE true"
    )
    assert bulk_form("DELETE FROM t WHERE a = ? AND b = ?") == (
        "DELETE FROM t WHERE (a, b) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))"
    )
    assert bulk_form("DELETE FROM t WHERE a = ? AND kind = 'local'") == (
        "DELETE FROM t WHERE (a) IN (SELECT json_extract(value, '$[0]') FROM json_each(?)) AND kind = 'local'"
    )
    for other in (
        "UPDATE t SET a = ? WHERE id = ?",
        "INSERT INTO t (a, b) VALUES (?, lower(?))",
        "INSERT INTO t (a) VALUES (?), (?)",
        "DELETE FROM t WHERE a = ? OR b = ?",
        "DELETE FROM t WHERE a < ?",
        "DELETE FROM t WHERE a = 1",
    ):
        assert bulk_form(other) is None, other


def test_values_without_a_json_form_are_left_to_executemany() -> None:
    assert encode_rows([("a", 1, 2.5, None, True)]) == '[["a",1,2.5,null,true]]'
    assert encode_rows([(b"\x00",)]) is None
    assert encode_rows([(float("nan"),)]) is None


async def test_bytes_and_single_rows_still_write(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BYTEA)")
        await store.transaction([Statement("INSERT INTO blobs (id, body) VALUES (?, ?)", many=[(1, b"\x00\x01"), (2, b"")])])
        await store.transaction([Statement("INSERT INTO blobs (id, body) VALUES (?, ?)", many=[(3, None)])])
        rows = await store.fetch_all("SELECT id, body FROM blobs ORDER BY id")
        assert [(row[0], None if row[1] is None else bytes(row[1])) for row in rows] == [(1, b"\x00\x01"), (2, b""), (3, None)]


def test_without_the_json_functions_every_statement_is_left_to_executemany(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sqlite_bulk, "_JSON", False)  # as on a SQLite built without them
    bulk_form.cache_clear()
    try:
        assert bulk_form("INSERT INTO t (a, b) VALUES (?, ?)") is None
        assert bulk_form("DELETE FROM t WHERE a = ?") is None
    finally:
        bulk_form.cache_clear()


def test_postgres_inserts_and_deletes_get_an_array_form_and_other_shapes_do_not() -> None:
    types = {"a": "text", "b": "bigint", "c": "double precision"}
    insert = bulk_shape("INSERT INTO t (a, b, c) VALUES (?, 'x', ?) ON CONFLICT (a) DO UPDATE SET c = excluded.c")
    assert insert is not None and insert.columns == ("a", "c") and insert.unique == (0,)
    assert insert.sql(types) == (
        "INSERT INTO t (a, b, c) SELECT bulk_rows.c1, 'x', bulk_rows.c2 FROM unnest($1::text[], $2::double precision[])"
        " AS bulk_rows (c1, c2) ON CONFLICT (a) DO UPDATE SET c = excluded.c"
    )
    assert insert.sql({"a": "text"}) is None  # a column whose type is not known yet
    assert insert.arrays([("k", 1.0), ("l", None)]) == [["k", "l"], [1.0, None]]
    assert insert.arrays([("k", 1.0), ("k", 2.0)]) is None  # a key twice: one statement may not update it twice
    two = bulk_shape("DELETE FROM t WHERE a = ? AND b = ? AND c IS NULL")
    assert two is not None and two.sql(types) == (
        "DELETE FROM t WHERE (a, b) IN (SELECT * FROM unnest($1::text[], $2::bigint[])) AND c IS NULL"
    )
    one = bulk_shape("DELETE FROM t WHERE a = ?")
    assert one is not None and one.sql(types) == "DELETE FROM t WHERE a = ANY($1::text[])"
    for other in (
        "UPDATE t SET a = ? WHERE id = ?",
        "INSERT INTO t (a, b) VALUES (?, lower(?))",
        "INSERT INTO t (a) VALUES (?), (?)",
        "INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = ?",
        "DELETE FROM t WHERE a = ? OR b = ?",
        "DELETE FROM t WHERE a < ?",
        "DELETE FROM t WHERE a = 1",
    ):
        assert bulk_shape(other) is None, other


async def test_a_column_added_after_the_first_many_row_write_is_written_too(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute(CREATE)
        await store.transaction([Statement(UPSERT, many=ROWS[:2])])
        await store.execute("ALTER TABLE things ADD COLUMN late TEXT")
        late = "INSERT INTO things (id, kind, late) VALUES (?, ?, ?)"
        await store.transaction([Statement(late, many=[("y", "tag", "one"), ("z", "tag", None)])])
        rows = await store.fetch_all("SELECT id, late FROM things ORDER BY id")
        assert [tuple(row) for row in rows] == [("a", None), ("b", None), ("y", "one"), ("z", None)]
