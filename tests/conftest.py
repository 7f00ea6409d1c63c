"""Fixtures shared by the whole suite: a database on each backend.

- ``database_url``: parametrized over ``sqlite`` and ``postgresql``; a URL
  for a fresh, empty database (SQLite: a file in ``tmp_path``; PostgreSQL: a
  fresh schema, ``postgresql://...?schema=NAME``, dropped after the test).
  Open it yourself with ``open_store(database_url)`` or hand it to the CLI or
  the server (``--database``).
- ``store``: that database opened with ``open_store`` and migrated.
- ``migrated_copy(database_url)``: makes a fresh database migrated without
  running every migration again: SQLite, a copy of a migrated template (one
  per test process); PostgreSQL, a schema an earlier test emptied
  (tests/postgres_schemas.py). The ``store`` fixture and the test servers
  use it.
- ``throwaway_postgres``: a PostgreSQL cluster of the test's own, which it
  may stop and restart (never the shared server).

PostgreSQL is looked for once per session at :data:`POSTGRES_URL`
(``TEST_POSTGRES_URL`` overrides it).  When it does not answer, the
PostgreSQL cases skip with the reason, except under CI (``CI=true``), where
they fail: there the PostgreSQL tests must run.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import asyncpg
import psycopg
import pytest
import trio
from hypothesis import HealthCheck, settings

from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage._open import parse_database_url

from .postgres_schemas import SchemaPool
from .server_process import measured, stop_launcher
from .throwaway_postgres import ThrowawayPostgres, throwaway_cluster

if TYPE_CHECKING:
    from .media_factory import MediaFactory

POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql://root@127.0.0.1:5432/test")
POSTGRES_PROBE_TIMEOUT_S = 3.0
# Each test store opens fewer connections than a server's (10 writers, 4
# readers): two workers, their servers and CLI runs, and other suites on the
# same PostgreSQL (max_connections 100) stay well under its limit.
TEST_POOL_SIZES = "writers=5&readers=2"
BACKENDS = ("sqlite", "postgresql")

# Properties are judged on behaviour, never on time: a loaded machine (CI, a
# benchmark beside the suite) must not fail a test for being slow.
settings.register_profile("reelhouse", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("reelhouse")


async def _probe_postgres() -> None:
    conn = await asyncpg.connect(POSTGRES_URL, timeout=POSTGRES_PROBE_TIMEOUT_S)
    await conn.close()


SCHEMAS = SchemaPool(POSTGRES_URL)  # this process's emptied, migrated schemas


@functools.cache
def postgres_problem() -> str | None:
    """None when PostgreSQL answers, else the reason it does not (probed once)."""
    try:
        asyncio.run(_probe_postgres())
    except Exception as exc:  # any failure to connect means "not reachable"
        return (
            f"PostgreSQL not reachable at {POSTGRES_URL} ({type(exc).__name__}: {exc}); "
            "start it with `pg_ctlcluster 15 main start`"
        )
    return None


def _must_run_postgres() -> bool:
    return os.environ.get("CI") == "true"


# A test marked `long` is started first, so that no xdist worker is still running one when the
# others have run out of tests (the run's tail): they then end long before the run does.
LONG_TEST = "takes 10 s or more on a quiet machine; started before the others"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"long: {LONG_TEST}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``long`` first, then the others, each in collection order; the PostgreSQL
    cases skipped up front (one folded reason per file) when it is down."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: False (long) first
    selected = [item for item in items if _backend_of(item) == "postgresql"]
    if not selected or _must_run_postgres():
        return
    problem = postgres_problem()
    if problem is not None:
        for item in selected:
            item.add_marker(pytest.mark.skip(reason=problem))


# The catalogues each test schema writes rows into; dropped and renamed schemas leave their old
# rows behind until a VACUUM, and a server without autovacuum (this machine's has none) kept them:
# 1.7 million dead pg_attribute rows after a day's runs made the suite 6 % slower (374 -> 352 s).
SCHEMA_CATALOGUES = ("pg_attribute", "pg_depend", "pg_class", "pg_index", "pg_type", "pg_namespace", "pg_proc",
                     "pg_constraint", "pg_attrdef", "pg_trigger", "pg_sequence", "pg_description")  # fmt: skip


def pytest_sessionstart(session: pytest.Session) -> None:
    """Once a run (in the xdist controller, or the only process): the catalogues the last runs'
    test schemas left dead rows in are vacuumed (about 3 s after a day of runs, far less after one)."""
    if os.environ.get("PYTEST_XDIST_WORKER") or postgres_problem() is not None:
        return
    tables = ", ".join(f"pg_catalog.{name}" for name in SCHEMA_CATALOGUES)
    try:
        with psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"VACUUM {tables}")
    except psycopg.Error as error:  # a role that may not vacuum them: the run goes on as it is
        warnings.warn(f"could not vacuum the PostgreSQL catalogues: {error}", stacklevel=1)


def pytest_sessionfinish() -> None:
    """Under `make coverage`, this test process's CLI launcher ends (and saves its coverage data)
    with the session, before pytest-cov combines the run's data, not at interpreter exit after it."""
    if measured():
        stop_launcher()


def _backend_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get("backend")


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test server's URL (the database every test schema lives in)."""
    return POSTGRES_URL


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def schema_url(schema: str) -> str:
    """The URL of ``schema`` on the test server, with the suite's smaller connection pools."""
    separator = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{separator}schema={schema}&{TEST_POOL_SIZES}"


@pytest.fixture
def database_url(backend: str, tmp_path: os.PathLike[str]) -> Iterator[str]:
    """A URL for a fresh, empty database on ``backend`` (see the module docstring)."""
    if backend == "sqlite":
        yield f"sqlite:///{os.path.join(os.fspath(tmp_path), 'reelhouse.db')}"
        return
    problem = postgres_problem()
    if problem is not None:  # reached under CI; elsewhere the case was skipped at collection
        if _must_run_postgres():
            pytest.fail(problem)
        pytest.skip(problem)
    schema = f"t_{uuid.uuid4().hex[:20]}"
    yield schema_url(schema)
    SCHEMAS.release(schema)  # emptied for the next test, or dropped


_sqlite_template: list[str] = []  # this process's migrated SQLite file, made once


async def migrated_copy(database_url: str) -> None:
    """Make a database that does not exist yet a migrated one, without running the migrations again.

    Migrating costs a dozen committed transactions per database; a SQLite
    copy is one file write, a PostgreSQL schema from the pool one rename
    (tests/postgres_schemas.py). The result is what ``migrate`` makes, and
    ``migrate`` afterwards finds nothing to do.
    """
    target = parse_database_url(database_url)
    if target.backend == "postgresql":
        await _migrated_schema(database_url, target.schema)
        return
    if os.path.exists(target.location):
        return
    if not _sqlite_template:
        folder = tempfile.mkdtemp(prefix="reelhouse-template-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        path = os.path.join(folder, "template.db")
        async with open_store(f"sqlite:///{path}") as template:
            await migrate(template)
        _sqlite_template.append(path)  # closed: checkpointed into the one file, no WAL beside it
    os.makedirs(os.path.dirname(target.location), exist_ok=True)  # as open_store would
    await trio.to_thread.run_sync(shutil.copyfile, _sqlite_template[0], target.location)


async def _migrated_schema(database_url: str, schema: str | None) -> None:
    if schema is None or await trio.to_thread.run_sync(SCHEMAS.take, schema):
        return
    async with open_store(database_url) as fresh:
        await migrate(fresh)
    await trio.to_thread.run_sync(SCHEMAS.note_migrated, schema)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Store]:
    """The ``database_url`` database, open and migrated."""
    await migrated_copy(database_url)
    async with open_store(database_url) as opened:
        await migrate(opened)
        yield opened


@pytest.fixture(scope="session")
def media(tmp_path_factory: pytest.TempPathFactory) -> MediaFactory:
    """Real small videos (ffmpeg), images and text files for scan tests."""
    from .media_factory import MediaFactory

    return MediaFactory(tmp_path_factory.mktemp("media-cache"))


@pytest.fixture
def throwaway_postgres(tmp_path: Path) -> Iterator[ThrowawayPostgres]:
    """A PostgreSQL cluster of the test's own, to stop and restart (tests/throwaway_postgres.py).

    Skips without the PostgreSQL binaries, except under CI (there, fails).
    """
    with throwaway_cluster(tmp_path) as cluster:
        yield cluster
