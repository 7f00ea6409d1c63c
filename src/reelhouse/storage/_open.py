"""open_store: pick the backend from a database URL and open it.

Accepted forms:

- ``sqlite:///abs/path/reelhouse.db`` (the URL path is the file path) or a
  plain file path: SQLite.
- ``postgresql://user@host:port/db`` (or ``postgres://``), or without a
  host, ``postgresql:///db?host=/var/run/postgresql`` (a Unix socket):
  PostgreSQL.  An
  extra query parameter ``schema=NAME`` (``[a-z_][a-z0-9_]*``) puts every
  connection on that schema (``search_path``), creating it when missing;
  ``open_store(url, schema=NAME)`` does the same.  Tests use it to isolate
  each test in a fresh schema.  ``writers=N`` and ``readers=N`` (1 to 100)
  size the store's connections: at most N pooled writer connections
  (default 10) and N reader connections (default 4); the suite, which opens
  many stores at once on one server, uses fewer.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit

from ._sqlite import open_sqlite_store
from ._store import Backend, Store

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True, slots=True)
class DatabaseTarget:
    """Where a database URL points: a SQLite file or a PostgreSQL DSN (+schema)."""

    backend: Backend
    location: str  # the SQLite file path, or the PostgreSQL DSN without `schema`
    schema: str | None = None
    writers: int | None = None  # pooled writer connections (None: the store's default)
    readers: int | None = None  # reader connections (None: the store's default)


def parse_database_url(url: str | os.PathLike[str], schema: str | None = None) -> DatabaseTarget:
    """Parse ``url``; raises ValueError for an unsupported or malformed URL."""
    text = os.fspath(url)
    if not _URL_SCHEME.match(text):
        return _sqlite_target(text, schema)
    parts = urlsplit(text)
    if parts.scheme == "sqlite":
        if parts.netloc or not parts.path:
            raise ValueError("a SQLite URL is sqlite:///absolute/path/to/file.db")
        # sqlite:/// followed by an absolute path (the server's own default URL
        # is built so) leaves "//" in front: one slash, or messages say "//tmp/...".
        path = "/" + parts.path.lstrip("/") if parts.path.startswith("//") else parts.path
        return _sqlite_target(path, schema)
    if parts.scheme in ("postgresql", "postgres"):
        return _postgres_target(parts, schema)
    raise ValueError(f"unsupported database URL scheme {parts.scheme!r}")


def _sqlite_target(path: str, schema: str | None) -> DatabaseTarget:
    if schema is not None:
        raise ValueError("a schema applies to PostgreSQL only")
    if not path or path == ":memory:":
        raise ValueError("SQLite needs a file path (an in-memory database has no readers)")
    return DatabaseTarget("sqlite", path)


def _postgres_target(parts: SplitResult, schema: str | None) -> DatabaseTarget:
    query = parse_qsl(parts.query, keep_blank_values=True)
    in_url = [value for key, value in query if key == "schema"]
    if len(in_url) > 1 or (in_url and schema is not None and in_url[0] != schema):
        raise ValueError("the schema is given twice, differently")
    chosen = in_url[0] if in_url else schema
    if chosen is not None and not _SCHEMA_NAME.match(chosen):
        raise ValueError(f"invalid schema name {chosen!r}: use [a-z_][a-z0-9_]*")
    sizes = {name: _connection_count(query, name) for name in _POOL_SIZES}
    rest = urlencode([(key, value) for key, value in query if key not in ("schema", *_POOL_SIZES)], safe="/")
    # Not urlunsplit: it drops the "//" of a URL without a host (the Unix
    # socket form, postgresql:///db?host=/var/run/postgresql), and libpq
    # then reads "postgresql:/db?host" as a connection option.
    dsn = f"postgresql://{parts.netloc}{parts.path}" + (f"?{rest}" if rest else "")
    return DatabaseTarget("postgresql", dsn, chosen, sizes["writers"], sizes["readers"])


_POOL_SIZES = ("writers", "readers")
_MAX_CONNECTIONS = 100


def _connection_count(query: list[tuple[str, str]], name: str) -> int | None:
    values = [value for key, value in query if key == name]
    if not values:
        return None
    if len(values) > 1 or not values[0].isdigit() or not 1 <= int(values[0]) <= _MAX_CONNECTIONS:
        raise ValueError(f"{name} is a number of connections from 1 to {_MAX_CONNECTIONS}, given once")
    return int(values[0])


@asynccontextmanager
async def open_store(url: str | os.PathLike[str], *, schema: str | None = None) -> AsyncIterator[Store]:
    """Open the store ``url`` names (see the module docstring for the forms).

    The store owns its tasks (the SQLite writer) and connections; on exit it
    commits queued writes and closes everything.  For PostgreSQL a
    trio-asyncio loop is opened around the store when none is running.
    Raises ValueError for a bad URL, StoreError when the database cannot be
    opened.
    """
    target = parse_database_url(url, schema)
    if target.backend == "postgresql":
        # Imported here: the PostgreSQL drivers (asyncpg, trio-asyncio,
        # psycopg) would cost a SQLite server 13 MB of memory for nothing
        # (measured: 76 -> 63 MB after importing the server's modules).
        from ._postgres import open_postgres_store

        async with open_postgres_store(
            target.location, schema=target.schema, writers=target.writers, readers=target.readers
        ) as pg_store:
            yield pg_store
    else:
        async with open_sqlite_store(target.location) as sqlite_store:
            yield sqlite_store
