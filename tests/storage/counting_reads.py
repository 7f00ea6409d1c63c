"""A store that counts the reads reaching it (for the memories kept until a write commits)."""

from __future__ import annotations

from typing import Any


class CountingReads:
    """The store, counting the reads that reach it."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.backend = store.backend
        self.reads = 0

    def data_version(self) -> int:
        return self._store.data_version()

    async def fetch_one(self, sql: str, params: Any = ()) -> Any:
        self.reads += 1
        return await self._store.fetch_one(sql, params)

    async def fetch_all(self, sql: str, params: Any = ()) -> Any:
        self.reads += 1
        return await self._store.fetch_all(sql, params)
