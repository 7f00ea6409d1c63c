"""The eight core tasks: their default rules and what the API says about them (pure data)."""

from __future__ import annotations

from dataclasses import dataclass

from ._rules import Rule, Window

__all__ = ["CORE_TASKS", "CoreTask", "Window"]


@dataclass(frozen=True, slots=True)
class CoreTask:
    name: str
    default_rules: tuple[Rule, ...]
    allows_after_scan: bool
    job_kind: str
    title: str
    description: str


def _cron(expression: str, *, after_scan: bool = False) -> Rule:
    return Rule("cron", after_scan=after_scan, cron=expression)


# api-decisions.md "Schedules": default rules in the server time zone.
CORE_TASKS: dict[str, CoreTask] = {task.name: task for task in (
    CoreTask("library_scan", (Rule("interval", every_seconds=21600),), False, "scheduledTask",
             "Scan libraries", "Quick scan of every library whose scans are not suspended."),
    CoreTask("library_full_scan", (_cron("0 3 * * 0"),), False, "scheduledTask",
             "Full scan of libraries", "Full scan (every file) of every library whose scans are not suspended."),
    CoreTask("scrape", (Rule("continuous"),), True, "scrape",
             "Scrape metadata", "Works through the scrape queue with the metadata providers."),
    CoreTask("metadata_refresh", (_cron("0 2 * * 1"),), False, "scheduledTask",
             "Refresh metadata", "Reads NFO files and local images of every library again."),
    CoreTask("poster_pregenerate", (Rule("idle", after_scan=True),), True, "posterPregenerate",
             "Pre-generate posters", "Renders the poster renditions clients ask for into the image cache."),
    CoreTask("cleanup", (_cron("0 4 * * *", after_scan=True),), True, "scheduledTask",
             "Clean up", "Purges long-missing items, orphaned cache files, old scan errors, jobs and addresses."),
    CoreTask("backup", (_cron("30 3 * * *"),), False, "backup",
             "Back up", "Copies the database and settings into the data directory's backups."),
    CoreTask("database_maintenance", (_cron("30 4 * * 0"),), False, "scheduledTask",
             "Database maintenance", "Optimizes, analyzes, checkpoints and vacuums the database."),
)}
