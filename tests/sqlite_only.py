"""The backend of a module whose subject no SQL reaches: SQLite only.

A module that tests a protocol's framing, the connection layer, or a
published client's or a browser's journey over answers other modules
prove imports ``sqlite_only_backend`` (the module's ``backend``): a second
run on PostgreSQL would go through the same code again. The PostgreSQL
store is proven by the storage tests and by the HTTP modules whose answers
come from queries, which keep both backends. Not a conftest fixture: only
the modules that import it are narrowed.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module", name="backend")
def sqlite_only_backend() -> str:
    return "sqlite"
