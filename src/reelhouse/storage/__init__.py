"""Storage: the Store (SQLite or PostgreSQL), migrations, and SQL per aggregate.

Open a store with :func:`open_store`, bring its schema up to date with
:func:`migrate`; the repositories (``apikeys``, ``members``, ``events``,
``activity``, ``scans``) are plain async functions taking a Store.
"""

from ._migrations import applied_versions, migrate
from ._open import open_store, parse_database_url
from ._read_lane import background_reads
from ._sqlite_bulk import prepared_for_sqlite
from ._store import (
    Backend,
    IntegrityError,
    Params,
    PoolUsage,
    Row,
    Statement,
    Store,
    StoreError,
    StoreFull,
    StoreOpenError,
    StoreUnavailable,
    WriteResult,
    as_dict,
    failure_summary,
    now_ms,
    root_cause,
)

__all__ = [
    "Backend",
    "IntegrityError",
    "Params",
    "PoolUsage",
    "Row",
    "Statement",
    "Store",
    "StoreError",
    "StoreFull",
    "StoreOpenError",
    "StoreUnavailable",
    "WriteResult",
    "applied_versions",
    "as_dict",
    "background_reads",
    "failure_summary",
    "migrate",
    "now_ms",
    "open_store",
    "parse_database_url",
    "prepared_for_sqlite",
    "root_cause",
]
