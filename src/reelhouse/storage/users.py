"""Members: names unique case-insensitively, passwords stored as scrypt hashes.

Hashing is deliberately slow, so it runs in a worker thread.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import trio

from ..errors import Conflict, Invalid
from ._store import IntegrityError, Row, Store, now_ms

NAME_MAX_LENGTH = 64
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT_SALT_BYTES = 16
SCRYPT_KEY_BYTES = 32

_COLUMNS = (
    "id, name, is_admin, password_hash, pin_hash, disabled, hidden, policy, avatar_tag, created_at, last_login_at"
)
_HASHING = trio.CapacityLimiter(2)  # scrypt is CPU and memory heavy (16 MiB each)


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


def hash_password(password: str) -> str:
    """``scrypt$N$r$p$salt$hash`` (base64 parts) for ``password``; CPU-bound."""
    salt = secrets.token_bytes(SCRYPT_SALT_BYTES)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def check_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches the ``stored`` hash; False for a malformed hash. CPU-bound."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p))
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
        password_hash = await trio.to_thread.run_sync(hash_password, password, limiter=_HASHING)
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


async def authenticate(store: Store, name: str, password: str) -> UserRecord | None:
    """The enabled member ``name`` if ``password`` is theirs, else None."""
    row = await store.fetch_one(f"SELECT {_COLUMNS} FROM users WHERE name_key = ?", (name.strip().casefold(),))
    if row is None or row["disabled"] or row["password_hash"] is None:
        return None
    ok = await trio.to_thread.run_sync(check_password, row["password_hash"], password, limiter=_HASHING)
    return _record(row) if ok else None


def _valid_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > NAME_MAX_LENGTH:
        raise Invalid(f"a member name has 1 to {NAME_MAX_LENGTH} characters", field="name")
    return name


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=SCRYPT_KEY_BYTES)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


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
