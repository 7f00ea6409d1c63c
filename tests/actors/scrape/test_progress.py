"""The scrape job's message codes: scrapeWaiting while nothing is in progress, scrapeRunning while items are."""

from __future__ import annotations

from reelhouse.actors.scrape import progress


def _tally(processed: int, in_progress: int) -> progress.RunTally:
    tally = progress.RunTally(started_at_ms=1_000, trigger="manual", processed=processed, current="Heat")
    tally.in_progress = in_progress
    return tally


def test_pending_items_with_none_in_progress_are_scrape_waiting() -> None:
    base = progress.base_job("lib", "Films", _tally(0, 0))
    job = progress.running(base, _tally(2, 0), pending=3)
    assert job.state == "running" and job.message_code == "scrapeWaiting"
    assert job.message_params == {"processed": 2, "pending": 3, "approximate": False}
    assert (job.processed, job.total) == (2, 5)


def test_items_in_progress_are_scrape_running() -> None:
    base = progress.base_job("lib", "Films", _tally(0, 0))
    job = progress.running(base, _tally(2, 1), pending=3)
    assert job.message_code == "scrapeRunning" and job.message_params is not None
    assert job.message_params["count"] == 5 and job.message_params["name"] == "Heat"
