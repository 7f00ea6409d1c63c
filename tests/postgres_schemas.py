"""Migrated PostgreSQL test schemas, emptied and reused instead of migrated anew.

Migrating a fresh schema is the dearest part of a PostgreSQL test (about
forty tables, their indexes and functions: 2.5 s on a loaded 2-core
machine, where a SQLite copy of a migrated file takes 0.05 s), and dropping
it afterwards costs another half second.  So a test process keeps the
schemas its tests are done with: each is emptied (every table's rows
deleted, the rows the migrations seed put back, sequences set back to where
the migrations left them: 0.05 s) and renamed to a pool name; the next test
that wants a migrated schema gets one renamed to its own name.  A test
sees what a fresh migration makes, under the name it was given.

Only a schema whose shape is still the migrations' (the same relations,
functions, triggers and applied migrations) is reused; any other (a test
that restored a backup, added a trigger, dropped a table) is dropped as
before, as is one the emptying cannot lock within a few seconds.  The pool
is dropped when the process exits.  A test that asks for a schema without
migrating it (``database_url`` alone) still gets a schema that does not
exist yet.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import psycopg
from psycopg import sql

T = TypeVar("T")
LOCK_TIMEOUT = "5s"  # the emptying waits this long for a table a straggler still holds, then the schema is dropped


@dataclass(frozen=True)
class _Shape:
    relations: frozenset[tuple[str, str]]
    functions: frozenset[str]
    triggers: frozenset[str]
    migrations: tuple[int, ...]


@dataclass(frozen=True)
class _Snapshot:
    shape: _Shape
    tables: tuple[str, ...]  # every table but schema_migrations
    seeds: tuple[tuple[str, str], ...]  # (table, its rows as JSON) for the tables the migrations fill
    sequences: tuple[tuple[str, int, bool], ...]  # (sequence, last_value, is_called)


class SchemaPool:
    """This process's migrated schemas, ready for the next test (see the module docstring)."""

    def __init__(self, admin_url: str) -> None:
        self._admin_url = admin_url
        self._lock = threading.Lock()
        self._ready: list[str] = []
        self._snapshot: _Snapshot | None = None
        self._made = 0
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None
        atexit.register(self.close)

    def take(self, schema: str) -> bool:
        """Rename a ready schema to ``schema``; False when none is ready (the caller migrates it)."""
        return self._on_connection(lambda conn: self._take(conn, schema))

    def note_migrated(self, schema: str) -> None:
        """Remember what a freshly migrated ``schema`` holds (once per process): what emptying restores."""
        with self._lock:
            if self._snapshot is None:
                with self._connect() as conn:
                    self._snapshot = _snapshot(conn, schema)

    def release(self, schema: str) -> None:
        """Empty ``schema`` into the pool when it still has the migrations' shape, else drop it."""
        self._on_connection(lambda conn: self._release(conn, schema))

    def _take(self, conn: psycopg.Connection[tuple[object, ...]], schema: str) -> bool:
        if _exists(conn, schema):
            return True
        if not self._ready:
            return False
        _rename(conn, self._ready[-1], schema)
        self._ready.pop()
        return True

    def _release(self, conn: psycopg.Connection[tuple[object, ...]], schema: str) -> None:
        if not _exists(conn, schema):
            return
        snapshot = self._snapshot
        if snapshot is not None and _shape(conn, schema) == snapshot.shape:
            self._made += 1
            pooled = f"t_pool_{os.getpid()}_{self._made}"
            try:
                conn.execute(_emptying(schema, pooled, snapshot))
            except psycopg.Error:
                if conn.broken:
                    raise
                conn.execute("ROLLBACK")
            else:
                self._ready.append(pooled)
                return
        _drop(conn, schema)

    def _on_connection(self, work: Callable[[psycopg.Connection[tuple[object, ...]]], T]) -> T:
        """``work`` on the pool's one connection, kept open between tests (a connection is a PostgreSQL
        process started and its catalogues read: a few milliseconds of the server's, twice a test);
        opened again and ``work`` tried once more when the kept one has broken."""
        with self._lock:
            for attempt in (1, 2):
                if self._conn is None or self._conn.closed:
                    self._conn = self._connect()
                try:
                    return work(self._conn)
                except psycopg.OperationalError:
                    if not self._conn.broken or attempt == 2:
                        raise
                    self._conn.close()
            raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            ready, self._ready = self._ready, []
            if not ready:
                return
            try:
                with self._connect() as conn:
                    for schema in ready:
                        _drop(conn, schema)
            except psycopg.Error:
                pass  # the server went away first: nothing left to tidy that a new session would see

    def _connect(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(self._admin_url, autocommit=True, connect_timeout=10)


def _exists(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() is not None


def _rename(conn: psycopg.Connection[tuple[object, ...]], pooled: str, schema: str) -> None:
    """Rename ``pooled`` to ``schema``, with the functions that keep their schema (SET search_path FROM CURRENT)."""
    with conn.transaction():
        conn.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(pooled), sql.Identifier(schema)))
        pinned = conn.execute(
            "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = %s AND EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%%')",
            (schema,),
        ).fetchall()
        for (function,) in pinned:
            conn.execute(sql.SQL("ALTER FUNCTION {} SET search_path TO {}").format(
                sql.SQL(str(function)), sql.Identifier(schema)
            ))


def _drop(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> None:
    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def _shape(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> _Shape:
    relations = conn.execute(
        "SELECT c.relname, c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s", (schema,),
    ).fetchall()
    functions = conn.execute(
        "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %s",
        (schema,),
    ).fetchall()
    triggers = conn.execute(
        "SELECT c.relname || '.' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND NOT t.tgisinternal", (schema,),
    ).fetchall()
    migrations: tuple[int, ...] = ()
    if ("schema_migrations", "r") in {(str(r[0]), str(r[1])) for r in relations}:
        query = sql.SQL("SELECT version FROM {}.schema_migrations ORDER BY version").format(sql.Identifier(schema))
        migrations = tuple(int(str(row[0])) for row in conn.execute(query).fetchall())
    return _Shape(
        frozenset((str(r[0]), str(r[1])) for r in relations),
        frozenset(str(f[0]) for f in functions),
        frozenset(str(t[0]) for t in triggers),
        migrations,
    )


def _snapshot(conn: psycopg.Connection[tuple[object, ...]], schema: str) -> _Snapshot:
    shape = _shape(conn, schema)
    tables = tuple(sorted(name for name, kind in shape.relations if kind in ("r", "p") and name != "schema_migrations"))
    seeds = []
    for table in tables:
        query = sql.SQL("SELECT json_agg(t)::text FROM {}.{} t").format(sql.Identifier(schema), sql.Identifier(table))
        rows = conn.execute(query).fetchone()
        if rows is not None and rows[0] is not None:
            seeds.append((table, str(rows[0])))
    sequences = []
    for name in sorted(name for name, kind in shape.relations if kind == "S"):
        query = sql.SQL("SELECT last_value, is_called FROM {}.{}").format(sql.Identifier(schema), sql.Identifier(name))
        row = conn.execute(query).fetchone()
        assert row is not None
        sequences.append((name, int(str(row[0])), bool(row[1])))
    return _Snapshot(shape, tables, tuple(seeds), tuple(sequences))


def _emptying(schema: str, pooled: str, snapshot: _Snapshot) -> sql.Composed:
    """One transaction: every row out (triggers and foreign keys off), the seeds back, sequences reset, renamed."""
    name = sql.Identifier(schema)
    statements = [
        sql.SQL("BEGIN"),
        sql.SQL("SET LOCAL session_replication_role = replica"),
        sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(LOCK_TIMEOUT)),
    ]
    statements += [sql.SQL("DELETE FROM {}.{}").format(name, sql.Identifier(table)) for table in snapshot.tables]
    statements += [
        sql.SQL("INSERT INTO {0}.{1} SELECT * FROM json_populate_recordset(NULL::{0}.{1}, {2}::json)").format(
            name, sql.Identifier(table), sql.Literal(rows)
        )
        for table, rows in snapshot.seeds
    ]
    statements += [
        sql.SQL("SELECT setval({}, {}, {})").format(
            sql.Literal(f'"{schema}"."{sequence}"'), sql.Literal(last), sql.Literal(called)
        )
        for sequence, last, called in snapshot.sequences
    ]
    statements += [
        sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(name, sql.Identifier(pooled)),
        sql.SQL("COMMIT"),
    ]
    return sql.SQL("; ").join(statements)
