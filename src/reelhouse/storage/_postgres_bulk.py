"""Many-row statements as one PostgreSQL statement over arrays (``unnest``).

asyncpg's ``executemany`` sends one Bind/Execute per row: a first scan on
PostgreSQL spent most of its writing time in those round trips (4.3x the
time of the same scan on SQLite, issue #28). Sent as one array parameter
per column, ``INSERT ... SELECT ... FROM unnest($1::text[], ...)``, a batch
is one statement with one prepared plan whatever its row count; asyncpg
encodes the arrays in binary.

The two shapes the Store's callers use for many rows are rewritten, as
:mod:`._sqlite_bulk` does for SQLite: ``INSERT INTO t (...) VALUES (...)
[ON CONFLICT ...]`` and ``DELETE FROM t WHERE a = ? [AND b = ? ...]``
(fixed terms such as ``source = 'local'`` kept). The arrays need the
columns' types: read once per table from ``pg_attribute``. Anything else
runs through ``executemany`` as before, and so does an upsert whose rows
repeat a conflict key (one statement may not update a row twice, where
row-at-a-time let the last row win).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ._store import Params

BULK_MIN_ROWS = 2  # a single row gains nothing
COLUMN_TYPES_SQL = (
    "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
    " WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped"
)
_ALIAS = "bulk_rows"

_INSERT = re.compile(r"\s*INSERT\s+INTO\s+(\w+)\s*\(([^()]*)\)\s*VALUES\s*\(([^()]*)\)(.*)", re.IGNORECASE | re.DOTALL)
_DELETE = re.compile(r"\s*DELETE\s+FROM\s+(\w+)\s+WHERE\s+(.*)", re.IGNORECASE | re.DOTALL)
_CONFLICT = re.compile(r"\s*ON\s+CONFLICT\s*\(([^()]*)\)\s*DO\s+UPDATE\b", re.IGNORECASE)
_EQUALS = re.compile(r"\s*(\w+)\s*=\s*\?\s*")
_LITERAL = re.compile(r"\s*('[^']*'|-?\d+(\.\d+)?|NULL)\s*", re.IGNORECASE)
_FIXED_TERM = re.compile(r"\s*\w+\s*(=\s*('[^']*'|-?\d+)|IS\s+(NOT\s+)?NULL)\s*", re.IGNORECASE)
_NAME = re.compile(r"^\w+$")


@dataclass(frozen=True, slots=True)
class BulkShape:
    """A many-row statement's one-statement form, once the column types are known."""

    table: str
    columns: tuple[str, ...]  # the column each ``?`` binds, in order
    template: str  # with {arrays}: the typed array parameters, in ``columns`` order
    unique: tuple[int, ...]  # placeholder indexes of an upsert's conflict key (no repeats allowed)

    def sql(self, types: Mapping[str, str]) -> str | None:
        """The statement for these column types; None when a column is unknown."""
        if any(column not in types for column in self.columns):
            return None
        arrays = [f"${n}::{types[column]}[]" for n, column in enumerate(self.columns, start=1)]
        return self.template.format(arrays=", ".join(arrays))

    def arrays(self, rows: Sequence[Params]) -> list[list[object]] | None:
        """One list per column; None when rows repeat a conflict key."""
        if self.unique and len({tuple(row[i] for i in self.unique) for row in rows}) != len(rows):
            return None
        return [list(column) for column in zip(*rows, strict=True)]


@functools.lru_cache(maxsize=256)
def bulk_shape(sql: str) -> BulkShape | None:
    """The one-statement form of a many-row ``sql`` (``?`` placeholders), or None."""
    insert = _INSERT.fullmatch(sql)
    if insert is not None:
        return _insert_shape(*insert.group(1, 2, 3, 4))
    delete = _DELETE.fullmatch(sql)
    if delete is not None:
        return _delete_shape(delete.group(1), delete.group(2))
    return None


def _insert_shape(table: str, names: str, values: str, tail: str) -> BulkShape | None:
    columns = [name.strip() for name in names.split(",")]
    terms = values.split(",")
    if len(columns) != len(terms) or not all(_NAME.match(c) for c in columns):
        return None
    bound: list[str] = []
    picked: list[str] = []
    for column, term in zip(columns, terms, strict=True):
        if term.strip() == "?":
            bound.append(column)
            picked.append(f"{_ALIAS}.c{len(bound)}")
        elif _LITERAL.fullmatch(term):
            picked.append(term.strip())
        else:
            return None
    if not bound or "?" in tail:
        return None
    unique: tuple[int, ...] = ()
    conflict = _CONFLICT.match(tail)
    if conflict is not None:
        keys = [key.strip() for key in conflict.group(1).split(",")]
        if any(key not in bound for key in keys):
            return None
        unique = tuple(bound.index(key) for key in keys)
    aliases = ", ".join(f"c{n}" for n in range(1, len(bound) + 1))
    template = (
        f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(picked)}"
        f" FROM unnest({{arrays}}) AS {_ALIAS} ({aliases}){_escape(tail)}"
    )
    return BulkShape(table, tuple(bound), template, unique)


def _delete_shape(table: str, condition: str) -> BulkShape | None:
    names: list[str] = []
    fixed: list[str] = []
    for term in re.split(r"\s+AND\s+", condition.strip(), flags=re.IGNORECASE):
        equals = _EQUALS.fullmatch(term)
        if equals is not None:
            names.append(equals.group(1))
        elif _FIXED_TERM.fullmatch(term):
            fixed.append(_escape(term.strip()))
        else:
            return None
    if not names:
        return None
    if len(names) == 1:
        matched = f"{names[0]} = ANY({{arrays}})"
    else:
        matched = f"({', '.join(names)}) IN (SELECT * FROM unnest({{arrays}}))"
    return BulkShape(table, tuple(names), f"DELETE FROM {table} WHERE {' AND '.join([matched, *fixed])}", ())


def _escape(text: str) -> str:
    """``text`` inside a str.format template."""
    return text.replace("{", "{{").replace("}", "}}")
