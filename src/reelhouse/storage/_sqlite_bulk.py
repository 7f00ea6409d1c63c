"""Many-row statements as one SQLite statement over a JSON array.

``executemany`` steps its statement once per row, and between rows the
sqlite3 module takes the GIL back (to bind the next row).  The writer runs
in a worker thread while other threads run Python (the event loop, a scan's
parser), so each of those hand-overs can wait a whole switch interval:
measured, a 300-row batch of item upserts went from about 120 us to over a
millisecond per row beside one busy thread.  Sent as one JSON parameter to
``INSERT ... SELECT ... FROM json_each(?)``, the rows are written in one
step with the GIL released throughout.

:func:`bulk_form` rewrites the two shapes the Store's callers use for many
rows, ``INSERT INTO t (...) VALUES (...) [tail]`` and ``DELETE FROM t
WHERE a = ? [AND b = ? ...]``; anything else (and rows holding values JSON
cannot carry: bytes, NaN) runs through ``executemany`` as before, as does
everything on a SQLite built without the JSON functions.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Sequence

from ._store import Params, Statement

BULK_MIN_ROWS = 2  # a single row gains nothing
_ROWS, _ROW = "bulk_rows", "bulk_row"  # the materialized rows of a bulk insert
# json_extract rather than ->> (SQLite 3.38): the system SQLite under a
# server's Python may be older (Ubuntu 22.04 ships 3.37).  MATERIALIZED came
# in 3.35; without it the CTE still works, only slower.
_MATERIALIZED = "MATERIALIZED " if sqlite3.sqlite_version_info >= (3, 35, 0) else ""


def _has_json() -> bool:
    """Whether this SQLite has the JSON functions (built in only since 3.38)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("SELECT json_extract(value, '$[0]') FROM json_each('[[1]]')").fetchall()
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return True


_JSON = _has_json()  # without it every statement runs through executemany

_INSERT = re.compile(
    r"\s*(INSERT\s+INTO\s+\w+\s*\([^()]*\))\s*VALUES\s*\(([^()]*)\)(.*)", re.IGNORECASE | re.DOTALL
)
_DELETE = re.compile(r"\s*(DELETE\s+FROM\s+\w+)\s+WHERE\s+(.*)", re.IGNORECASE | re.DOTALL)
_EQUALS = re.compile(r"\s*(\w+)\s*=\s*\?\s*")
_LITERAL = re.compile(r"\s*('[^']*'|-?\d+(\.\d+)?|NULL)\s*", re.IGNORECASE)
_FIXED_TERM = re.compile(r"\s*\w+\s*(=\s*('[^']*'|-?\d+)|IS\s+(NOT\s+)?NULL)\s*", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def bulk_form(sql: str) -> str | None:
    """The one-parameter JSON form of ``sql``, or None when it has none.

    The parameter is a JSON array of rows, each an array of the values the
    ``?`` placeholders of ``sql`` took, in order.
    """
    if not _JSON:
        return None
    insert = _INSERT.fullmatch(sql)
    if insert is not None:
        return _bulk_insert(insert.group(1), insert.group(2), insert.group(3))
    delete = _DELETE.fullmatch(sql)
    if delete is not None:
        return _bulk_delete(delete.group(1), delete.group(2))
    return None


def encode_rows(rows: Sequence[Params]) -> str | None:
    """``rows`` as the JSON parameter, or None when a value has no JSON form."""
    try:
        return json.dumps(rows, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


def prepared_for_sqlite(statements: Sequence[Statement]) -> list[Statement]:
    """``statements``, each many-row one in its JSON form with its rows encoded now.

    For rows built away from the server's event loop (a scan's parser, in a
    child process): the JSON text pickles and unpickles as one string, and
    the writer runs one statement on it. Encoding a scan batch (1,200 rows of
    41 columns, about 600 KB) is one C call of 10-40 ms that holds the GIL,
    and unpickling the same rows as tuples another: the event loop waited
    for both while requests queued. Statements without a JSON form stay as
    they are.
    """
    out: list[Statement] = []
    for statement in statements:
        rows = statement.many
        bulk = bulk_form(statement.sql) if rows is not None and len(rows) >= BULK_MIN_ROWS else None
        encoded = encode_rows(rows) if bulk is not None and rows is not None else None
        out.append(Statement(bulk, (encoded,)) if bulk is not None and encoded is not None else statement)
    return out


def _bulk_insert(head: str, values: str, tail: str) -> str | None:
    if tail.lstrip().startswith(","):
        return None  # several VALUES rows per statement
    columns: list[str] = []
    placeholder = 0
    for value in values.split(","):
        if value.strip() == "?":
            columns.append(_element(_ROW, placeholder))
            placeholder += 1
        elif _LITERAL.fullmatch(value):
            columns.append(value.strip())
        else:
            return None
    # json_each renders an array element's text anew each time its value is
    # read, so a row read column by column costs rows x columns renderings
    # (measured: 35 us a row of 41 columns); materialized, it is rendered
    # once (13 us).  "WHERE true" keeps SQLite from reading an ON CONFLICT
    # tail as a join.
    rows = f"WITH {_ROWS} ({_ROW}) AS {_MATERIALIZED}(SELECT value FROM json_each(?))"
    return f"{rows} {head} SELECT {', '.join(columns)} FROM {_ROWS} WHERE true{tail}"


def _element(row: str, index: int) -> str:
    return f"json_extract({row}, '$[{index}]')"


def _bulk_delete(head: str, condition: str) -> str | None:
    terms = re.split(r"\s+AND\s+", condition.strip(), flags=re.IGNORECASE)
    names: list[str] = []
    literals: list[str] = []
    for term in terms:
        equals = _EQUALS.fullmatch(term)
        if equals is not None:
            names.append(equals.group(1))
        elif _FIXED_TERM.fullmatch(term):
            literals.append(term.strip())  # such as source = 'local'
        else:
            return None
    if not names:
        return None
    picked = ", ".join(_element("value", i) for i in range(len(names)))
    matched = f"({', '.join(names)}) IN (SELECT {picked} FROM json_each(?))"
    return f"{head} WHERE {' AND '.join([matched, *literals])}"
