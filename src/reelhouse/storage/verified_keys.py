"""API keys this server verified recently, so most requests need no trip to the database.

Every request carries a key, and asking the database costs a hand-over to
a reader thread, a third of what the cheapest request costs in all.  A key
found active is remembered by its hash and used again while both hold:

- the store's key revision counter (:mod:`._key_revision`) has not moved
  since the key was read: every revocation, from any process, moves it, so
  a revoked key fails on its very next request;
- it was read less than :data:`RECHECK_SECONDS` ago: a revoker killed
  between its commit and its announcement is noticed then.

Without a revision file (PostgreSQL, or a file that cannot be opened)
nothing is remembered and every request asks the database.  Only keys
found active are kept, at most :data:`MAX_KEYS` (a flood of wrong keys
cannot grow it); past that the oldest goes.  Used from the Trio thread only.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from ._store import Store
from .apikeys import KEY_PREFIX, ApiKeyRecord, find_active_key_by_hash, hash_key

RECHECK_SECONDS = 30.0
MAX_KEYS = 1_000


@dataclass(frozen=True, slots=True)
class _Verified:
    record: ApiKeyRecord
    revision: int
    read_at: float


class VerifiedKeys:
    """:meth:`find` with a memory of recent answers (see the module doc)."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._clock = clock
        self._keys: OrderedDict[str, _Verified] = OrderedDict()

    async def find(self, plaintext: str) -> ApiKeyRecord | None:
        """The unrevoked key whose plaintext this is, else None; raises StoreError."""
        if not plaintext.startswith(KEY_PREFIX):
            return None
        wanted = hash_key(plaintext)
        revision = self._store.key_revision
        if revision is None:
            return await find_active_key_by_hash(self._store, wanted)
        before = revision.current()
        known = self._keys.get(wanted)
        if known is not None and known.revision == before and self._clock() - known.read_at < RECHECK_SECONDS:
            return known.record
        read_at = self._clock()
        record = await find_active_key_by_hash(self._store, wanted)
        self._keys.pop(wanted, None)
        if record is not None and revision.current() == before:
            self._keys[wanted] = _Verified(record, before, read_at)
            if len(self._keys) > MAX_KEYS:
                self._keys.popitem(last=False)
        return record
