"""The schedule: when maintenance and plugin tasks run, and the actor that runs them.

The public face of the package (the private modules hold the parts):
``_scheduler`` the Scheduler actor (due times, windows, activity gates,
missed runs at start-up, drift); ``_messages`` the messages it answers;
``_tasks`` task definitions and their runner; ``_plugins`` plugin-declared
tasks kept in step with the plugin host; ``_view`` rows for GET /schedules.
The rules themselves are pure (:mod:`reelhouse.media.schedule`); stored
overrides are in :mod:`reelhouse.storage.schedules`.
"""

from ._messages import (
    CancelRun,
    GetDrift,
    ListSchedules,
    PlaybackActivity,
    RunNow,
    ScanActivity,
)
from ._plugins import (
    SyncPluginTasks,
)
from ._scheduler import (
    STALE_CHECKS_FACTOR,
    STALE_CHECKS_SLACK,
    Scheduler,
    SchedulerServices,
)
from ._tasks import (
    RunEnd,
    RunPluginTask,
    TaskContext,
    TaskDefinition,
    TaskRunner,
    trio_wall_clock,
)

__all__ = [
    "STALE_CHECKS_FACTOR",
    "STALE_CHECKS_SLACK",
    "CancelRun",
    "GetDrift",
    "ListSchedules",
    "PlaybackActivity",
    "RunEnd",
    "RunNow",
    "RunPluginTask",
    "ScanActivity",
    "Scheduler",
    "SchedulerServices",
    "SyncPluginTasks",
    "TaskContext",
    "TaskDefinition",
    "TaskRunner",
    "trio_wall_clock",
]
