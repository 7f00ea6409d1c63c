"""The scrape queue's job, ``scrape:{libraryId}``, as the reference's Job.

One run lasts from the first pending item the queue takes to the moment
none is left; a pause (no provider, a rate limit, an upstream down) keeps
the run, in state ``paused``. Never cancellable (the reference: scrape
queues are not). messageCodes and their params:

- ``scrapeRunning`` {processed, pending, approximate, count, name, providers}:
  ``pending`` = items not done yet (in progress or waiting), ``count`` =
  processed + pending (the run's size as known now), ``name`` the item
  last taken, ``providers`` the provider ids in use; the text tells the
  items in progress (being matched, or waiting for their images) from the
  ones waiting to be taken;
- ``scrapeWaiting`` {processed, pending, approximate}: items are pending
  and none is in progress: a batch about to be taken (a run's start, the
  end of a pause), or every item taken has settled and the rest waits for
  the next batch; ``approximate`` is false (the count is read exactly);
- ``paused`` {code: ``provider_unavailable``, reason}: reason is the
  ProviderErrorCode or plugin status;
- ``rateLimited`` {retryAt} (state paused);
- ``noProvider`` (state paused): no selected provider is usable;
- ``scrapeBatchDone`` {processed, applied, failed, needsIdentify} at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from reelhouse.timefmt import rfc3339_ms

from ..jobs import JobSnapshot


@dataclass(slots=True)
class RunTally:
    started_at_ms: int
    trigger: str  # scan, manual, auto
    processed: int = 0
    applied: int = 0
    failed: int = 0
    needs_identify: int = 0
    in_progress: int = 0  # taken and not yet settled (still pending in the store)
    current: str | None = None
    providers: tuple[str, ...] = field(default=())


def running(base: JobSnapshot, tally: RunTally, pending: int) -> JobSnapshot:
    if tally.in_progress <= 0 and pending > 0:
        return waiting(base, tally, pending)
    params: dict[str, Any] = {
        "processed": tally.processed, "pending": pending, "approximate": False,
        "count": tally.processed + pending, "name": tally.current or "", "providers": list(tally.providers),
    }
    in_progress = min(tally.in_progress, pending)
    message = f"Scraping: {tally.processed} done, {in_progress} in progress, {pending - in_progress} waiting."
    return replace(_counted(base, tally, pending), state="running", message_code="scrapeRunning",
                   message_params=params, message=message)


def waiting(base: JobSnapshot, tally: RunTally, pending: int) -> JobSnapshot:
    params = {"processed": tally.processed, "pending": pending, "approximate": False}
    message = f"Scraping: {tally.processed} done, {pending} waiting to be taken."
    return replace(_counted(base, tally, pending), state="running", message_code="scrapeWaiting",
                   message_params=params, message=message)


def paused(base: JobSnapshot, tally: RunTally, pending: int, *, code: str, reason: str,
           retry_at_ms: int | None) -> JobSnapshot:
    job = replace(_counted(base, tally, pending), state="paused")
    if code == "no_provider":
        return replace(job, message_code="noProvider", message_params={},
                       message="No metadata provider is available; the scrape queue waits.")
    if code == "rate_limited" and retry_at_ms is not None:
        return replace(job, message_code="rateLimited", message_params={"retryAt": rfc3339_ms(retry_at_ms)},
                       message="The provider asked to wait; the scrape queue resumes then.")
    return replace(job, message_code="paused", message_params={"code": "provider_unavailable", "reason": reason},
                   message="The metadata provider is unavailable; the scrape queue tries again later.")


def finished(base: JobSnapshot, tally: RunTally, finished_at_ms: int) -> JobSnapshot:
    params = {"processed": tally.processed, "applied": tally.applied, "failed": tally.failed,
              "needsIdentify": tally.needs_identify}
    return replace(_counted(base, tally, 0), state="succeeded", finished_at_ms=finished_at_ms,
                   message_code="scrapeBatchDone", message_params=params, current=None,
                   message=f"Scraped {tally.processed} items.")


def base_job(library_id: str, library_name: str, tally: RunTally) -> JobSnapshot:
    return JobSnapshot(id=f"scrape:{library_id}", kind="scrape", title=f"Scrape {library_name}", state="running",
                       cancellable=False, library_id=library_id, subject=library_name,
                       started_at_ms=tally.started_at_ms, trigger=tally.trigger)


def _counted(base: JobSnapshot, tally: RunTally, pending: int) -> JobSnapshot:
    return replace(base, processed=tally.processed, total=tally.processed + pending, errors=tally.failed,
                   changed=tally.applied, current=tally.current)
