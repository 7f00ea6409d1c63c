"""The ``reelhouse`` command: the server and its admin console.

    reelhouse serve [--config FILE] [--bind HOST:PORT] [--data-dir DIR] [--database URL]
    reelhouse --print-completion bash|zsh|tcsh      (a shell completion script, shtab)
    reelhouse migrate
    reelhouse apikey create NAME | list | revoke ID
    reelhouse user add NAME [--admin] [--password-stdin] | list
    reelhouse plugin list | install DIR | enable ID | disable ID | set ID KEY=VALUE ... | remove ID
    reelhouse user set NAME [--admin | --no-admin] [--disabled | --enabled] [--hidden | --visible]
                            [--all-libraries | --library ID ...] [--password-stdin] [--pin-stdin | --clear-pin]
                            [--max-age N] [--block-tag T] [--block-genre G] [--block-item ID] [--allow-item ID]
                            [--daily-limit MINUTES] [--window DAYS HH:MM-HH:MM] [--clear-parental]  (_parental.py)
    reelhouse schedule list | set TASK RULE | pause|resume|reset TASK   (_schedule.py)
    reelhouse backup create | list | restore FILE                       (_schedule.py)
    reelhouse import jellyfin|emby URL [--member NAME ...] [--apply]  < token   (_peer_import.py)

Every command accepts the same configuration options. The admin commands
open the store directly, so they work while the server runs (SQLite in WAL
mode with a busy timeout; PostgreSQL as usual). Exit codes: 0 success,
1 a failed operation (message on stderr), 2 bad usage or configuration
(a database that cannot be opened included: one line, no traceback).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import shtab
import trio

from reelhouse import __version__, errors
from reelhouse.config import ConfigError, Settings, load_settings
from reelhouse.runtime import sole_exception
from reelhouse.storage import Store, StoreError, StoreOpenError, apikeys, members, migrate, open_store
from reelhouse.storage.activity import ActivityRecord, record_activity

from ._parental import add_parental_flags, parental_fields
from ._peer_import import add_import_commands, import_commands
from ._plugins import add_plugin_commands, plugin_commands
from ._schedule import ADMIN_COMMANDS, BEFORE_STORE_COMMANDS, add_schedule_commands

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings(args.config, _flags(args))
    except ConfigError as exc:
        print(f"reelhouse: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "serve":
        from reelhouse.server import run_server

        return run_server(settings)
    try:
        return trio.run(_run_admin, args, settings)
    except (BaseExceptionGroup, StoreError, OSError, errors.DomainError) as raised:
        failure = _single_failure(raised)
        if failure is None:
            raise
        print(f"reelhouse: {failure}", file=sys.stderr)
        # A database that cannot be opened is a setting to fix, like any other bad setting.
        return EXIT_USAGE if isinstance(sole_exception(raised), StoreOpenError) else EXIT_FAILED


def _single_failure(raised: BaseException) -> str | None:
    """The message of an expected failure, looking through nursery groups."""
    raised = sole_exception(raised)
    if isinstance(raised, errors.DomainError):
        return raised.message
    if isinstance(raised, (StoreError, OSError)):
        return str(raised)
    return None


def _common_options(default: object) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    config = common.add_argument("--config", default=default, metavar="FILE",
                                 help="TOML configuration file (or REELHOUSE_CONFIG)")
    data_dir = common.add_argument("--data-dir", default=default, metavar="DIR",
                                   help="data directory (or REELHOUSE_DATA_DIR; default ./data)")
    # What the shell completes there (shtab reads the attribute).
    config.complete, data_dir.complete = shtab.FILE, shtab.DIRECTORY  # type: ignore[attr-defined]
    common.add_argument("--database", default=default, metavar="URL",
                        help="database URL: sqlite:///FILE or postgresql://USER@HOST:PORT/DB "
                             "(or REELHOUSE_DATABASE_URL; default SQLite in the data directory)")
    return common


def _parser() -> argparse.ArgumentParser:
    # The options are accepted before and after the command; the copies on
    # the subcommands default to SUPPRESS so they never overwrite a value
    # given before the command.
    parser = argparse.ArgumentParser(prog="reelhouse", parents=[_common_options(None)])
    parser.add_argument("--version", action="version", version=f"reelhouse {__version__}")
    # `reelhouse --print-completion bash|zsh|tcsh`: a completion script for the shell.
    shtab.add_argument_to(parser, "--print-completion", help="print a shell completion script and exit")
    common = _common_options(argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser("serve", parents=[common], help="run the server")
    serve.add_argument("--bind", metavar="HOST:PORT", help="address to listen on (or REELHOUSE_BIND; default "
                       "127.0.0.1:8096)")
    commands.add_parser("migrate", parents=[common], help="apply database migrations")

    apikey = commands.add_parser("apikey", parents=[common], help="manage API keys")
    apikey_commands = apikey.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = apikey_commands.add_parser("create", parents=[common], help="create a key; prints it once")
    create.add_argument("name", help="a name for the key, e.g. the script that uses it")
    apikey_commands.add_parser("list", parents=[common], help="list keys")
    revoke = apikey_commands.add_parser("revoke", parents=[common], help="revoke a key by id")
    revoke.add_argument("id", help="the key's id (apikey list)")

    user = commands.add_parser("user", parents=[common], help="manage members")
    user_commands = user.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = user_commands.add_parser("add", parents=[common], help="add a member")
    add.add_argument("name", help="the member's sign-in name")
    add.add_argument("--admin", action="store_true", help="the member is an administrator")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    user_commands.add_parser("list", parents=[common], help="list members")
    add_plugin_commands(commands, common)
    _user_set_parser(user_commands, common)
    add_schedule_commands(commands, common)
    add_import_commands(commands, common)
    return parser


def _user_set_parser(user_commands: Any, common: argparse.ArgumentParser) -> None:
    change = user_commands.add_parser("set", parents=[common], help="change a member")
    change.add_argument("name", help="the member's sign-in name (user list)")
    for on, off, dest, what in (
        ("--admin", "--no-admin", "admin", "administrator"),
        ("--disabled", "--enabled", "disabled", "disabled"),
        ("--hidden", "--visible", "hidden", "hidden from the login list"),
    ):
        group = change.add_mutually_exclusive_group()
        group.add_argument(on, dest=dest, action="store_true", default=None, help=f"make the member {what}")
        group.add_argument(off, dest=dest, action="store_false", help=f"the member is not {what}")
    libraries = change.add_mutually_exclusive_group()
    libraries.add_argument("--all-libraries", action="store_true", help="every library, later ones too")
    libraries.add_argument(
        "--library", action="extend", nargs="+", metavar="ID", help="exactly these libraries (repeatable)"
    )
    change.add_argument("--password-stdin", action="store_true", help="new password: the first line of stdin")
    pin = change.add_mutually_exclusive_group()
    pin.add_argument("--pin-stdin", action="store_true", help="new PIN (4 to 8 digits): the next line of stdin")
    pin.add_argument("--clear-pin", action="store_true", help="remove the PIN")
    add_parental_flags(change)


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    return {"bind": getattr(args, "bind", None), "data_dir": args.data_dir, "database_url": args.database}


async def _run_admin(args: argparse.Namespace, settings: Settings) -> int:
    key: tuple[str, str | None] = (args.command, getattr(args, "action", None))
    commands: dict[tuple[str, str | None], Callable[[Store, argparse.Namespace], Awaitable[int]]] = {
        ("migrate", None): _migrate,
        ("apikey", "create"): _apikey_create,
        ("apikey", "list"): _apikey_list,
        ("apikey", "revoke"): _apikey_revoke,
        ("user", "add"): _user_add,
        ("user", "list"): _user_list,
        **plugin_commands(),
        **import_commands(),
        ("user", "set"): _user_set,
        **{name: functools.partial(run, settings=settings) for name, run in ADMIN_COMMANDS.items()},
    }
    command = commands[key]
    args.data_dir_path = settings.data_dir
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    before = BEFORE_STORE_COMMANDS.get(key)
    if before is not None and (code := await before(args, settings)) != EXIT_OK:
        return code
    async with open_store(settings.effective_database_url) as store:
        await migrate(store)
        return await command(store, args)


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


if __name__ == "__main__":
    sys.exit(main())
