"""The eight core tasks' work, one function per task, for the Scheduler."""

from __future__ import annotations

from reelhouse.media.schedule import CORE_TASKS

from ..schedule import TaskDefinition, TaskRunner
from .backup import run_backup
from .posters import run_poster_pregenerate
from .scans import run_full_scans, run_metadata_refresh, run_quick_scans
from .upkeep import run_cleanup, run_database_maintenance, run_scrape

RUNNERS: dict[str, TaskRunner] = {
    "library_scan": run_quick_scans,
    "library_full_scan": run_full_scans,
    "scrape": run_scrape,
    "metadata_refresh": run_metadata_refresh,
    "poster_pregenerate": run_poster_pregenerate,
    "cleanup": run_cleanup,
    "backup": run_backup,
    "database_maintenance": run_database_maintenance,
}


def core_tasks(runners: dict[str, TaskRunner] | None = None) -> dict[str, tuple[TaskDefinition, TaskRunner]]:
    """Every core task's definition (defaults from media/schedule/_defaults.py) and work."""
    chosen = {**RUNNERS, **(runners or {})}
    return {
        name: (
            TaskDefinition(name, task.default_rules, task.allows_after_scan, task.job_kind, task.title,
                           descriptions={"en": task.description}),
            chosen[name],
        )
        for name, task in CORE_TASKS.items()
    }
