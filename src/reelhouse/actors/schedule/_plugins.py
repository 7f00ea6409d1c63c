"""Plugin tasks in the Scheduler: what the plugin host declares, and one run of it.

The host (``actors/plugins/host.py``) answers :class:`ListTasks` with the
tasks of enabled plugins, read from their manifests; the scheduler asks it
at start and on each reload poll and registers or forgets tasks to match
(``pluginId.taskName``). A manifest gives no schedule, so a plugin task's
default rule is ``manual``; an administrator sets others through the
schedules endpoint, and stored rules are kept for a task that returns.

A run is the JSON-RPC call ``task.run``: a plugin error ends the run
``failed`` with a schedule error code and a fixed message (the plugin's own
error text is logged, never stored: it may echo its settings).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final

import trio

from reelhouse import errors
from reelhouse.media.schedule import Rule
from reelhouse.runtime import ActorRef, NestedAskFailed
from reelhouse.storage.schedules import RunEnd

from ..plugins.connection import PluginCallError, PluginNotRunning
from ..plugins.host import ListTasks, PluginTaskInfo, run_task
from ._tasks import TaskDefinition

__all__ = ["SyncPluginTasks", "follow_plugin_tasks", "list_plugin_tasks", "plugin_task_definition",
           "run_plugin_task"]

log = logging.getLogger(__name__)

LIST_TIMEOUT_SECONDS: Final = 10.0
SYNC_TIMEOUT_SECONDS: Final = 10.0
PLUGIN_TASK_DEFAULT_RULES: Final = (Rule("manual"),)
MAX_MESSAGE_CHARS: Final = 500
# ProviderErrorCode (the plugin's reason) -> the Schedule's lastErrorCode.
_ERROR_CODES: Final = {
    "timeout": "timeout",
    "unreachable": "unreachable",
    "rate_limited": "unreachable",
    "crashed": "unreachable",
    "auth_failed": "permission_denied",
    "needs_configuration": "invalid",
}


@dataclass(frozen=True, slots=True)
class SyncPluginTasks:
    """Ask (the scheduler's own follower -> scheduler): these are the plugin tasks now."""

    definitions: tuple[TaskDefinition, ...]


async def follow_plugin_tasks(plugins: ActorRef, scheduler: ActorRef, period: float | None) -> None:
    """Keep the scheduler's plugin tasks in step with the host: now, then every ``period``."""
    while True:
        definitions = await list_plugin_tasks(plugins)
        if definitions is not None:
            try:
                await scheduler.ask(SyncPluginTasks(tuple(definitions)), timeout=SYNC_TIMEOUT_SECONDS)
            except (errors.DomainError, NestedAskFailed, trio.TooSlowError) as exc:  # the store was busy: next poll
                log.warning("scheduler: could not register plugin tasks (%s)", type(exc).__name__)
        if period is None:
            return
        await trio.sleep(period)


def plugin_task_definition(info: PluginTaskInfo) -> TaskDefinition:
    spec = info.task
    return TaskDefinition(
        name=info.key, default_rules=PLUGIN_TASK_DEFAULT_RULES, job_kind="scheduledTask",
        title=spec.names.get("en", info.key), owner=info.plugin_id, names=dict(spec.names),
        descriptions=dict(spec.descriptions) or None,
    )  # fmt: skip


async def list_plugin_tasks(plugins: ActorRef) -> list[TaskDefinition] | None:
    """The tasks of enabled plugins, or None when the host did not answer (retried next poll)."""
    try:
        infos = await plugins.ask(ListTasks(), timeout=LIST_TIMEOUT_SECONDS)
    except Exception as exc:  # a busy or restarting host: keep what is registered
        log.warning("scheduler: could not list plugin tasks (%s); trying again at the next poll",
                    type(exc).__name__)
        return None
    return [plugin_task_definition(info) for info in infos]


async def run_plugin_task(plugins: ActorRef, name: str) -> RunEnd:
    """One run of ``pluginId.taskName``; cancelling the caller cancels the call."""
    plugin_id = name.partition(".")[0]
    try:
        result = await run_task(plugins, name)
    except PluginCallError as exc:
        log.warning("plugin task %s failed: %s", name, exc)
        code = _ERROR_CODES.get(exc.reason, "unknown")
        return RunEnd("failed", code, message=f"The plugin {plugin_id} reported an error ({exc.reason}).")
    except PluginNotRunning as exc:
        return RunEnd("failed", "unreachable", message=f"The plugin {plugin_id} is {exc.status}.")
    except errors.NotFound:
        return RunEnd("failed", "not_found", message=f"The plugin {plugin_id} is not installed.")
    except trio.TooSlowError:
        return RunEnd("failed", "timeout", message=f"The plugin {plugin_id} did not answer in time.")
    return RunEnd("succeeded", message=_result_message(result))


def _result_message(result: Any) -> str | None:
    """The plugin's own summary of a run (``{"message": ...}``), shortened."""
    message = result.get("message") if isinstance(result, dict) else None
    return message[:MAX_MESSAGE_CHARS] if isinstance(message, str) and message else None
