"""What one metadata job run gets: services, its job snapshot, and reporting."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from reelhouse.runtime import ActorRef

from ..jobs import JobSnapshot, JobUpdate
from ..scrape.queue import ScrapeServices

log = logging.getLogger(__name__)


@dataclass
class JobRun:
    """One run: the shared services and its job as the registry last heard it."""

    services: ScrapeServices
    job: JobSnapshot
    owner: ActorRef
    cancel: object

    def progress(self, **fields: Any) -> None:
        """Update the job (JobSnapshot field names); dropped when the registry is busy."""
        self.job = replace(self.job, **fields)
        try:
            self.services.jobs.try_tell(JobUpdate(self.job, owner=self.owner, cancel=self.cancel))
        except Exception:  # a stopped registry: the run goes on without progress
            log.debug("job %s: progress not told", self.job.id)

    async def report(self, **fields: Any) -> None:
        """A state change: waits for room in the registry's mailbox, never dropped."""
        if fields.get("state") in ("cancelling", "succeeded", "failed", "cancelled"):
            fields.setdefault("cancellable", False)
        self.job = replace(self.job, **fields)
        try:
            await self.services.jobs.tell(JobUpdate(self.job, owner=self.owner, cancel=self.cancel))
        except Exception:  # a stopped registry (shutdown): nothing to tell
            log.debug("job %s: state not told", self.job.id)
