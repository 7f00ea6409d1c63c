"""Device tokens this server verified recently, and when each was last used.

A device token is checked on every player request; asking the database
each time would make a player request dearer than an API-key request.
This mirrors :class:`.verified_keys.VerifiedKeys`: a sign-in found valid is
remembered by its token hash while

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
:meth:`flush` writes every noted time in one transaction, every
:data:`FLUSH_SECONDS` (:meth:`run_flusher`), before a device list is read,
and at shutdown.  Used from the Trio thread only.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

import trio
from cachetools import LRUCache

from ._store import Store, StoreError, now_ms
from .devices import DeviceSignIn, find_sign_in, hash_token, note_seen

FLUSH_SECONDS = 60.0
MAX_SIGN_INS = 10_000

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Verified:
    sign_in: DeviceSignIn
    data_version: int


class VerifiedDevices:
    """:meth:`find` with a memory of recent answers and of last use (module doc)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._remembers = store.backend == "sqlite"  # its data version sees every process's commits
        self._known: LRUCache[str, _Verified] = LRUCache(MAX_SIGN_INS)
        self._seen: dict[str, tuple[str, int]] = {}
        self._forgotten = 0  # bumps on every forget: a read that raced one is not kept

    async def find(self, token: str) -> DeviceSignIn | None:
        """The enabled member's sign-in this token stands for, else None; raises StoreError."""
        sign_in = await self._lookup(token)
        if sign_in is None or sign_in.disabled:
            return None
        self._seen[sign_in.token_hash] = (sign_in.device_id, now_ms())
        return sign_in

    def forget(self, token_hashes: Iterable[str]) -> None:
        """Drop these sign-ins (revoked in this process): their next request asks the database."""
        self._forgotten += 1
        for token_hash in token_hashes:
            self._known.pop(token_hash, None)
            self._seen.pop(token_hash, None)

    def forget_all(self) -> None:
        """Drop every remembered sign-in (grants changed in this process); last-use times are kept."""
        self._forgotten += 1
        self._known.clear()

    async def flush(self) -> None:
        """Write the last-seen times noted since the previous flush."""
        seen, self._seen = self._seen, {}
        try:
            await note_seen(self._store, seen)
        except StoreError:
            for token_hash, value in seen.items():  # kept for the next flush
                self._seen.setdefault(token_hash, value)
            raise

    async def run_flusher(self) -> None:
        """Flush every FLUSH_SECONDS until cancelled; a failed flush is logged and retried."""
        while True:
            await trio.sleep(FLUSH_SECONDS)
            try:
                await self.flush()
            except StoreError as exc:
                log.warning("could not record device last-seen times: %s", exc)

    async def _lookup(self, token: str) -> DeviceSignIn | None:
        if not self._remembers:
            return await find_sign_in(self._store, token)
        wanted = hash_token(token)
        before, forgotten = self._store.data_version(), self._forgotten
        known = self._known.get(wanted)
        if known is not None and known.data_version == before:
            return known.sign_in
        sign_in = await find_sign_in(self._store, token)
        self._known.pop(wanted, None)
        if sign_in is not None and self._store.data_version() == before and self._forgotten == forgotten:
            self._known[wanted] = _Verified(sign_in, before)
        return sign_in
