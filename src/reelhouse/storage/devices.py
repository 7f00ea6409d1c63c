"""Devices and their sign-ins (device tokens).

A device token is ``rhd_`` and 43 random URL-safe characters (256 bits),
shown once, to the player that signed in.  Only its SHA-256 is stored: the
token is random, not a password, so a fast hash is enough to make the
stored value useless to whoever reads the database.  A Device row merges
the sign-ins that share a client-supplied device id; its public ``id`` is
another, domain-separated SHA-256 of the token that created the row, so it
can be shown to administrators without revealing or matching any token
hash.  A row lives while it has sign-ins: the last logout removes it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from ._store import Statement, Store

TOKEN_PREFIX = "rhd_"
PLAYER = "player"
WEB = "web"  # a browser's sign-in with a cookie (the web console)
KINDS = frozenset({PLAYER, WEB})
FIELD_MAX = 128  # client, device name, version and device id are cut to this


@dataclass(frozen=True, slots=True)
class SignInRequest:
    user_id: str
    device_key: str | None
    device_name: str
    client: str
    version: str | None
    kind: str = PLAYER  # one of KINDS: the Device row's `kind`


@dataclass(frozen=True, slots=True)
class DeviceSignIn:
    """What a verified device token stands for."""

    token_hash: str
    device_id: str
    user_id: str
    user_name: str
    is_admin: bool
    disabled: bool
    policy: Mapping[str, object]
    granted_libraries: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DeviceUser:
    id: str
    name: str
    disabled: bool
    last_seen_ms: int


@dataclass(frozen=True, slots=True)
class DeviceRecord:
    id: str
    client: str
    name: str
    kind: str
    version: str | None
    last_seen_ms: int
    login_count: int
    users: tuple[DeviceUser, ...]  # most recently active first
    played: bool = True  # a playback of this device is in the history (a web sign-in that never played counts not)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def device_id_of(token: str) -> str:
    return hashlib.sha256(b"reelhouse-device-id\0" + token.encode("utf-8")).hexdigest()[:32]


async def sign_in(store: Store, request: SignInRequest, now: int) -> tuple[str, str]:
    """A new token for ``request`` and the id of the Device row it joined (or created)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token_hash = hash_token(token)
    new_id = device_id_of(token)
    kind = request.kind if request.kind in KINDS else PLAYER
    values = (request.client[:FIELD_MAX], request.device_name[:FIELD_MAX], kind, _cut(request.version))
    key = _cut(request.device_key)
    # A second sign-in with a known device id joins that row (ON CONFLICT); NULL keys never conflict.
    upsert = Statement(
        "INSERT INTO devices (id, device_key, client, name, kind, version, user_id, created_at, last_seen)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (device_key) DO UPDATE SET"
        " client = excluded.client, name = excluded.name, version = excluded.version,"
        " user_id = excluded.user_id, last_seen = excluded.last_seen, login_count = devices.login_count + 1"
        " RETURNING id",
        (new_id, key, *values, request.user_id, now, now),
    )
    token_row = Statement(
        "INSERT INTO device_tokens (token_hash, device_id, user_id, created_at, last_seen)"
        " SELECT ?, id, ?, ?, ? FROM devices WHERE id = ? OR device_key = ?",
        (token_hash, request.user_id, now, now, new_id, key),
    )
    results = await store.transaction([upsert, token_row])
    return token, str(results[0].rows[0]["id"])


async def find_sign_in(store: Store, token: str) -> DeviceSignIn | None:
    """The sign-in this token stands for, else None; one query."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    wanted = hash_token(token)
    # One statement (one row per library granted, at least one): as cheap as an API key's lookup.
    rows = await store.fetch_all(
        "SELECT t.token_hash, t.device_id, t.user_id, u.name, u.is_admin, u.disabled, u.policy, a.library_id"
        " FROM device_tokens t JOIN users u ON u.id = t.user_id"
        " LEFT JOIN library_access a ON a.user_id = t.user_id WHERE t.token_hash = ?",
        (wanted,),
    )
    if not rows or not hmac.compare_digest(rows[0]["token_hash"], wanted):
        return None
    row = rows[0]
    return DeviceSignIn(
        token_hash=wanted,
        device_id=row["device_id"],
        user_id=row["user_id"],
        user_name=row["name"],
        is_admin=bool(row["is_admin"]),
        disabled=bool(row["disabled"]),
        policy=json.loads(row["policy"]),
        granted_libraries=tuple(sorted(r["library_id"] for r in rows if r["library_id"] is not None)),
    )


async def sign_out(store: Store, token_hash: str) -> bool:
    """End one sign-in; its device row goes with its last sign-in."""
    results = await store.transaction(
        [
            Statement("DELETE FROM device_tokens WHERE token_hash = ? RETURNING device_id", (token_hash,)),
            Statement(
                "DELETE FROM devices WHERE NOT EXISTS (SELECT 1 FROM device_tokens t WHERE t.device_id = devices.id)"
            ),
        ]
    )
    return results[0].rowcount > 0


async def delete_device(store: Store, device_id: str) -> list[str] | None:
    """Delete a device and every sign-in merged into it: their token hashes; None when there is no such device."""
    results = await store.transaction(
        [
            Statement("DELETE FROM device_tokens WHERE device_id = ? RETURNING token_hash", (device_id,)),
            Statement("DELETE FROM devices WHERE id = ? RETURNING id", (device_id,)),
        ]
    )
    if not results[1].rows:
        return None
    return [row["token_hash"] for row in results[0].rows]


async def list_devices(store: Store) -> list[DeviceRecord]:
    """Every device, most recently seen first."""
    devices, users = await store.fetch_each(
        [
            (
                "SELECT d.id, d.client, d.name, d.kind, d.version, d.last_seen,"
                " (SELECT COUNT(*) FROM device_tokens t WHERE t.device_id = d.id) AS login_count,"
                " EXISTS (SELECT 1 FROM play_history h WHERE h.device_id = d.id) AS played"
                " FROM devices d ORDER BY d.last_seen DESC, d.id",
                (),
            ),
            (
                "SELECT t.device_id, t.user_id, u.name, u.disabled, MAX(t.last_seen) AS last_seen"
                " FROM device_tokens t JOIN users u ON u.id = t.user_id"
                " GROUP BY t.device_id, t.user_id, u.name, u.disabled ORDER BY last_seen DESC, t.user_id",
                (),
            ),
        ]
    )
    by_device: dict[str, list[DeviceUser]] = {}
    for row in users:
        user = DeviceUser(row["user_id"], row["name"], bool(row["disabled"]), int(row["last_seen"]))
        by_device.setdefault(row["device_id"], []).append(user)
    return [
        DeviceRecord(
            id=row["id"],
            client=row["client"],
            name=row["name"],
            kind=row["kind"],
            version=row["version"],
            last_seen_ms=int(row["last_seen"]),
            login_count=int(row["login_count"]),
            users=tuple(by_device.get(row["id"], ())),
            played=bool(row["played"]),
        )
        for row in devices
        if by_device.get(row["id"])
    ]


async def note_seen(store: Store, seen: Mapping[str, tuple[str, int]]) -> None:
    """Write last-seen times gathered in memory: token hash -> (device id, epoch ms). Never moves one back."""
    if not seen:
        return
    latest: dict[str, int] = {}
    for device_id, at in seen.values():
        latest[device_id] = max(at, latest.get(device_id, 0))
    await store.transaction(
        [
            Statement(
                "UPDATE device_tokens SET last_seen = ? WHERE token_hash = ? AND last_seen < ?",
                many=[(at, token_hash, at) for token_hash, (_device, at) in seen.items()],
            ),
            Statement(
                "UPDATE devices SET last_seen = ? WHERE id = ? AND last_seen < ?",
                many=[(at, device_id, at) for device_id, at in latest.items()],
            ),
        ]
    )


def _cut(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    return value.strip()[:FIELD_MAX]
