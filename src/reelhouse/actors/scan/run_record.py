"""A scan run's end in the store, when the database could not take it as the scan ended.

A scan that fails because the database went away cannot record that it
failed; its row would say ``running`` for ever (until the next start
turns it ``failed``).  The library keeps trying to store the end it was
told, until the database takes it.
"""

from __future__ import annotations

import logging

import trio

from reelhouse.storage import Store, StoreError
from reelhouse.storage.cluster_fence import FencedOut
from reelhouse.storage.scans import update_scan_run

from .status import ScanStatusView

RETRY_FIRST_SECONDS = 0.5  # tried again after this, doubling...
RETRY_MAX_SECONDS = 10.0  # ...up to this

log = logging.getLogger(__name__)


def scan_counts(status: ScanStatusView) -> dict[str, int]:
    """The counts a run's row keeps."""
    return {
        "processed": status.processed,
        "errors": status.errors,
        "added": status.added or 0,
        "changed": status.changed or 0,
        "missing": status.missing or 0,
    }


async def record_run_end_until_stored(store: Store, run_id: int, status: ScanStatusView) -> None:
    """Store ``status`` (a final state) as run ``run_id``'s end; retried until the store takes it."""
    delay = RETRY_FIRST_SECONDS
    while True:
        try:
            await update_scan_run(
                store, run_id, state=status.state, counts=scan_counts(status), message=status.message,
                finished_at_ms=status.finished_at_ms,
            )  # fmt: skip
        except FencedOut:
            log.warning("scan %d: this node no longer leads its library; its new leader records it", run_id)
            return
        except StoreError:
            await trio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX_SECONDS)
            continue
        log.info("recorded the end of scan %d (%s) now that the database answers", run_id, status.state)
        return
