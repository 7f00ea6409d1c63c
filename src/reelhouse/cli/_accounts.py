"""``reelhouse migrate``, ``apikey ...`` and ``user ...``: keys and members, run on an open store.

Every change is recorded in the activity log as done by the system (the
command line is the admin console); never a password, PIN or key.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any

from reelhouse import errors
from reelhouse.storage import Store, apikeys, members
from reelhouse.storage.activity import ActivityRecord, record_activity

from ._parental import parental_fields

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def account_commands() -> dict[tuple[str, str | None], Any]:
    return {
        ("migrate", None): _migrate,
        ("apikey", "create"): _apikey_create,
        ("apikey", "list"): _apikey_list,
        ("apikey", "revoke"): _apikey_revoke,
        ("user", "add"): _user_add,
        ("user", "list"): _user_list,
        ("user", "set"): _user_set,
    }


async def _migrate(store: Store, args: argparse.Namespace) -> int:
    print("database is up to date")
    return EXIT_OK


async def _apikey_create(store: Store, args: argparse.Namespace) -> int:
    record, plaintext = await apikeys.create_api_key(store, args.name)
    await _record(store, "apikey.create", "apiKey", record.id, record.name)
    print(f"created API key {record.id} ({record.name}); it is shown only once:")
    print(plaintext)
    return EXIT_OK


async def _apikey_list(store: Store, args: argparse.Namespace) -> int:
    for key in await apikeys.list_api_keys(store):
        revoked = _when(key.revoked_at_ms) if key.revoked_at_ms else "-"
        print(f"{key.id}\t{key.name}\t{_when(key.created_at_ms)}\t{revoked}")
    return EXIT_OK


async def _apikey_revoke(store: Store, args: argparse.Namespace) -> int:
    if not await apikeys.revoke_api_key(store, args.id):
        print(f"reelhouse: no active API key with id {args.id}", file=sys.stderr)
        return EXIT_FAILED
    await _record(store, "apikey.revoke", "apiKey", args.id)
    print(f"revoked API key {args.id}")
    return EXIT_OK


async def _user_add(store: Store, args: argparse.Namespace) -> int:
    password = None
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            print("reelhouse: --password-stdin given but the first line of stdin is empty", file=sys.stderr)
            return EXIT_USAGE
    user = await members.add_user(store, args.name, is_admin=args.admin, password=password)
    await _record(store, "user.create", "user", user.id, user.name, {"isAdmin": user.is_admin})
    print(f"added {'administrator' if user.is_admin else 'member'} {user.name} ({user.id})")
    return EXIT_OK


async def _user_list(store: Store, args: argparse.Namespace) -> int:
    for user in await members.list_users(store):
        role = "admin" if user.is_admin else "member"
        print(f"{user.id}\t{user.name}\t{role}\t{_when(user.created_at_ms)}")
    return EXIT_OK


async def _user_set(store: Store, args: argparse.Namespace) -> int:
    password = _stdin_line("--password-stdin") if args.password_stdin else None
    pin = _stdin_line("--pin-stdin") if args.pin_stdin else None
    if "" in (password, pin):
        return EXIT_USAGE
    try:
        parental = parental_fields(args)
    except errors.Invalid as invalid:
        print(f"reelhouse: {invalid.code}: {invalid.message}", file=sys.stderr)
        return EXIT_USAGE
    changes = members.MemberChanges(
        is_admin=args.admin,
        disabled=args.disabled,
        hidden=args.hidden,
        all_libraries=True if args.all_libraries else None,
        libraries=None if args.library is None else tuple(args.library),
        password=password,
        pin=pin,
        clear_pin=args.clear_pin,
        parental=parental,
        clear_parental=args.clear_parental,
    )
    try:
        user, changed = await members.update_member(store, args.name, changes)
    except errors.Invalid as invalid:
        if not str(invalid.params.get("field", "")).startswith(("parental", "clearParental")):
            raise
        # A parental value out of range is a usage error, like a malformed flag.
        print(f"reelhouse: {invalid.code}: {invalid.message}", file=sys.stderr)
        return EXIT_USAGE
    if changed:
        # Field names only: never the password or PIN.
        await _record(store, "user.update", "user", user.id, user.name, {"fields": changed})
    print(f"updated {user.name} ({user.id}): {', '.join(changed) or 'nothing to change'}")
    return EXIT_OK


def _stdin_line(flag: str) -> str:
    line = sys.stdin.readline().rstrip("\r\n")
    if not line:
        print(f"reelhouse: {flag} given but its line of stdin is empty", file=sys.stderr)
    return line


async def _record(
    store: Store, action: str, target_kind: str, target_id: str, target_name: str | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    """The command line is the admin console: its changes are in the activity log, done by the system."""
    category = "security"
    record = ActivityRecord(
        action=action, category=category, actor_kind="system", actor_name="command line",
        target_kind=target_kind, target_id=target_id, target_name=target_name, details=details or {},
    )
    await record_activity(store, record)


def _when(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
