"""Members as the API shows them and the command line changes them.

:mod:`._accounts` adds and lists members and hashes passwords; this module
reads what a User response needs besides the row (library grants, the PIN
lock) and applies `reelhouse user set`.  No function here returns hash
material except :func:`credentials_by_name`, which the sign-in uses and
nothing renders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reelhouse.errors import Invalid, NotFound
from reelhouse.media.member_policy import ALL_LIBRARIES, PARENTAL, MemberFacts
from reelhouse.media.parental import OLDEST, parse_parental

from .. import signin_limits
from .._store import Statement, Store, now_ms
from ._accounts import _COLUMNS, UserRecord, _record, hash_password

PIN_PATTERN = re.compile(r"[0-9]{4,8}")
SESSION_ONLY_LOGIN = "sessionOnlyLogin"


@dataclass(frozen=True, slots=True)
class MemberView:
    """One member with what its User response needs beyond the row."""

    user: UserRecord
    granted_libraries: tuple[str, ...]
    pin_locked: bool

    @property
    def facts(self) -> MemberFacts:
        u = self.user
        return MemberFacts(u.is_admin, u.disabled, u.hidden, u.policy, self.granted_libraries)


@dataclass(frozen=True, slots=True)
class Credentials:
    """A member and the hashes a sign-in compares against (never rendered)."""

    user: UserRecord
    password_hash: str | None
    pin_hash: str | None


@dataclass(frozen=True, slots=True)
class MemberChanges:
    """What `user set` changes; None (or False for the clears) leaves a value as it is."""

    is_admin: bool | None = None
    disabled: bool | None = None
    hidden: bool | None = None
    all_libraries: bool | None = None
    libraries: tuple[str, ...] | None = None
    password: str | None = None
    pin: str | None = None
    clear_pin: bool = False
    # ParentalControls fields to set, over the member's current rule (maxAge 18 when there is none).
    parental: Mapping[str, Any] | None = None
    clear_parental: bool = False
    # sessionOnlyLogin: web sign-ins last until the browser closes; turning it on ends those made before.
    session_only_login: bool | None = None


async def list_members(store: Store, *, now: int | None = None) -> list[MemberView]:
    """Every member by name, with grants and PIN lock, read in one trip."""
    since = (now_ms() if now is None else now) - signin_limits.PIN_WINDOW_MS
    users, grants, locks = await store.fetch_each(
        [
            (f"SELECT {_COLUMNS} FROM users ORDER BY name_key, id", ()),
            ("SELECT user_id, library_id FROM library_access ORDER BY library_id", ()),
            (signin_limits.PIN_FAILURES_BY_USER_SQL, (since,)),
        ]
    )
    return _views(users, grants, locks)


async def get_member(store: Store, user_id: str, *, now: int | None = None) -> MemberView | None:
    since = (now_ms() if now is None else now) - signin_limits.PIN_WINDOW_MS
    users, grants, locks = await store.fetch_each(
        [
            (f"SELECT {_COLUMNS} FROM users WHERE id = ?", (user_id,)),
            ("SELECT user_id, library_id FROM library_access WHERE user_id = ? ORDER BY library_id", (user_id,)),
            (signin_limits.PIN_FAILURES_BY_USER_SQL, (since,)),
        ]
    )
    views = _views(users, grants, locks)
    return views[0] if views else None


async def library_ids(store: Store) -> list[str]:
    return [row["id"] for row in await store.fetch_all("SELECT id FROM libraries ORDER BY id")]


async def credentials_by_name(store: Store, name: str) -> Credentials | None:
    """The member named ``name`` (case-insensitively) with its hashes, for the sign-in only."""
    row = await store.fetch_one(f"SELECT {_COLUMNS} FROM users WHERE name_key = ?", (name.strip().casefold(),))
    if row is None:
        return None
    return Credentials(_record(row), row["password_hash"], row["pin_hash"])


async def note_login(store: Store, user_id: str, at_ms: int) -> None:
    await store.execute("UPDATE users SET last_login_at = ? WHERE id = ?", (at_ms, user_id))


async def update_member(store: Store, name: str, changes: MemberChanges) -> tuple[UserRecord, list[str]]:
    """Apply ``changes`` to the member ``name``; the member and the names of the fields changed.

    Raises NotFound for an unknown name, Invalid for a PIN that is not 4 to
    8 digits.  Unknown library ids are ignored (reference, UserPolicy); an
    empty list revokes every library.  Setting a PIN clears the PIN lock.
    """
    creds = await credentials_by_name(store, name)
    if creds is None:
        raise NotFound(f"No member named {name!r}.")
    if changes.clear_parental and changes.parental is not None:
        raise Invalid("clearParental and parental cannot be given together.", field="clearParental")
    if changes.pin is not None and not PIN_PATTERN.fullmatch(changes.pin):
        raise Invalid("A PIN is 4 to 8 digits.", field="pin")
    user = creds.user
    statements, changed = _column_changes(user.id, changes)
    statements += await _secret_changes(user.id, changes, changed)
    policy_statement = _policy_change(user, changes, changed)
    if policy_statement is not None:
        statements.append(policy_statement)
    if changes.libraries is not None:
        statements += _library_changes(user.id, changes.libraries)
        changed.append("accessibleLibraries")
    if changes.session_only_login and not user.policy.get(SESSION_ONLY_LOGIN):
        statements += _end_web_sign_ins(user.id)  # their lasting cookies would outlive the new rule
    if statements:
        await store.transaction(statements)  # moves the data version: remembered sign-ins are read anew
    updated = await get_member(store, user.id)
    assert updated is not None
    return updated.user, changed


def _column_changes(user_id: str, changes: MemberChanges) -> tuple[list[Statement], list[str]]:
    statements: list[Statement] = []
    changed: list[str] = []
    for column, value, field_name in (
        ("is_admin", changes.is_admin, "isAdmin"),
        ("disabled", changes.disabled, "isDisabled"),
        ("hidden", changes.hidden, "isHidden"),
    ):
        if value is not None:
            statements.append(Statement(f"UPDATE users SET {column} = ? WHERE id = ?", (int(value), user_id)))
            changed.append(field_name)
    return statements, changed


async def _secret_changes(user_id: str, changes: MemberChanges, changed: list[str]) -> list[Statement]:
    """Hash what is set (in a worker thread); the field names recorded never carry the values."""
    statements: list[Statement] = []
    if changes.password is not None:
        hashed = await hash_password(changes.password)
        statements.append(Statement("UPDATE users SET password_hash = ? WHERE id = ?", (hashed, user_id)))
        changed.append("password")
    if changes.pin is not None or changes.clear_pin:
        pin_hash = None
        if changes.pin is not None:
            pin_hash = await hash_password(changes.pin)
        statements.append(Statement("UPDATE users SET pin_hash = ? WHERE id = ?", (pin_hash, user_id)))
        statements.append(signin_limits.clear_pin_lock_statement(user_id))
        changed.append("pin")
    return statements


def _policy_change(user: UserRecord, changes: MemberChanges, changed: list[str]) -> Statement | None:
    policy = dict(user.policy)
    if changes.all_libraries is not None or changes.libraries is not None:
        # --library ID ... means "exactly these": it turns allLibraries off.
        policy[ALL_LIBRARIES] = bool(changes.all_libraries) if changes.libraries is None else False
        changed.append("allLibraries")
    if changes.parental is not None:
        current = policy.get(PARENTAL) or {"maxAge": OLDEST}
        policy[PARENTAL] = parse_parental({**current, **changes.parental}).to_json()
        changed.append("parental")
    elif changes.clear_parental and policy.pop(PARENTAL, None) is not None:
        changed.append("parental")
    if changes.session_only_login is not None:
        policy[SESSION_ONLY_LOGIN] = changes.session_only_login
        changed.append(SESSION_ONLY_LOGIN)
    if policy == user.policy:
        return None
    return Statement("UPDATE users SET policy = ? WHERE id = ?", (json.dumps(policy), user.id))


def _end_web_sign_ins(user_id: str) -> list[Statement]:
    """Every web console sign-in of the member (Device kind ``web``) ends; the devices go with them."""
    return [
        Statement(
            "DELETE FROM device_tokens WHERE user_id = ? AND device_id IN (SELECT id FROM devices WHERE kind = 'web')",
            (user_id,),
        ),
        Statement(
            "DELETE FROM devices WHERE kind = 'web'"
            " AND NOT EXISTS (SELECT 1 FROM device_tokens t WHERE t.device_id = devices.id)"
        ),
    ]


def _library_changes(user_id: str, libraries: Sequence[str]) -> list[Statement]:
    wanted = sorted(set(libraries))
    statements = [Statement("DELETE FROM library_access WHERE user_id = ?", (user_id,))]
    if wanted:
        # Unknown ids are ignored: only rows naming an existing library are written.
        statements.append(
            Statement(
                "INSERT INTO library_access (library_id, user_id)"
                " SELECT id, ? FROM libraries WHERE id = ?",
                many=[(user_id, library_id) for library_id in wanted],
            )
        )
    return statements


def _views(users: list, grants: list, locks: list) -> list[MemberView]:
    granted: dict[str, list[str]] = {}
    for row in grants:
        granted.setdefault(row["user_id"], []).append(row["library_id"])
    locked = {row["user_id"] for row in locks if int(row["failures"]) >= signin_limits.PIN_LOCK_FAILURES}
    return [
        MemberView(_record(row), tuple(granted.get(row["id"], ())), row["id"] in locked)
        for row in users
    ]
