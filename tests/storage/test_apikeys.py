"""API keys: created once in plaintext, stored hashed, found until revoked."""

from __future__ import annotations

import pytest
import trio

from reelhouse.errors import Invalid
from reelhouse.storage import Store
from reelhouse.storage.apikeys import ApiKeyRecord, create_api_key, list_api_keys, revoke_api_key
from reelhouse.storage.verified_keys import VerifiedKeys

LIMIT_S = 20


async def find_active_key(store: Store, plaintext: str) -> ApiKeyRecord | None:
    """How the server finds a key: the edge's VerifiedKeys."""
    return await VerifiedKeys(store).find(plaintext)


async def test_a_created_key_is_found_by_its_plaintext(store) -> None:
    with trio.fail_after(LIMIT_S):
        record, plaintext = await create_api_key(store, "  backup script ")
        assert plaintext.startswith("rhk_") and len(plaintext) >= 4 + 32
        assert record.name == "backup script" and not record.revoked
        assert await find_active_key(store, plaintext) == record


async def test_only_a_hash_of_the_key_is_stored(store) -> None:
    with trio.fail_after(LIMIT_S):
        _, plaintext = await create_api_key(store, "ci")
        row = await store.fetch_one("SELECT * FROM api_keys")
        assert plaintext not in [str(value) for value in dict(row).values()]


async def test_a_wrong_or_unknown_key_is_not_found(store) -> None:
    with trio.fail_after(LIMIT_S):
        _, plaintext = await create_api_key(store, "ci")
        assert await find_active_key(store, plaintext + "x") is None
        assert await find_active_key(store, "not-a-key") is None


async def test_a_revoked_key_is_not_found_and_stays_listed(store) -> None:
    with trio.fail_after(LIMIT_S):
        record, plaintext = await create_api_key(store, "old")
        kept, _ = await create_api_key(store, "kept")
        assert await revoke_api_key(store, record.id)
        assert await find_active_key(store, plaintext) is None
        assert not await revoke_api_key(store, record.id)  # already revoked
        assert not await revoke_api_key(store, "no-such-id")
        listed = {key.id: key.revoked for key in await list_api_keys(store)}
        assert listed == {record.id: True, kept.id: False}


async def test_a_key_needs_a_name(store) -> None:
    with trio.fail_after(LIMIT_S), pytest.raises(Invalid):
        await create_api_key(store, "   ")
