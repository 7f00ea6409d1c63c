"""Members: unique names regardless of case, hashed passwords."""

from __future__ import annotations

import pytest
import trio

from reelhouse.errors import Conflict, Invalid
from reelhouse.storage.users import add_user, authenticate, find_user_by_name, get_user, list_users

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


async def test_a_password_is_stored_hashed_and_checks(store) -> None:
    with trio.fail_after(LIMIT_S):
        carol = await add_user(store, "carol", is_admin=False, password="correct horse")
        assert carol.has_password
        stored = await store.fetch_value("SELECT password_hash FROM users WHERE id = ?", (carol.id,))
        assert "correct horse" not in stored and stored.startswith("scrypt$")
        assert await authenticate(store, "Carol", "correct horse") == carol
        assert await authenticate(store, "carol", "wrong") is None
        assert await authenticate(store, "nobody", "correct horse") is None


async def test_a_member_without_a_password_cannot_sign_in(store) -> None:
    with trio.fail_after(LIMIT_S):
        await add_user(store, "dave", is_admin=False, password=None)
        assert await authenticate(store, "dave", "") is None


async def test_a_member_needs_a_name(store) -> None:
    with trio.fail_after(LIMIT_S), pytest.raises(Invalid):
        await add_user(store, " ", is_admin=False, password=None)
