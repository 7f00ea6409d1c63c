"""Members: names unique case-insensitively; passwords and PINs stored as argon2id hashes.

The public face of password hashing is here: :func:`hash_password`,
:func:`verify_password`, :func:`needs_rehash`, :func:`verify_dummy` and
:func:`rehash_if_needed`. Hashing is deliberately slow, so it runs in
worker threads, two at a time. Hashes of the earlier ``scrypt$`` format
still verify; a sign-in that verified one stores an argon2id hash instead.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import trio
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ...errors import Conflict, Invalid
from .._store import IntegrityError, Row, Store, StoreError, now_ms

log = logging.getLogger(__name__)

NAME_MAX_LENGTH = 64
# OWASP's first argon2id configuration (19 MiB, 2 passes, 1 lane): about as
# long as the scrypt before it (40-50 ms here). A change of these makes
# every stored hash "need a rehash": each member's next sign-in upgrades it.
ARGON2_MEMORY_KIB = 19 * 1024
ARGON2_TIME_COST = 2
ARGON2_PARALLELISM = 1

_COLUMNS = (
    "id, name, is_admin, password_hash, pin_hash, disabled, hidden, policy, avatar_tag, created_at, last_login_at"
)
_HASHER = PasswordHasher(time_cost=ARGON2_TIME_COST, memory_cost=ARGON2_MEMORY_KIB, parallelism=ARGON2_PARALLELISM)
_HASHING = trio.CapacityLimiter(2)  # each hash is CPU and memory heavy (19 MiB)
# Verified where a member has no hash (an unknown name): the same parameters
# as a real hash, so it costs the same; an all-zero digest matches no secret.
_DUMMY_HASH = "$".join([
    "", "argon2id", "v=19", f"m={ARGON2_MEMORY_KIB},t={ARGON2_TIME_COST},p={ARGON2_PARALLELISM}",
    base64.b64encode(bytes(16)).decode().rstrip("="), base64.b64encode(bytes(32)).decode().rstrip("="),
])  # fmt: skip
_SECRET_COLUMNS = {"password": "password_hash", "pin": "pin_hash"}


@dataclass(frozen=True, slots=True)
class UserRecord:
    id: str
    name: str
    is_admin: bool
    has_password: bool
    has_pin: bool
    disabled: bool
    hidden: bool
    policy: Mapping[str, Any]
    avatar_tag: str | None
    created_at_ms: int
    last_login_at_ms: int | None


async def hash_password(secret: str) -> str:
    """An argon2id hash (PHC string) of a password or PIN, made in a worker thread."""
    return await trio.to_thread.run_sync(_HASHER.hash, secret, limiter=_HASHING)


async def verify_password(stored: str, secret: str) -> bool:
    """Whether ``secret`` matches ``stored`` (argon2, or the earlier ``scrypt$``), in a worker
    thread; False for a malformed hash."""
    return await trio.to_thread.run_sync(_verify, stored, secret, limiter=_HASHING)


async def verify_dummy(secret: str) -> None:
    """The work of one :func:`verify_password`, where there is no hash to check
    (an unknown name): the time a sign-in takes does not tell which names exist."""
    await trio.to_thread.run_sync(_verify, _DUMMY_HASH, secret, limiter=_HASHING)


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` is of an earlier format or other parameters than a new hash's."""
    if not stored.startswith("$argon2"):
        return True
    try:
        return _HASHER.check_needs_rehash(stored)
    except InvalidHashError:
        return True


async def rehash_if_needed(store: Store, user_id: str, kind: Literal["password", "pin"], stored: str,
                           secret: str) -> None:
    """After ``secret`` verified against ``stored``: store a current hash of it if
    :func:`needs_rehash`. Only if the hash is still ``stored`` (a change made
    meanwhile wins); a failed write is logged, and tried at the next sign-in."""
    if not needs_rehash(stored):
        return
    column = _SECRET_COLUMNS[kind]
    fresh = await hash_password(secret)
    try:
        await store.execute(f"UPDATE users SET {column} = ? WHERE id = ? AND {column} = ?", (fresh, user_id, stored))
    except StoreError:
        log.warning("could not store the new %s hash of member %s", kind, user_id, exc_info=True)


def _verify(stored: str, secret: str) -> bool:
    if stored.startswith("scrypt$"):
        return _verify_scrypt(stored, secret)
    try:
        return _HASHER.verify(stored, secret)
    except (VerificationError, InvalidHashError):
        return False


def _verify_scrypt(stored: str, secret: str) -> bool:
    """The earlier format, ``scrypt$N$r$p$salt$hash`` (base64 parts); only verified, never made."""
    try:
        _scheme, n, r, p, salt, digest = stored.split("$")
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(secret.encode("utf-8"), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                                dklen=len(expected), maxmem=64 * 1024 * 1024)
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)


async def add_user(store: Store, name: str, *, is_admin: bool, password: str | None) -> UserRecord:
    """Add a member; ``password`` None means the member has none.

    Raises Invalid for an empty or overlong name, Conflict when the name is
    taken (case-insensitively), StoreError on failure.
    """
    name = _valid_name(name)
    password_hash = None
    if password is not None:
        password_hash = await hash_password(password)
    try:
        result = await store.execute(
            f"INSERT INTO users (id, name, name_key, is_admin, password_hash, created_at)"
            f" VALUES (?, ?, ?, ?, ?, ?) RETURNING {_COLUMNS}",
            (uuid.uuid4().hex, name, name.casefold(), int(is_admin), password_hash, now_ms()),
        )
    except IntegrityError:
        raise Conflict(f"a member named {name!r} already exists", params={"field": "name"}) from None
    return _record(result.rows[0])


async def list_users(store: Store) -> list[UserRecord]:
    """Every member, by name."""
    rows = await store.fetch_all(f"SELECT {_COLUMNS} FROM users ORDER BY name_key, id")
    return [_record(row) for row in rows]


async def get_user(store: Store, user_id: str) -> UserRecord | None:
    row = await store.fetch_one(f"SELECT {_COLUMNS} FROM users WHERE id = ?", (user_id,))
    return None if row is None else _record(row)


async def find_user_by_name(store: Store, name: str) -> UserRecord | None:
    """The member with this name, compared case-insensitively."""
    row = await store.fetch_one(f"SELECT {_COLUMNS} FROM users WHERE name_key = ?", (name.strip().casefold(),))
    return None if row is None else _record(row)


def _valid_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > NAME_MAX_LENGTH:
        raise Invalid(f"a member name has 1 to {NAME_MAX_LENGTH} characters", field="name")
    return name


def _record(row: Row) -> UserRecord:
    return UserRecord(
        id=row["id"],
        name=row["name"],
        is_admin=bool(row["is_admin"]),
        has_password=row["password_hash"] is not None,
        has_pin=row["pin_hash"] is not None,
        disabled=bool(row["disabled"]),
        hidden=bool(row["hidden"]),
        policy=json.loads(row["policy"]),
        avatar_tag=row["avatar_tag"],
        created_at_ms=row["created_at"],
        last_login_at_ms=row["last_login_at"],
    )
