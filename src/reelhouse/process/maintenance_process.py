"""Backups and database upkeep in a child process at low CPU priority
(``python -m reelhouse.process.maintenance_process``).

A backup's copy and compression, and ANALYZE / VACUUM, are CPU and I/O
work the server's event loop must not feel: in a thread they compete for
the GIL (measured: GET /items p99 1.7x while both ran in threads). A child
process holds no GIL of the server's, and ``nice`` gives the server the
CPU first. Protocol: one JSON object on stdin (``command`` ``backup`` or
``optimize`` and its arguments); the answer as JSON on stdout, or a
message on stderr and exit code 1.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import trio

from reelhouse.storage.backups import BackupError, BackupInfo, create_backup
from reelhouse.storage.maintenance import MaintenanceError, MaintenanceReport, optimize_database_now

NICENESS = 10
TIMEOUT_SECONDS = 3600.0


async def backup_in_child(database_url: str, data_dir: Path, *, settings: dict[str, Any],
                          config_file: Path | None, keep: int, schema_version: int) -> BackupInfo:
    """Run :func:`create_backup` in a niced child process; raises BackupError."""
    request = {"command": "backup", "database_url": database_url, "data_dir": str(data_dir), "settings": settings,
               "config_file": str(config_file) if config_file else None, "keep": keep,
               "schema_version": schema_version}
    answer = await _in_child(request, BackupError)
    return BackupInfo(Path(answer["path"]), int(answer["size"]), datetime.fromisoformat(answer["createdAt"]))


async def optimize_in_child(database_url: str) -> MaintenanceReport:
    """Run :func:`optimize_database_now` in a niced child process; raises MaintenanceError."""
    answer = await _in_child({"command": "optimize", "database_url": database_url}, MaintenanceError)
    return MaintenanceReport(tuple(answer["steps"]))


async def _in_child(request: dict[str, Any], error: type[Exception]) -> dict[str, Any]:
    with trio.fail_after(TIMEOUT_SECONDS):
        done = await trio.run_process(
            [sys.executable, "-m", "reelhouse.process.maintenance_process"], stdin=json.dumps(request).encode(),
            capture_stdout=True, capture_stderr=True, check=False, preexec_fn=_lower_priority,
        )  # fmt: skip
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise error(message[-1] if message else f"the maintenance process exited with {done.returncode}")
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _lower_priority() -> None:
    os.nice(NICENESS)


def main() -> int:
    request = json.loads(sys.stdin.read())
    if request.get("command") == "optimize":
        try:
            report = optimize_database_now(request["database_url"])
        except Exception as exc:  # sqlite3 / psycopg errors: the name only (no connection details)
            print(f"Database maintenance failed: {type(exc).__name__}", file=sys.stderr)
            return 1
        print(json.dumps({"steps": list(report.steps)}))
        return 0
    try:
        info = create_backup(
            request["database_url"], Path(request["data_dir"]), settings=request["settings"],
            config_file=Path(request["config_file"]) if request["config_file"] else None,
            keep=int(request["keep"]), schema_version=int(request["schema_version"]),
        )  # fmt: skip
    except (BackupError, OSError) as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(json.dumps({"path": str(info.path), "size": info.size, "createdAt": info.created_at.isoformat()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
