"""API keys: ``rhk_`` + random URL-safe text; only a SHA-256 hash is stored.

The plaintext exists once, in the return value of :func:`create_api_key`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass

from ..errors import Invalid
from ._store import Row, Store, now_ms

KEY_PREFIX = "rhk_"
KEY_RANDOM_BYTES = 32  # token_urlsafe(32): 43 characters
NAME_MAX_LENGTH = 100

_COLUMNS = "id, name, created_at, revoked_at, last_used_at"


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    id: str
    name: str
    created_at_ms: int
    revoked_at_ms: int | None
    last_used_at_ms: int | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at_ms is not None


def hash_key(plaintext: str) -> str:
    """The stored form of a key: SHA-256, hex."""
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


async def create_api_key(store: Store, name: str) -> tuple[ApiKeyRecord, str]:
    """Create a key named ``name``; returns its record and the plaintext key.

    Raises Invalid for an empty or overlong name, StoreError on failure.
    """
    name = name.strip()
    if not name or len(name) > NAME_MAX_LENGTH:
        raise Invalid(f"an API key name has 1 to {NAME_MAX_LENGTH} characters", field="name")
    plaintext = KEY_PREFIX + secrets.token_urlsafe(KEY_RANDOM_BYTES)
    result = await store.execute(
        f"INSERT INTO api_keys (id, name, key_hash, created_at) VALUES (?, ?, ?, ?) RETURNING {_COLUMNS}",
        (uuid.uuid4().hex, name, hash_key(plaintext), now_ms()),
    )
    return _record(result.rows[0]), plaintext


async def list_api_keys(store: Store) -> list[ApiKeyRecord]:
    """Every key, revoked ones included, oldest first."""
    rows = await store.fetch_all(f"SELECT {_COLUMNS} FROM api_keys ORDER BY created_at, id")
    return [_record(row) for row in rows]


async def revoke_api_key(store: Store, key_id: str) -> bool:
    """Revoke a key; False when no active key has that id (unknown or already revoked).

    A running server notices the commit on its next request, from whichever
    process it comes (:mod:`.verified_keys`).
    """
    result = await store.execute(
        "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (now_ms(), key_id)
    )
    return result.rowcount > 0


async def find_active_key_by_hash(store: Store, wanted: str) -> ApiKeyRecord | None:
    """The unrevoked key whose hash (:func:`hash_key`) is ``wanted``, else None."""
    row = await store.fetch_one(
        f"SELECT {_COLUMNS}, key_hash FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL", (wanted,)
    )
    if row is None or not hmac.compare_digest(row["key_hash"], wanted):
        return None
    return _record(row)


def _record(row: Row) -> ApiKeyRecord:
    return ApiKeyRecord(
        id=row["id"],
        name=row["name"],
        created_at_ms=row["created_at"],
        revoked_at_ms=row["revoked_at"],
        last_used_at_ms=row["last_used_at"],
    )
