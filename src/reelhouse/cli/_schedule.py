"""``reelhouse schedule ...`` and ``reelhouse backup ...``: schedules and backups from the command line.

    reelhouse schedule list
    reelhouse schedule set TASK (--cron EXPR | --every SECONDS | --idle | --continuous | --manual)
                                [--window HH:MM-HH:MM] [--after-scan | --no-after-scan]
    reelhouse schedule pause|resume|reset TASK
    reelhouse backup create | list | restore FILE

A rule change is written with a bump of the schedule revision, which a
running server polls: it takes effect there within seconds. An invalid
rule prints the reference's code and exits 2. ``backup restore`` refuses
while a server uses the data directory, and answers an archive it cannot
trust with one line and exit 2 (:mod:`reelhouse.storage.backup_restore`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from reelhouse.config import Settings
from reelhouse.media.schedule import CORE_TASKS, Rule, RuleError, parse_rule, parse_window
from reelhouse.process.server_lock import ServerRunning, hold_server_lock
from reelhouse.storage import Store, StoreError
from reelhouse.storage import schedules as stored
from reelhouse.storage.backup_archive import BadBackup
from reelhouse.storage.backup_restore import restore_backup
from reelhouse.storage.backup_restore_sqlite import one_line
from reelhouse.storage.backups import BackupError, backup_dir, list_backups

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
PAST = {"pause": "paused", "resume": "resumed", "reset": "reset to its default rules"}

AdminCommand = Callable[..., Awaitable[int]]


async def _known_tasks(store: Store) -> dict[str, bool]:
    """Task name -> allowsAfterScan, core and plugin (plugin tasks once a server registered them)."""
    await stored.ensure_tasks(store, [(name, None, task.allows_after_scan) for name, task in CORE_TASKS.items()])
    return {name: row.allows_after_scan for name, row in (await stored.load_schedules(store)).items()}


async def _require_task(store: Store, task: str) -> bool | None:
    known = await _known_tasks(store)
    if task not in known:
        print(f"reelhouse: no task {task}", file=sys.stderr)
        return None
    return known[task]


async def _schedule_list(store: Store, args: argparse.Namespace, *, settings: Settings) -> int:
    await _known_tasks(store)
    for name, row in sorted((await stored.load_schedules(store)).items(), key=_order):
        rules = row.rules if row.rules is not None else (CORE_TASKS[name].default_rules if name in CORE_TASKS else ())
        state = "paused" if row.paused else "active"
        default = "default" if row.rules is None else "custom"
        print(f"{name}\t{_describe(rules)}\t{state}\t{default}\t{row.last_result or '-'}")
    return EXIT_OK


def _order(item: tuple[str, stored.ScheduleRow]) -> tuple[int, str]:
    names = list(CORE_TASKS)
    return (names.index(item[0]) if item[0] in names else len(names), item[0])


def _describe(rules: tuple[Rule, ...]) -> str:
    parts = []
    for rule in rules:
        text = {"cron": f"cron {rule.cron}", "interval": f"every {rule.every_seconds}s"}.get(rule.trigger, rule.trigger)
        if rule.window is not None:
            w = rule.window
            start, end = w.start_minute, w.end_minute
            text += f" window {start // 60:02d}:{start % 60:02d}-{end // 60:02d}:{end % 60:02d}"
        if rule.after_scan:
            text += " +afterScan"
        parts.append(text)
    return "; ".join(parts) or "-"


async def _schedule_set(store: Store, args: argparse.Namespace, *, settings: Settings) -> int:
    allows = await _require_task(store, args.task)
    if allows is None:
        return EXIT_FAILED
    raw: dict[str, Any] = {"afterScan": bool(args.after_scan)}
    if args.cron is not None:
        raw.update(trigger="cron", cron=args.cron)
    elif args.every is not None:
        raw.update(trigger="interval", everySeconds=args.every)
    else:
        raw["trigger"] = next(name for name in ("idle", "continuous", "manual") if getattr(args, name))
    try:
        if args.window:
            raw["window"] = parse_window(args.window).to_json()
        rule = parse_rule(raw, allows_after_scan=allows)
    except RuleError as error:
        print(f"reelhouse: {error.code}: {error.message}", file=sys.stderr)
        return EXIT_USAGE
    await stored.set_rules(store, args.task, (rule,))
    print(f"{args.task}: {_describe((rule,))}")
    return EXIT_OK


def _flag_command(verb: str) -> AdminCommand:
    async def run(store: Store, args: argparse.Namespace, *, settings: Settings) -> int:
        if await _require_task(store, args.task) is None:
            return EXIT_FAILED
        if verb == "reset":
            await stored.set_rules(store, args.task, None)
            await stored.set_paused(store, args.task, False)
        else:
            await stored.set_paused(store, args.task, verb == "pause")
        print(f"{args.task}: {PAST[verb]}")
        return EXIT_OK

    return run


async def _backup_create(store: Store, args: argparse.Namespace, *, settings: Settings) -> int:
    from reelhouse.actors.maintenance.backup import make_backup

    try:
        info = await make_backup(store, settings)
    except BackupError as error:
        print(f"reelhouse: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {info.path} ({info.size} bytes)")
    return EXIT_OK


async def _backup_list(store: Store, args: argparse.Namespace, *, settings: Settings) -> int:
    for info in list_backups(settings.data_dir):
        print(f"{info.path.name}\t{info.size}\t{info.created_at.strftime('%Y-%m-%dT%H:%M:%SZ')}")
    return EXIT_OK


async def _backup_restore_first(args: argparse.Namespace, settings: Settings) -> int:
    """Runs before the store is opened: the database is replaced under no connection.

    An archive that is not a backup this build can restore exits 2 with one
    line (nothing changed); a failure to do the work (a server running, a
    disk, psql) exits 1.
    """
    archive = _archive_path(args.file, settings)
    try:
        with hold_server_lock(settings.data_dir) as lock:
            lock.announce(f"reelhouse backup restore (pid {os.getpid()})")
            restored = await restore_backup(archive, settings.effective_database_url, settings.data_dir,
                                            max_bytes=settings.schedule.restore_max_bytes)
    except BadBackup as error:
        print(f"reelhouse: {one_line(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except (ServerRunning, BackupError, StoreError, OSError) as error:
        print(f"reelhouse: {one_line(str(error))}", file=sys.stderr)
        return EXIT_FAILED
    kept = f"; the previous database is kept as {restored.kept}" if restored.kept else ""
    print(f"restored {one_line(Path(args.file).name)} (made {restored.manifest.created_at}){kept}")
    return EXIT_OK


def _archive_path(given: str, settings: Settings) -> Path:
    """The archive named: a path, or a bare name as ``backup list`` prints it (in <data dir>/backups)."""
    path = Path(given)
    listed = backup_dir(settings.data_dir) / given
    if not path.exists() and path.name == given and listed.is_file():
        return listed
    return path


async def _backup_restore(store: Store, args: argparse.Namespace, *, settings: Settings) -> int:
    return EXIT_OK  # the work was done before the store opened; it has just been migrated


ADMIN_COMMANDS: dict[tuple[str, str], AdminCommand] = {
    ("schedule", "list"): _schedule_list,
    ("schedule", "set"): _schedule_set,
    ("schedule", "pause"): _flag_command("pause"),
    ("schedule", "resume"): _flag_command("resume"),
    ("schedule", "reset"): _flag_command("reset"),
    ("backup", "create"): _backup_create,
    ("backup", "list"): _backup_list,
    ("backup", "restore"): _backup_restore,
}
BEFORE_STORE_COMMANDS: dict[tuple[str, str | None], Callable[[argparse.Namespace, Settings], Awaitable[int]]] = {
    ("backup", "restore"): _backup_restore_first,
}
