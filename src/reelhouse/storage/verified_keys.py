"""API keys this server verified recently, so most requests need no trip to the database.

Every request carries a key, and asking the database costs a hand-over to
a reader thread, a third of what the cheapest request costs in all.  On
SQLite a key found active is remembered by its hash while the store's
:meth:`~reelhouse.storage.Store.data_version` has not moved since it was
read (:class:`~reelhouse.storage.versioned_memory.VersionedMemory`): any
commit, from this process or another (``reelhouse apikey revoke``), moves
it, so a revoked key fails on its very next request.  The revocation and
its notice are one commit: nothing can fall between them.

PostgreSQL's data version sees this process's writes only, and its
revokers may be other processes on other machines: there every request
asks the database.  Only keys found active are kept, at most
:data:`MAX_KEYS` (a flood of wrong keys cannot grow it), least recently
used out.  Used from the Trio thread only.
"""

from __future__ import annotations

from ._store import Store
from .apikeys import KEY_PREFIX, ApiKeyRecord, find_active_key_by_hash, hash_key
from .versioned_memory import VersionedMemory

MAX_KEYS = 1_000


class VerifiedKeys:
    """:meth:`find` with a memory of recent answers (see the module doc)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._keys: VersionedMemory[str, ApiKeyRecord] = VersionedMemory(store, MAX_KEYS)

    async def find(self, plaintext: str) -> ApiKeyRecord | None:
        """The unrevoked key whose plaintext this is, else None; raises StoreError."""
        if not plaintext.startswith(KEY_PREFIX):
            return None
        wanted = hash_key(plaintext)
        return await self._keys.find(wanted, lambda: find_active_key_by_hash(self._store, wanted))
