"""Runs a parsed command: the server, or an admin command on an open store.

Imported only once the arguments parsed (``_main``), and each command's
module only when that command runs: ``apikey list`` never imports the HTTP
client that ``import`` needs, nor ``user add`` the backup code.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from reelhouse import errors
from reelhouse.config import ConfigError, Settings, load_settings
from reelhouse.storage import Store, StoreError, StoreOpenError, migrate, open_store

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

Command = Callable[[Store, argparse.Namespace], Awaitable[int]]
BeforeStore = Callable[[argparse.Namespace, Settings], Awaitable[int]]


def run_command(args: argparse.Namespace) -> int:
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
        # The actor runtime (0.04 CPU-s to import) only for its helper, and only on failure.
        from reelhouse.runtime import sole_exception

        sole = sole_exception(raised)  # looking through nursery groups
        failure = _expected_failure(sole)
        if failure is None:
            raise
        print(f"reelhouse: {failure}", file=sys.stderr)
        # A database that cannot be opened is a setting to fix, like any other bad setting.
        return EXIT_USAGE if isinstance(sole, StoreOpenError) else EXIT_FAILED


def _expected_failure(raised: BaseException) -> str | None:
    """The message of an expected failure, or None for a bug (its traceback is wanted)."""
    if isinstance(raised, errors.DomainError):
        return raised.message
    if isinstance(raised, (StoreError, OSError)):
        return str(raised)
    return None


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    return {"bind": getattr(args, "bind", None), "data_dir": args.data_dir, "database_url": args.database}


def _commands(group: str, settings: Settings) -> tuple[dict[tuple[str, str | None], Command],
                                                        dict[tuple[str, str | None], BeforeStore]]:
    """The commands of one group (and what runs before the store opens), importing only that group's module."""
    if group == "plugin":
        from ._plugins import plugin_commands

        return plugin_commands(), {}
    if group == "import":
        from ._peer_import import import_commands

        return import_commands(), {}
    if group in ("schedule", "backup"):
        from ._schedule import ADMIN_COMMANDS, BEFORE_STORE_COMMANDS

        bound: dict[tuple[str, str | None], Command] = {
            name: functools.partial(run, settings=settings) for name, run in ADMIN_COMMANDS.items()
        }
        return bound, BEFORE_STORE_COMMANDS
    from ._accounts import account_commands

    return account_commands(), {}


async def _run_admin(args: argparse.Namespace, settings: Settings) -> int:
    key: tuple[str, str | None] = (args.command, getattr(args, "action", None))
    commands, before_store = _commands(args.command, settings)
    command = commands[key]
    args.data_dir_path = settings.data_dir
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    before = before_store.get(key)
    if before is not None and (code := await before(args, settings)) != EXIT_OK:
        return code
    async with open_store(settings.effective_database_url) as store:
        await migrate(store)
        return await command(store, args)
