"""The ``reelhouse`` command: the server and its admin console.

    reelhouse serve [--config FILE] [--bind HOST:PORT] [--data-dir DIR] [--database URL]
    reelhouse migrate
    reelhouse apikey create NAME | list | revoke ID
    reelhouse user add NAME [--admin] [--password-stdin] | list
    reelhouse schedule list | set TASK RULE | pause|resume|reset TASK   (cli_schedule.py)
    reelhouse backup create | list | restore FILE                       (cli_schedule.py)

Every command accepts the same configuration options. The admin commands
open the store directly, so they work while the server runs (SQLite in WAL
mode with a busy timeout; PostgreSQL as usual). Exit codes: 0 success,
1 a failed operation (message on stderr), 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import trio

from reelhouse import errors
from reelhouse.config import ConfigError, Settings, load_settings
from reelhouse.storage import Store, StoreError, migrate, open_store
from reelhouse.storage import apikeys, users

from .cli_schedule import ADMIN_COMMANDS, BEFORE_STORE_COMMANDS, add_schedule_commands

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
        return EXIT_FAILED


def _single_failure(raised: BaseException) -> str | None:
    """The message of an expected failure, looking through nursery groups."""
    while isinstance(raised, BaseExceptionGroup) and len(raised.exceptions) == 1:
        raised = raised.exceptions[0]
    if isinstance(raised, errors.DomainError):
        return raised.message
    if isinstance(raised, (StoreError, OSError)):
        return str(raised)
    return None


def _common_options(default: object) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", default=default, help="TOML configuration file (or REELHOUSE_CONFIG)")
    common.add_argument("--bind", default=default, help="HOST:PORT to listen on (serve)")
    common.add_argument("--data-dir", default=default, help="data directory")
    common.add_argument("--database", default=default, help="database URL (sqlite:///... or postgresql://...)")
    return common


def _parser() -> argparse.ArgumentParser:
    # The options are accepted before and after the command; the copies on
    # the subcommands default to SUPPRESS so they never overwrite a value
    # given before the command.
    parser = argparse.ArgumentParser(prog="reelhouse", parents=[_common_options(None)])
    common = _common_options(argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", parents=[common], help="run the server")
    commands.add_parser("migrate", parents=[common], help="apply database migrations")

    apikey = commands.add_parser("apikey", parents=[common], help="manage API keys")
    apikey_commands = apikey.add_subparsers(dest="action", required=True)
    create = apikey_commands.add_parser("create", parents=[common], help="create a key; prints it once")
    create.add_argument("name")
    apikey_commands.add_parser("list", parents=[common], help="list keys")
    revoke = apikey_commands.add_parser("revoke", parents=[common], help="revoke a key by id")
    revoke.add_argument("id")

    user = commands.add_parser("user", parents=[common], help="manage members")
    user_commands = user.add_subparsers(dest="action", required=True)
    add = user_commands.add_parser("add", parents=[common], help="add a member")
    add.add_argument("name")
    add.add_argument("--admin", action="store_true", help="the member is an administrator")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    user_commands.add_parser("list", parents=[common], help="list members")
    add_schedule_commands(commands, common)
    return parser


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    return {"bind": args.bind, "data_dir": args.data_dir, "database_url": args.database}


async def _run_admin(args: argparse.Namespace, settings: Settings) -> int:
    command: Callable[[Store, argparse.Namespace], Awaitable[int]] = {
        ("migrate", None): _migrate,
        ("apikey", "create"): _apikey_create,
        ("apikey", "list"): _apikey_list,
        ("apikey", "revoke"): _apikey_revoke,
        ("user", "add"): _user_add,
        ("user", "list"): _user_list,
        **{key: functools.partial(run, settings=settings) for key, run in ADMIN_COMMANDS.items()},
    }[(args.command, getattr(args, "action", None))]
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    before = BEFORE_STORE_COMMANDS.get((args.command, getattr(args, "action", None)))
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
    print(f"revoked API key {args.id}")
    return EXIT_OK


async def _user_add(store: Store, args: argparse.Namespace) -> int:
    password = None
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            print("reelhouse: --password-stdin given but the first line of stdin is empty", file=sys.stderr)
            return EXIT_USAGE
    user = await users.add_user(store, args.name, is_admin=args.admin, password=password)
    print(f"added {'administrator' if user.is_admin else 'member'} {user.name} ({user.id})")
    return EXIT_OK


async def _user_list(store: Store, args: argparse.Namespace) -> int:
    for user in await users.list_users(store):
        role = "admin" if user.is_admin else "member"
        print(f"{user.id}\t{user.name}\t{role}\t{_when(user.created_at_ms)}")
    return EXIT_OK


def _when(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


if __name__ == "__main__":
    sys.exit(main())
