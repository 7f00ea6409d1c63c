"""Backups from the console: make one, list them, and restore one at the next start.

Making and listing are ``reelhouse backup create`` and ``list``.  A restore
cannot happen under a running server (``backup restore`` refuses while the
data directory is held), so the console asks for it at the next start
(:mod:`reelhouse.storage.backup_pending`): the archive's manifest is checked
now (a wrong archive is 400 at once), the restore itself, with every check
of the command line's, runs when the server next starts, and the list then
says how it went.  While one waits, another is 409 ``backup_restore_pending``
(the reference's code); it can be withdrawn until the restart.
"""

from __future__ import annotations

from typing import Any

import trio
from quart import Response
from quart_schema import hide

from reelhouse import errors
from reelhouse.storage.backup_archive import BadBackup
from reelhouse.storage.backup_pending import (
    RestorePending,
    cancel_restore,
    last_restore,
    pending_restore,
    stage_restore,
)
from reelhouse.storage.backups import BackupError, BackupInfo, list_backups

from ..activity_recording import log_activity
from ..context import app_context
from .admin_gate import require_admin
from .blueprint import blueprint

RESTART = "It is restored when the server next starts: restart the server."


@blueprint.get("/admin/backups/list")
@hide  # the console, not the API: kept out of the OpenAPI document
async def backups() -> dict[str, Any]:
    """The backups in the data directory, oldest first; the restore waiting and the last one's outcome."""
    require_admin()
    data_dir = app_context().settings.data_dir
    found = await trio.to_thread.run_sync(list_backups, data_dir)
    return {
        "items": [_backup_json(info) for info in found],
        "pendingRestore": await trio.to_thread.run_sync(pending_restore, data_dir),
        "lastRestore": await trio.to_thread.run_sync(last_restore, data_dir),
    }


@blueprint.post("/admin/backups")
@hide  # the console, not the API: kept out of the OpenAPI document
async def create_backup() -> dict[str, Any]:
    """Make a backup now (as ``reelhouse backup create``); answers it once written."""
    from reelhouse.actors.maintenance.backup import make_backup

    require_admin()
    try:
        info = await make_backup(app_context().store, app_context().settings)
    except BackupError as error:
        raise errors.Unavailable(f"The backup failed: {error}.", params={"retryAfterSeconds": 60}) from None
    await log_activity("backup.create", "settings", "backup", info.path.name, info.path.name)
    return _backup_json(info)


@blueprint.post("/admin/backups/<name>/restore")
@hide  # the console, not the API: kept out of the OpenAPI document
async def restore_at_next_start(name: str) -> tuple[dict[str, Any], int]:
    """Restore the backup ``name`` when the server next starts (202); its manifest is checked now."""
    require_admin()
    settings = app_context().settings
    url, limit = settings.effective_database_url, settings.schedule.restore_max_bytes
    try:
        staged = await trio.to_thread.run_sync(lambda: stage_restore(settings.data_dir, name, url, limit))
    except FileNotFoundError:
        raise errors.NotFound(f"No backup {name}.", params={"name": name}) from None
    except RestorePending as waiting:
        raise errors.Conflict(f"A restore of {waiting.name} already waits for the next start; withdraw it first.",
                              code="backup_restore_pending", params={"name": waiting.name}) from None
    except BadBackup as bad:
        raise errors.Invalid(str(bad), field="name") from None
    await log_activity("backup.restore_request", "settings", "backup", name, name,
                       {"createdAt": staged.manifest.created_at})  # fmt: skip
    return {"pendingRestore": name, "createdAt": staged.manifest.created_at, "message": RESTART}, 202


@blueprint.delete("/admin/backups/restore")
@hide  # the console, not the API: kept out of the OpenAPI document
async def withdraw_restore() -> Response:
    """Withdraw the restore waiting for the next start; 404 when none waits."""
    require_admin()
    name = await trio.to_thread.run_sync(cancel_restore, app_context().settings.data_dir)
    if name is None:
        raise errors.NotFound("No restore waits for the next start.")
    await log_activity("backup.restore_cancel", "settings", "backup", name, name)
    return Response(b"", status=204)


def _backup_json(info: BackupInfo) -> dict[str, Any]:
    return {"name": info.path.name, "size": info.size, "createdAt": info.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")}
