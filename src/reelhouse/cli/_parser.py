"""Every command's arguments, and nothing that runs them.

``reelhouse --help``, ``--version``, a command's ``--help`` and a usage
error need only this tree: it imports argparse and a few constants of the
pure ``media`` layer, never the configuration, the store, trio or an HTTP
client (which the commands import when they run, ``_run.py``). The version
is read (importlib.metadata) only for ``--version``, shtab only for
``--print-completion``.
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from reelhouse.media.peer_import import KINDS
from reelhouse.media.plugin_manifest import MAX_CONCURRENCY
from reelhouse.media.schedule import CORE_TASKS

from ._parental import add_parental_flags

TASK_NAMES = ", ".join(CORE_TASKS)
TASK_HELP = "the task's name: a core task or a plugin's (schedule list)"


def build_parser() -> argparse.ArgumentParser:
    # The options are accepted before and after the command; the copies on
    # the subcommands default to SUPPRESS so they never overwrite a value
    # given before the command.
    parser = argparse.ArgumentParser(prog="reelhouse", parents=[_common_options(None)])
    parser.add_argument("--version", action=_PrintVersion, help="print the version and exit")
    parser.add_argument("--print-completion", action=_PrintCompletion, metavar="SHELL",
                        help="print a completion script for SHELL and exit: bash, zsh, tcsh, fish or powershell")
    common = _common_options(argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser("serve", parents=[common], help="run the server")
    serve.add_argument("--bind", metavar="HOST:PORT", help="address to listen on (or REELHOUSE_BIND; default "
                       "127.0.0.1:8096)")
    commands.add_parser("migrate", parents=[common], help="apply database migrations")
    _apikey_commands(commands, common)
    _user_commands(commands, common)
    _plugin_commands(commands, common)
    _schedule_commands(commands, common)
    _backup_commands(commands, common)
    _import_commands(commands, common)
    return parser


class _PrintVersion(argparse.Action):
    """argparse's version action, reading the version only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        from reelhouse import __version__

        print(f"reelhouse {__version__}")
        parser.exit()


class _PrintCompletion(argparse.Action):
    """shtab's ``--print-completion``, importing shtab only when a script is asked for."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: object, values: Any, *_: object) -> NoReturn:
        import shtab

        if values not in shtab.SUPPORTED_SHELLS:  # the shells of the installed shtab
            parser.error(f"--print-completion: no completion for {values!r}; "
                         f"one of {', '.join(shtab.SUPPORTED_SHELLS)}")
        _resolve_completions(parser, shtab)
        print(shtab.complete(parser, shell=values))
        parser.exit()


def _completes(action: argparse.Action, kind: str) -> None:
    """Marks what the shell completes for an argument: "FILE" or "DIRECTORY" (shtab's names)."""
    action.completes = kind  # type: ignore[attr-defined]


def _resolve_completions(parser: argparse.ArgumentParser, shtab: Any) -> None:
    # shtab reads an argument's ``complete`` attribute; the marks become its values here.
    for action in parser._actions:
        if (kind := getattr(action, "completes", None)) is not None:
            action.complete = getattr(shtab, kind)  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _resolve_completions(sub, shtab)


def _common_options(default: object) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    _completes(common.add_argument("--config", default=default, metavar="FILE",
                                   help="TOML configuration file (or REELHOUSE_CONFIG)"), "FILE")
    _completes(common.add_argument("--data-dir", default=default, metavar="DIR",
                                   help="data directory (or REELHOUSE_DATA_DIR; default ./data)"), "DIRECTORY")
    common.add_argument("--database", default=default, metavar="URL",
                        help="database URL: sqlite:///FILE or postgresql://USER@HOST:PORT/DB "
                             "(or REELHOUSE_DATABASE_URL; default SQLite in the data directory)")
    return common


def _apikey_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    apikey = commands.add_parser("apikey", parents=[common], help="manage API keys")
    apikey_commands = apikey.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = apikey_commands.add_parser("create", parents=[common], help="create a key; prints it once")
    create.add_argument("name", help="a name for the key, e.g. the script that uses it")
    apikey_commands.add_parser("list", parents=[common], help="list keys")
    revoke = apikey_commands.add_parser("revoke", parents=[common], help="revoke a key by id")
    revoke.add_argument("id", help="the key's id (apikey list)")


def _user_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    user = commands.add_parser("user", parents=[common], help="manage members")
    user_commands = user.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = user_commands.add_parser("add", parents=[common], help="add a member")
    add.add_argument("name", help="the member's sign-in name")
    add.add_argument("--admin", action="store_true", help="the member is an administrator")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    user_commands.add_parser("list", parents=[common], help="list members")
    _user_set(user_commands, common)


def _user_set(user_commands: Any, common: argparse.ArgumentParser) -> None:
    change = user_commands.add_parser("set", parents=[common], help="change a member")
    change.add_argument("name", help="the member's sign-in name (user list)")
    for on, off, dest, what in (
        ("--admin", "--no-admin", "admin", "an administrator"),
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


def _plugin_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    plugin = commands.add_parser("plugin", parents=[common], help="install, enable and configure plugins")
    actions = plugin.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", parents=[common], help="list plugins")
    install = actions.add_parser("install", parents=[common], help="install (or update) a plugin directory")
    _completes(install.add_argument("directory", help="a folder holding plugin.toml"), "DIRECTORY")
    for name, what in (("enable", "enable a plugin"), ("disable", "disable a plugin"),
                       ("remove", "remove an installed plugin (its settings are kept)")):
        action = actions.add_parser(name, parents=[common], help=what)
        action.add_argument("id", help="the plugin's id (plugin list), e.g. tmdb")
    set_ = actions.add_parser("set", parents=[common], help="set plugin settings (KEY= unsets)")
    set_.add_argument("id", help="the plugin's id (plugin list), e.g. tmdb")
    set_.add_argument("pairs", nargs="*", metavar="KEY=VALUE", help="settings of the plugin's manifest, e.g. "
                      "apiKey=...; KEY= unsets one")
    set_.add_argument("--concurrency", type=int, metavar="N",
                      help=f"calls in flight at once, overriding the manifest (1-{MAX_CONCURRENCY}; 0 clears)")


def _schedule_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    schedule = commands.add_parser("schedule", parents=[common], help="change task schedules")
    actions = schedule.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", parents=[common], help="list tasks and their rules")
    put = actions.add_parser("set", parents=[common], help="replace a task's rules with one rule",
                             epilog=f"Tasks: {TASK_NAMES}, and the tasks of enabled plugins (schedule list).")
    put.add_argument("task", help=TASK_HELP)
    trigger = put.add_mutually_exclusive_group(required=True)
    trigger.add_argument("--cron", metavar="EXPR", help="five-field cron expression or @daily etc.")
    trigger.add_argument("--every", metavar="SECONDS", type=int, help="interval, 300 to 2678400 seconds")
    for name, what in (("idle", "once per quiet period: no playback and no scan for [schedule] idle_minutes"),
                       ("continuous", "again and again while no one plays"),
                       ("manual", "only when started (POST /admin/schedules/TASK/run)")):
        trigger.add_argument(f"--{name}", action="store_true", help=what)
    put.add_argument("--window", metavar="HH:MM-HH:MM", help="start runs only inside this window")
    after = put.add_mutually_exclusive_group()
    after.add_argument("--after-scan", dest="after_scan", action="store_true", default=None,
                       help="also run once after every library scan (tasks that allow it)")
    after.add_argument("--no-after-scan", dest="after_scan", action="store_false",
                       help="do not run after library scans (the default)")
    for verb, what in (("pause", "pause a task: no scheduled runs until resumed"),
                       ("resume", "resume a paused task"),
                       ("reset", "back to the task's default rules, not paused")):
        actions.add_parser(verb, parents=[common], help=what, epilog=f"Tasks: {TASK_NAMES}, and plugin tasks."
                           ).add_argument("task", help=TASK_HELP)


def _backup_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    backup = commands.add_parser("backup", parents=[common], help="back up and restore")
    backup_actions = backup.add_subparsers(dest="action", required=True, metavar="ACTION")
    backup_actions.add_parser("create", parents=[common], help="write a backup into <data dir>/backups")
    backup_actions.add_parser("list", parents=[common], help="list backups")
    restore = backup_actions.add_parser("restore", parents=[common], help="restore a backup (server stopped)")
    archive = restore.add_argument("file", help="a backup archive: its path, or its name as backup list prints it")
    _completes(archive, "FILE")


def _import_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    command = commands.add_parser("import", parents=[common], help="import watch state from another server")
    kinds = command.add_subparsers(dest="action", required=True, metavar="KIND")
    for kind in KINDS:
        parser = kinds.add_parser(kind, parents=[common], help=f"from a {kind.capitalize()} server; the "
                                  "administrator token is read from the first line of stdin")
        parser.add_argument("url", help="the server's address, e.g. http://192.168.1.5:8096")
        parser.add_argument("--member", action="append", default=[], metavar="NAME",
                            help="only this member of the other server (repeatable)")
        parser.add_argument("--apply", action="store_true", help="write the changes (without: a dry run)")
