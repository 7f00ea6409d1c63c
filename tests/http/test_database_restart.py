"""PostgreSQL going away in the middle of a scan, on a cluster of the test's own.

The scan waits in its probe (a probe worker that answers once a gate file
exists), the database stops, the gate opens: the scan's next write finds
no database.  The scan must end ``failed`` with a message that says so,
its run and its job must be stored ``failed`` once the database is back,
the next scan must start (no 409) and complete, and the scrape queue must
still scrape what the failed scan wrote: nothing stuck, nothing lost, one
log line per failure rather than a traceback per retry.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.jobs import get_stored_job
from reelhouse.storage.scans import latest_scan_run
from tests.actors.scrape.providers import candidate, make_provider, movie
from tests.throwaway_postgres import ThrowawayPostgres

from ..actors.scan.probe_workers import worker_command
from ..media_factory import MediaFactory
from .conftest import start_server
from .scanning import create_library, scan_status, wait_for_phase, wait_for_state
from .scrape_support import wait_for_states, wait_until

CAP_S = 120
LOST = "The scan failed: the database cannot be reached."
CATALOGUE: dict[str, Any] = {
    "search": {"movie|Heat": [candidate("949", "Heat", 0.9, 1995)], "movie|Ronin": [candidate("8195", "Ronin", 0.9, 1998)]},
    "details": {"movie|949": movie("949", "Heat", 1995), "movie|8195": movie("8195", "Ronin", 1998)},
}


@dataclass
class Outage:
    """A server whose first scan failed while its database was stopped, and the database back."""

    client: httpx.AsyncClient
    database_url: str
    library_id: str
    failed: dict[str, Any]  # the scan's status once the database was back


async def _wait_for_log(caplog: pytest.LogCaptureFixture, logger: str, level: int = logging.ERROR) -> None:
    while not any(r.name.startswith(logger) and r.levelno >= level for r in caplog.records):
        await trio.sleep(0.02)


@pytest.fixture
async def outage(
    nursery: trio.Nursery, throwaway_postgres: ThrowawayPostgres, tmp_path: Path, media: MediaFactory,
    caplog: pytest.LogCaptureFixture,
) -> AsyncIterator[Outage]:
    root = tmp_path / "films"
    for title in ("Heat (1995)", "Ronin (1998)"):
        media.video(root / title / f"{title}.mkv")
    gate = tmp_path / "probes-may-answer"
    make_provider(tmp_path / "data" / "plugins", "test", CATALOGUE)
    with trio.fail_after(CAP_S):
        server = await start_server(
            nursery, throwaway_postgres.url, tmp_path / "data",
            scan={"probe_timeout_seconds": 120, "probe_worker_command": worker_command(gate=gate)},
        )  # fmt: skip
    async with server.client() as client:
        with trio.fail_after(CAP_S):
            library = await create_library(
                client, "Films", [root], options={"remoteAllowedHosts": [], "mediaInfoTiming": "scan"}
            )
            await wait_for_phase(client, library["id"], "write")  # items written; the probe waits at the gate
            await trio.to_thread.run_sync(throwaway_postgres.stop)
            gate.touch()
            # Down until the library has told the scrape queue what the failed scan wrote.
            await _wait_for_log(caplog, "reelhouse.actors.scan_actor")
            await _wait_for_log(caplog, "reelhouse.actors.scrape")
            await trio.to_thread.run_sync(throwaway_postgres.start)
            failed = await wait_for_state(client, library["id"])
        yield Outage(client, throwaway_postgres.url, library["id"], failed)
    server.shutdown.set()


async def test_a_scan_that_loses_its_database_fails_with_a_message_and_the_next_scan_completes(
    outage: Outage, caplog: pytest.LogCaptureFixture
) -> None:
    client, library_id = outage.client, outage.library_id
    assert outage.failed["state"] == "failed" and outage.failed["message"] == LOST, outage.failed
    with trio.fail_after(CAP_S):
        async with open_store(outage.database_url) as store:

            async def stored() -> bool:
                run = await latest_scan_run(store, library_id)
                job = await get_stored_job(store, f"scan:{library_id}")
                return run is not None and run.state == "failed" and job is not None and job["state"] == "failed"

            await wait_until(stored, "the failed scan and its job stored as failed")
            run = await latest_scan_run(store, library_id)
        assert run is not None and run.message == LOST

        response = await client.post(f"/libraries/{library_id}/scan")
        assert response.status_code == 200, response.text
        completed = await wait_for_state(client, library_id)
        assert completed["state"] == "completed", completed
    tracebacks = [r for r in caplog.records if r.exc_info is not None and "storage" in str(r.exc_info[1].__class__)]
    # Each failing operation is logged once (the event bus's read and its append may both
    # meet the outage, depending on timing), never once per retry.
    messages = [r.getMessage() for r in tracebacks]
    assert len(messages) == len(set(messages)) and len(messages) <= 2, messages
    lost = [r for r in caplog.records if r.name == "reelhouse.storage" and "cannot be reached" in r.getMessage()]
    assert len(lost) == 1


async def test_the_scrape_queue_scrapes_what_a_scan_wrote_while_its_database_was_down(outage: Outage) -> None:
    with trio.fail_after(CAP_S):
        await wait_for_states(outage.client, outage.library_id, {"Heat": "scraped", "Ronin": "scraped"})
        status = await scan_status(outage.client, outage.library_id)
    assert status["state"] == "failed"  # no scan since: what it wrote was queued when the database came back
