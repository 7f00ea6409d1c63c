"""Verified API keys: remembered on SQLite until a write commits, asked for every time on PostgreSQL."""

from __future__ import annotations

import trio

from reelhouse.storage import open_store
from reelhouse.storage.apikeys import create_api_key, revoke_api_key
from reelhouse.storage.verified_keys import VerifiedKeys

from .counting_reads import CountingReads

LIMIT_S = 20


async def test_a_key_revoked_by_another_process_fails_at_once(database_url: str, store) -> None:
    verified = VerifiedKeys(store)
    with trio.fail_after(LIMIT_S):
        record, plaintext = await create_api_key(store, "script")
        assert await verified.find(plaintext) == record
        assert await verified.find(plaintext) == record
        async with open_store(database_url) as command_line:  # as `reelhouse apikey revoke` does
            assert await revoke_api_key(command_line, record.id)
        assert await verified.find(plaintext) is None


async def test_a_verified_key_is_remembered_on_sqlite_until_a_write_commits(store) -> None:
    """SQLite's data version sees every process's commits; PostgreSQL's does not, so there it asks every time."""
    reads = CountingReads(store)
    verified = VerifiedKeys(reads)  # type: ignore[arg-type]
    with trio.fail_after(LIMIT_S):
        record, plaintext = await create_api_key(store, "script")
        for _ in range(3):
            assert await verified.find(plaintext) == record
        assert reads.reads == (1 if store.backend == "sqlite" else 3)
        await store.execute("DELETE FROM api_keys WHERE id = ?", (record.id,))  # not through revoke_api_key
        assert await verified.find(plaintext) is None


async def test_wrong_keys_are_not_found_and_not_remembered(store) -> None:
    verified = VerifiedKeys(store)
    with trio.fail_after(LIMIT_S):
        _, plaintext = await create_api_key(store, "script")
        assert await verified.find(plaintext + "x") is None
        assert await verified.find("not-a-key") is None
        assert await verified.find(plaintext) is not None
