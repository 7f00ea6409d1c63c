"""The backup task: a consistent copy of the database and settings while the server serves."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from reelhouse.config import Settings
from reelhouse.process.maintenance_process import backup_in_child
from reelhouse.storage import Store, applied_versions
from reelhouse.storage.backups import BackupError, BackupInfo

from ..schedule import RunEnd, TaskContext


async def make_backup(store: Store, settings: Settings) -> BackupInfo:
    """Create one backup now (the command line uses this too); raises BackupError."""
    version = max(await applied_versions(store), default=0)
    config = os.environ.get("REELHOUSE_CONFIG")
    settings_json: dict[str, Any] = settings.model_dump(mode="json")
    # In a niced child process (reelhouse/process/maintenance_process.py); not cancellable
    # midway: a half-written backup is never left (it is renamed into place).
    return await backup_in_child(
        settings.effective_database_url, settings.data_dir, settings=settings_json,
        config_file=Path(config) if config else None, keep=settings.schedule.backup_keep, schema_version=version,
    )  # fmt: skip


async def run_backup(ctx: TaskContext) -> RunEnd:
    if ctx.settings is None:
        return RunEnd("skipped", message="No settings to back up.")
    ctx.progress(processed=0, total=1, message_code="backupInProgress", message="Backup in progress.",
                 cancellable=False)
    try:
        info = await make_backup(ctx.store, ctx.settings)
    except (BackupError, OSError) as exc:
        ctx.progress(message_code=None, message=str(exc))
        return RunEnd("failed", "unknown", message=str(exc))
    ctx.progress(processed=1, changed=1, message_code="backupDone", message=f"Backup written: {info.path.name}.",
                 message_params={"file": info.path.name, "bytes": info.size})
    return RunEnd("succeeded", message=info.path.name)
