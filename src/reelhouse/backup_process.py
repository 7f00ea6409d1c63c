"""A backup made in a child process at low CPU priority (``python -m reelhouse.backup_process``).

The copy and its compression are CPU and I/O work the server's event loop
must not feel: in a thread they compete for the GIL (measured: GET /items
p99 1.7x while a backup ran beside database maintenance). A child process
holds no GIL of the server's, and ``nice`` gives the server the CPU first.
Arguments: one JSON object on stdin; the BackupInfo as JSON on stdout, or
the BackupError's message on stderr and exit code 1.
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

NICENESS = 10
TIMEOUT_SECONDS = 3600.0


async def backup_in_child(database_url: str, data_dir: Path, *, settings: dict[str, Any],
                          config_file: Path | None, keep: int, schema_version: int) -> BackupInfo:
    """Run :func:`create_backup` in a niced child process; raises BackupError."""
    request = {"database_url": database_url, "data_dir": str(data_dir), "settings": settings,
               "config_file": str(config_file) if config_file else None, "keep": keep,
               "schema_version": schema_version}
    with trio.fail_after(TIMEOUT_SECONDS):
        done = await trio.run_process(
            [sys.executable, "-m", "reelhouse.backup_process"], stdin=json.dumps(request).encode(),
            capture_stdout=True, capture_stderr=True, check=False, preexec_fn=_lower_priority,
        )  # fmt: skip
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise BackupError(message[-1] if message else f"the backup process exited with {done.returncode}")
    answer = json.loads(done.stdout)
    return BackupInfo(Path(answer["path"]), int(answer["size"]), datetime.fromisoformat(answer["createdAt"]))


def _lower_priority() -> None:
    os.nice(NICENESS)


def main() -> int:
    request = json.loads(sys.stdin.read())
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
