"""Sign-in over real HTTP with password and PIN hashes of the earlier scrypt format, on both backends.

The tests share a server per backend, each signing in a member of its own.
"""

from __future__ import annotations

import trio

from reelhouse.storage import open_store
from reelhouse.storage.members import needs_rehash, verify_password

from ..storage.password_samples import scrypt_hash
from .conftest import RunningServer
from .members import add_member, login
from .shared_server import backend, server, shared_server  # noqa: F401  (fixtures)

PASSWORD = "correct horse battery"
CAP_S = 60


async def stored_hashes(server: RunningServer, user_id: str) -> tuple[str, str | None]:
    async with open_store(server.database_url) as store:
        row = await store.fetch_one("SELECT password_hash, pin_hash FROM users WHERE id = ?", (user_id,))
    assert row is not None
    return row["password_hash"], row["pin_hash"]


async def set_hashes(server: RunningServer, user_id: str, password_hash: str, pin_hash: str | None) -> None:
    async with open_store(server.database_url) as store:
        await store.execute("UPDATE users SET password_hash = ?, pin_hash = ? WHERE id = ?",
                            (password_hash, pin_hash, user_id))


async def test_an_old_scrypt_password_hash_still_signs_in_and_is_rehashed_to_argon2id(server: RunningServer) -> None:
    with trio.fail_after(CAP_S):
        user_id = await add_member(server, "Old", password="placeholder")
        await set_hashes(server, user_id, scrypt_hash(PASSWORD), None)
        wrong = await login(server, "Old", password="wrong")
        unchanged, _pin = await stored_hashes(server, user_id)
        first = await login(server, "old", password=PASSWORD)
        upgraded, _pin = await stored_hashes(server, user_id)
        again = await login(server, "Old", password=PASSWORD)
        after_again, _pin = await stored_hashes(server, user_id)
    assert wrong.status_code == 401 and unchanged == scrypt_hash(PASSWORD)  # a failure rewrites nothing
    assert first.status_code == 200, first.text
    assert upgraded.startswith("$argon2id$") and not needs_rehash(upgraded)
    assert await verify_password(upgraded, PASSWORD)
    assert again.status_code == 200 and after_again == upgraded  # a current hash is left as it is


async def test_an_old_scrypt_pin_hash_still_signs_in_and_is_rehashed_leaving_the_password(
    server: RunningServer,
) -> None:
    with trio.fail_after(CAP_S):
        user_id = await add_member(server, "Pip", password="placeholder", pin="1234")
        old_password = scrypt_hash(PASSWORD, salt=b"fedcba9876543210")
        await set_hashes(server, user_id, old_password, scrypt_hash("4321"))
        signed_in = await login(server, "Pip", pin="4321")
        password_hash, pin_hash = await stored_hashes(server, user_id)
    assert signed_in.status_code == 200, signed_in.text
    assert pin_hash is not None and pin_hash.startswith("$argon2id$") and await verify_password(pin_hash, "4321")
    assert password_hash == old_password  # upgraded at its own next sign-in
