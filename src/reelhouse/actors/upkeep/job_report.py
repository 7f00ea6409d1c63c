"""One upkeep job's reports to the JobRegistry: progress as it goes, one final state.

Progress is told with ``try_tell`` (a full registry mailbox drops a step,
never holds the job); the final state is told under a bounded shield, so
a job cancelled by its asker or a stopping server is still recorded
``cancelled`` (or ``failed``) within the shutdown deadline.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import trio

from reelhouse.runtime import ActorRef
from reelhouse.shutdown import bounded_shield
from reelhouse.storage import now_ms

from ..jobs import JobSnapshot, JobUpdate

PROGRESS_EVERY_SECONDS = 0.5
FINAL_TELL_SECONDS = 2.0


class JobReport:
    """The job's latest snapshot; ``owner``/``cancel`` route a cancel while it runs."""

    def __init__(self, jobs: ActorRef, base: JobSnapshot, owner: ActorRef | None, cancel: object | None) -> None:
        self._jobs = jobs
        self.job = base
        self._owner = owner
        self._cancel = cancel
        self._told_at = -PROGRESS_EVERY_SECONDS

    def progress(self, *, force: bool = False, **fields: Any) -> None:
        """Move the job; told at most every PROGRESS_EVERY_SECONDS unless ``force``."""
        self.job = replace(self.job, **fields)
        now = trio.current_time()
        if force or now - self._told_at >= PROGRESS_EVERY_SECONDS:
            self._told_at = now
            self._jobs.try_tell(JobUpdate(self.job, self._owner, self._cancel))

    async def finish(self, state: str, **fields: Any) -> None:
        """The final state (``succeeded``, ``failed``, ``cancelled``), told even while cancelled."""
        self.job = replace(self.job, state=state, cancellable=False, finished_at_ms=now_ms(), **fields)
        with bounded_shield(FINAL_TELL_SECONDS):
            await self._jobs.tell(JobUpdate(self.job))
