"""Answers read from the store, remembered while no write has committed since.

:class:`VersionedMemory` keeps what a lookup found together with the
store's :meth:`~reelhouse.storage.Store.data_version` read before the
lookup, and keeps it only if the version had not moved by the time the
lookup returned: a write that committed meanwhile might have changed the
answer.  A remembered answer is given while the version still holds, so
any commit (this process's or, on SQLite, another's) makes the next ask
read the store again.  :meth:`forget` drops answers this process knows
changed; a lookup racing a forget is not kept.

On PostgreSQL the data version sees this process's writes only, while the
writers that matter (the command line) may be other processes: nothing is
remembered there, and every ask reads the store.  Only found answers
(not None) are kept, at most ``maxsize``, least recently used out.  Used
from the Trio thread only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import Generic, TypeVar

from cachetools import LRUCache

from ._store import Store

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class VersionedMemory(Generic[K, V]):
    """:meth:`find` answers by key, remembered as the module doc says."""

    def __init__(self, store: Store, maxsize: int) -> None:
        self._store = store
        self._remembers = store.backend == "sqlite"  # its data version sees every process's commits
        self._answers: LRUCache[K, tuple[V, int]] = LRUCache(maxsize)
        self._forgotten = 0  # moves on every forget

    async def find(self, key: K, lookup: Callable[[], Awaitable[V | None]], *, version: int | None = None) -> V | None:
        """The remembered answer for ``key`` while it holds, else ``await lookup()``.

        ``version``: the data version the caller read already (a request reads
        it once for every memory it asks: on SQLite a read of it costs a
        shared-memory lock, two ``fcntl`` calls); an answer is then given as of
        that version, never one remembered from before it.
        """
        if not self._remembers:
            return await lookup()
        before = self._store.data_version() if version is None else version
        forgotten = self._forgotten
        known = self._answers.get(key)
        if known is not None and known[1] == before:
            return known[0]
        self._answers.pop(key, None)
        answer = await lookup()
        if answer is not None and self._store.data_version() == before and self._forgotten == forgotten:
            self._answers[key] = (answer, before)
        return answer

    def forget(self, keys: Iterable[K]) -> None:
        self._forgotten += 1
        for key in keys:
            self._answers.pop(key, None)

    def forget_all(self) -> None:
        self._forgotten += 1
        self._answers.clear()
