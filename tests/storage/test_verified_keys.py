"""Verified API keys: remembered until a revocation is announced or the recheck time passes."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from reelhouse.storage import StoreError, migrate, open_store
from reelhouse.storage._key_revision import REVISION_SUFFIX
from reelhouse.storage.apikeys import create_api_key, find_active_key, revoke_api_key
from reelhouse.storage.verified_keys import RECHECK_SECONDS, VerifiedKeys
from tests.clock import ManualClock

LIMIT_S = 20


async def _delete_quietly(store, key_id: str) -> None:
    """Remove a key behind the cache's back: no revocation is announced."""
    await store.execute("DELETE FROM api_keys WHERE id = ?", (key_id,))


async def test_a_key_revoked_by_another_process_fails_at_once(database_url: str, store) -> None:
    verified = VerifiedKeys(store)
    with trio.fail_after(LIMIT_S):
        record, plaintext = await create_api_key(store, "script")
        assert await verified.find(plaintext) == record
        assert await verified.find(plaintext) == record
        async with open_store(database_url) as command_line:  # as `reelhouse apikey revoke` does
            assert await revoke_api_key(command_line, record.id)
        assert await verified.find(plaintext) is None


async def test_a_verified_key_is_remembered_until_rechecked_where_revocations_are_announced(store) -> None:
    """SQLite has the revision file, so the database is not asked again; PostgreSQL is asked every time."""
    clock = ManualClock()
    verified = VerifiedKeys(store, clock=clock)
    with trio.fail_after(LIMIT_S):
        record, plaintext = await create_api_key(store, "script")
        assert await verified.find(plaintext) == record
        await _delete_quietly(store, record.id)
        remembered = await verified.find(plaintext) == record
        assert remembered == (store.backend == "sqlite")
        clock.now += RECHECK_SECONDS
        assert await verified.find(plaintext) is None


async def test_wrong_keys_are_not_found_and_not_remembered(store) -> None:
    verified = VerifiedKeys(store)
    with trio.fail_after(LIMIT_S):
        _, plaintext = await create_api_key(store, "script")
        assert await verified.find(plaintext + "x") is None
        assert await verified.find("not-a-key") is None
        assert await verified.find(plaintext) is not None


async def test_revoking_without_the_revision_file_revokes_nothing(tmp_path: Path) -> None:
    database = tmp_path / "reelhouse.db"
    (tmp_path / f"reelhouse.db{REVISION_SUFFIX}").mkdir()  # the file cannot be opened
    with trio.fail_after(LIMIT_S):
        async with open_store(f"sqlite:///{database}") as store:
            await migrate(store)
            assert store.key_revision is None
            record, plaintext = await create_api_key(store, "script")
            with pytest.raises(StoreError, match="revision file"):
                await revoke_api_key(store, record.id)
            assert await find_active_key(store, plaintext) == record
            assert await VerifiedKeys(store).find(plaintext) == record  # checked in the database each time
