"""The shared SQL dialect in PostgreSQL's terms, for both of its drivers.

SQL arrives with ``?`` placeholders (:mod:`._store`); asyncpg (writes)
wants ``$1..$n``, psycopg (reads) wants ``%s`` with a literal ``%``
doubled.  One translation, cached, makes both.  Our SQL never has ``?``
inside string literals.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import asyncpg
import psycopg

from ._store import IntegrityError, StoreError, StoreFull, StoreUnavailable, store_error

SQL_CACHE_SIZE = 2048  # distinct statements whose translation is kept

_LEADING_QUERY = re.compile(r"^\s*(SELECT|VALUES|SHOW|TABLE|EXPLAIN)\b", re.IGNORECASE)
_LEADING_WITH = re.compile(r"^\s*WITH\b", re.IGNORECASE)
_DML = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE)\b", re.IGNORECASE)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)
_INTEGRITY = (asyncpg.IntegrityConstraintViolationError, psycopg.errors.IntegrityError)
DISK_FULL = "53100"
# Connection exceptions (class 08), and the server shutting down, crashed
# or starting up (57P01-57P03): the connection is gone, not the statement wrong.
_UNAVAILABLE_CLASS = "08"
_UNAVAILABLE_STATES = frozenset({"57P01", "57P02", "57P03"})
# Failures with no SQLSTATE that mean the same: refused, reset, timed out
# connecting, psycopg's "server closed the connection unexpectedly".
_CONNECTION_LOST = (OSError, TimeoutError, psycopg.OperationalError)


@dataclass(frozen=True, slots=True)
class PgSql:
    numbered: str  # $1..$n: asyncpg
    percent: str  # %s, literal % doubled: psycopg
    returns_rows: bool


@functools.lru_cache(maxsize=SQL_CACHE_SIZE)
def translate_sql(sql: str) -> PgSql:
    """``sql`` in both placeholder styles, and whether it returns rows."""
    head, *rest = sql.split("?")
    numbered = head + "".join(f"${n}{part}" for n, part in enumerate(rest, start=1))
    percent = "%s".join(part.replace("%", "%%") for part in (head, *rest))
    return PgSql(numbered, percent, _returns_rows(sql))


def _returns_rows(sql: str) -> bool:
    if _RETURNING.search(sql) or _LEADING_QUERY.match(sql):
        return True
    return bool(_LEADING_WITH.match(sql)) and not _DML.search(sql)


def translate_error(exc: BaseException) -> StoreError:
    """The Store error for a failure of either driver or of the connection."""
    if isinstance(exc, _INTEGRITY):
        return store_error(exc, IntegrityError)
    state = getattr(exc, "sqlstate", None)
    if state == DISK_FULL:
        return store_error(exc, StoreFull)
    if isinstance(state, str) and (state.startswith(_UNAVAILABLE_CLASS) or state in _UNAVAILABLE_STATES):
        return store_error(exc, StoreUnavailable)
    if state is None and (isinstance(exc, _CONNECTION_LOST) or _closed_connection(exc) or _ended_session(exc)):
        return store_error(exc, StoreUnavailable)
    return store_error(exc)


def _ended_session(exc: BaseException) -> bool:
    # asyncpg still reading the FATAL error a server sends as it ends a session (protocol state
    # 2, "error consume") when the next statement came: the connection is gone, its close not
    # yet seen (_postgres._aio_begin).  The store never reuses a connection after its own errors.
    return isinstance(exc, asyncpg.exceptions.InternalClientError) and "another operation (2)" in str(exc)


def _closed_connection(exc: BaseException) -> bool:
    # asyncpg says so only in words (its other InterfaceErrors are misuse).
    return isinstance(exc, asyncpg.InterfaceError) and "connection is closed" in str(exc)
