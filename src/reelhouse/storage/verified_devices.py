"""Device tokens this server verified recently, and when each was last used.

A device token is checked on every player request; asking the database
each time would make a player request dearer than an API-key request.
Like :class:`.verified_keys.VerifiedKeys`, a sign-in found valid is
remembered by its token hash (:class:`.versioned_memory.VersionedMemory`) while

- the store's :meth:`~reelhouse.storage.Store.data_version` has not moved
  since it was read (any commit moves it on SQLite, the command line's
  `user set` included, so a member disabled or given other libraries is
  seen on the next request), and
- this process has not forgotten it: ``DELETE /devices/{id}`` and logout
  call :meth:`forget` after their commit, so a revoked token fails on its
  very next request; a library created with ``accessUserIds`` calls
  :meth:`forget_all`, so its members see it on their next request.

On PostgreSQL, whose data version does not see other processes' commits,
nothing is remembered.

Use is not written per request: :meth:`find` notes the time in memory and
:meth:`flush` writes every noted time in one transaction; the actor tree's
DeviceUse (``actors/device_use.py``) decides when: every minute, before a
device list is read, and at shutdown.  Used from the Trio thread only.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._store import Store, StoreError, now_ms
from .devices import DeviceSignIn, find_sign_in, hash_token, note_seen
from .versioned_memory import VersionedMemory

MAX_SIGN_INS = 10_000


class VerifiedDevices:
    """:meth:`find` with a memory of recent answers and of last use (module doc)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._known: VersionedMemory[str, DeviceSignIn] = VersionedMemory(store, MAX_SIGN_INS)
        self._seen: dict[str, tuple[str, int]] = {}

    async def find(self, token: str, *, version: int | None = None) -> DeviceSignIn | None:
        """The enabled member's sign-in this token stands for, else None; raises StoreError.
        ``version``: the store's data version the caller read (:meth:`VersionedMemory.find`)."""
        sign_in = await self._lookup(token, version)
        if sign_in is None or sign_in.disabled:
            return None
        self._seen[sign_in.token_hash] = (sign_in.device_id, now_ms())
        return sign_in

    def forget(self, token_hashes: Iterable[str]) -> None:
        """Drop these sign-ins (revoked in this process): their next request asks the database."""
        token_hashes = list(token_hashes)
        self._known.forget(token_hashes)
        for token_hash in token_hashes:
            self._seen.pop(token_hash, None)

    def forget_all(self) -> None:
        """Drop every remembered sign-in (grants changed in this process); last-use times are kept."""
        self._known.forget_all()

    async def flush(self) -> None:
        """Write the last-seen times noted since the previous flush."""
        seen, self._seen = self._seen, {}
        try:
            await note_seen(self._store, seen)
        except StoreError:
            for token_hash, value in seen.items():  # kept for the next flush
                self._seen.setdefault(token_hash, value)
            raise

    async def _lookup(self, token: str, version: int | None) -> DeviceSignIn | None:
        return await self._known.find(hash_token(token), lambda: find_sign_in(self._store, token), version=version)
