"""Members: unique names regardless of case, hashed passwords."""

from __future__ import annotations

import pytest
import trio

from reelhouse.errors import Conflict, Invalid
from reelhouse.storage.members import _accounts as users
from reelhouse.storage.members import (
    add_user,
    credentials_by_name,
    find_user_by_name,
    get_user,
    hash_password,
    list_users,
    needs_rehash,
    verify_dummy,
    verify_password,
)

from .password_samples import scrypt_hash

LIMIT_S = 20


async def test_an_added_member_is_listed_and_found(store) -> None:
    with trio.fail_after(LIMIT_S):
        alice = await add_user(store, "Alice", is_admin=True, password=None)
        bob = await add_user(store, "bob", is_admin=False, password=None)
        assert (alice.is_admin, alice.has_password, alice.disabled) == (True, False, False)
        assert [user.name for user in await list_users(store)] == ["Alice", "bob"]
        assert await get_user(store, bob.id) == bob
        assert await get_user(store, "nobody") is None
        assert await find_user_by_name(store, "ALICE") == alice


async def test_a_taken_name_in_any_case_is_a_conflict(store) -> None:
    with trio.fail_after(LIMIT_S):
        await add_user(store, "Alice", is_admin=False, password=None)
        with pytest.raises(Conflict):
            await add_user(store, "aLICE", is_admin=False, password=None)
        assert len(await list_users(store)) == 1


async def test_a_password_is_stored_as_an_argon2id_hash_and_verifies(store) -> None:
    with trio.fail_after(LIMIT_S):
        carol = await add_user(store, "carol", is_admin=False, password="correct horse")
        creds = await credentials_by_name(store, "Carol")
    assert carol.has_password and creds is not None and creds.password_hash is not None
    assert "correct horse" not in creds.password_hash and creds.password_hash.startswith("$argon2id$")
    assert not needs_rehash(creds.password_hash)
    assert await verify_password(creds.password_hash, "correct horse")
    assert not await verify_password(creds.password_hash, "wrong")


async def test_an_earlier_scrypt_hash_still_verifies_and_needs_a_rehash() -> None:
    old = scrypt_hash("correct horse")
    assert await verify_password(old, "correct horse")
    assert not await verify_password(old, "correct horsE")
    assert needs_rehash(old)
    assert needs_rehash((await hash_password("x")).replace("m=19456", "m=8192"))


@pytest.mark.parametrize("stored", ["", "scrypt$", "scrypt$1$2$3$!!$!!", "$argon2id$v=19$garbage", "plain text"])
async def test_a_malformed_hash_verifies_nothing(stored: str) -> None:
    assert not await verify_password(stored, "anything")
    assert needs_rehash(stored)


async def test_the_dummy_hash_is_well_formed_with_the_current_parameters_so_it_costs_a_real_verify() -> None:
    assert not needs_rehash(users._DUMMY_HASH)  # parsed as argon2id with a new hash's parameters
    for secret in ("", "reelhouse-dummy", "x" * 1024):
        await verify_dummy(secret)


async def test_a_member_needs_a_name(store) -> None:
    with trio.fail_after(LIMIT_S), pytest.raises(Invalid):
        await add_user(store, " ", is_admin=False, password=None)
