"""scan_load.py's batches: scans started at once through the API, watched by their event stream and polls."""

from __future__ import annotations

import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import trio

from _http_probe import (
    SAMPLE_TIMEOUT_S,
    BenchmarkError,
    LatencySamples,
    Server,
    SseEvent,
    Watch,
    cpu_seconds,
    sample_latency,
    sample_tree_rss,
    stream_events,
    summarize_ms,
)

SAMPLE_INTERVAL_S = 0.02
SCAN_TIMEOUT_S = 600.0  # generous: a loaded 2-core machine took 208 s for 20,000 files on PostgreSQL
STREAM_GRACE_S = 10.0
ERROR_SAMPLES = 3
START_EVENTS = ("scan.queued", "scan.started")
FINAL_EVENTS = ("scan.completed", "scan.failed", "scan.cancelled")
FINAL_STATES = ("completed", "failed", "cancelled")


@dataclass(slots=True)
class ScanRun:
    """One library's scan in a batch, as the stream and the polls saw it."""

    library_id: str
    kind: str
    videos: int
    posted: float = 0.0  # perf_counter just before the POST
    posted_epoch_ms: int = 0
    first_event: float | None = None
    progress: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    stream_final: SseEvent | None = None
    poll_final: dict[str, Any] | None = None
    poll_final_at: float | None = None
    error_samples: list[dict[str, str]] = field(default_factory=list)
    post_error: str | None = None


def _epoch_ms(rfc3339: str) -> int:
    return round(datetime.fromisoformat(rfc3339).timestamp() * 1000)


class Batch:
    """Routes stream events and status polls to the runs of one batch."""

    def __init__(self, runs: list[ScanRun]) -> None:
        self.runs = {run.library_id: run for run in runs}
        self.watch = Watch()
        self.stream_open = False
        self.stream_error: str | None = None

    def on_open(self) -> None:
        self.stream_open = True
        self.watch.changed()

    async def read_stream(self, client: httpx.AsyncClient) -> None:
        """The event stream until cancelled; a broken stream is recorded, not raised."""
        try:
            await stream_events(client, "/scans/events", self.on_event, self.on_open)
            self.stream_error = "the server closed the stream"
        except httpx.HTTPError as exc:
            self.stream_error = f"{type(exc).__name__}: {exc}"
        self.watch.changed()

    def on_event(self, event: SseEvent) -> None:
        run = self.runs.get(event.data.get("libraryId")) if isinstance(event.data, dict) else None
        if run is None or not run.posted or run.stream_final is not None:
            return  # snapshots, other libraries, or before this batch's POST
        if event.name in START_EVENTS and run.first_event is None:
            run.first_event = event.received
        if event.name == "scan.progress":
            run.progress.append(event.received)
        # startedAt is when the scan was accepted (before queueing), so only
        # finishedAt dates the moment an event describes.
        if event.name in FINAL_EVENTS and "finishedAt" in event.data:
            run.lags.append(event.received_epoch - _epoch_ms(event.data["finishedAt"]) / 1000)
        if event.name in FINAL_EVENTS:
            run.stream_final = event
        self.watch.changed()

    def on_statuses(self, statuses: list[dict[str, Any]]) -> None:
        for status in statuses:
            run = self.runs.get(status.get("libraryId", ""))
            if run is None or not run.posted or run.poll_final is not None:
                continue
            started = status.get("startedAt")
            if status.get("state") in FINAL_STATES and started and _epoch_ms(started) >= run.posted_epoch_ms:
                run.poll_final, run.poll_final_at = status, time.perf_counter()
                self.watch.changed()

    def polled_all(self) -> bool | None:
        return True if all(r.poll_final for r in self.runs.values()) else None

    def streamed_all(self) -> bool | None:
        done = self.stream_error or all(r.stream_final for r in self.runs.values())
        return True if done else None

    def stream_ready(self) -> bool | None:
        return True if self.stream_open or self.stream_error else None


@asynccontextmanager
async def api_client(server: Server) -> Any:
    headers = {"Authorization": f"Bearer {server.key}"}
    async with httpx.AsyncClient(base_url=server.api_url, headers=headers, timeout=30.0) as client:
        yield client


async def _post_scan(client: httpx.AsyncClient, run: ScanRun, mode: str) -> None:
    """POST the scan; a refusal is kept in ``run.post_error`` (raising here would end the batch in a group)."""
    run.posted, run.posted_epoch_ms = time.perf_counter(), int(time.time() * 1000)
    try:
        response = await client.post(f"/libraries/{run.library_id}/scan", json={"mode": mode})
    except httpx.HTTPError as exc:
        run.post_error = f"POST scan {run.library_id}: {type(exc).__name__}: {exc}"
        return
    if response.status_code != 200:
        run.post_error = f"POST scan {run.library_id}: {response.status_code} {response.text}"


async def run_batch(server: Server, runs: list[ScanRun], mode: str, page: str | None = None) -> dict[str, Any]:
    """Start a ``mode`` scan of every run's library at once; figures once all have ended.

    With ``page`` (a catalogue path), that page is sampled too (``latency.items_page``).

    Raises BenchmarkError when a POST fails or a scan does not end within
    ``SCAN_TIMEOUT_S``; a missing stream event only shows in the figures.
    """
    batch = Batch(runs)
    system, scans = LatencySamples("/system/status"), LatencySamples("/scans/status")
    items = LatencySamples(page or "")
    async with api_client(server) as stream, api_client(server) as pollers, api_client(server) as control:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(batch.read_stream, stream)
            with trio.move_on_after(SAMPLE_TIMEOUT_S):
                await batch.watch.until(batch.stream_ready)
            if not batch.stream_open and batch.stream_error is None:
                batch.stream_error = f"the stream did not open within {SAMPLE_TIMEOUT_S} s"
            nursery.start_soon(sample_latency, pollers, system, SAMPLE_INTERVAL_S)
            nursery.start_soon(sample_latency, pollers, scans, SAMPLE_INTERVAL_S, batch.on_statuses)
            nursery.start_soon(sample_tree_rss, server, SAMPLE_INTERVAL_S)
            if page is not None:
                nursery.start_soon(sample_latency, pollers, items, SAMPLE_INTERVAL_S)
            started, cpu_before = time.perf_counter(), cpu_seconds(server.process.pid)
            async with trio.open_nursery() as posts:
                for run in runs:
                    posts.start_soon(_post_scan, control, run, mode)
            failure = next((run.post_error for run in runs if run.post_error), None) or await _await_ends(batch)
            nursery.cancel_scope.cancel()
        if failure is not None:
            raise BenchmarkError(f"{mode} scans: {failure}")  # outside the nursery: not wrapped in a group
        cpu = cpu_seconds(server.process.pid) - cpu_before
        for run in runs:
            if (run.poll_final or {}).get("errors"):
                run.error_samples = await _error_samples(control, run.library_id)
    videos = sum(run.videos for run in runs)
    figures = _batch_figures(runs, started, system, scans)
    if page is not None:
        figures["latency"]["items_page"] = items.summary()
    return {
        **figures,
        "server_cpu_seconds": round(cpu, 2),
        "files_per_server_cpu_second": round(videos / cpu) if cpu > 0 else None,
        "stream_error": batch.stream_error,
    }


async def _await_ends(batch: Batch) -> str | None:
    """Wait until polling saw every scan end, then briefly for the stream; a failure message or None."""
    with trio.move_on_after(SCAN_TIMEOUT_S) as waiting:
        await batch.watch.until(batch.polled_all)
    if waiting.cancelled_caught:
        return f"not ended within {SCAN_TIMEOUT_S} s"
    with trio.move_on_after(STREAM_GRACE_S):
        await batch.watch.until(batch.streamed_all)
    return None


async def _error_samples(client: httpx.AsyncClient, library_id: str) -> list[dict[str, str]]:
    """The newest few scan errors of a library: what went wrong, without the whole list."""
    response = await client.get("/scans/errors", params={"libraryId": library_id})
    return [{"path": e["path"], "error": e["error"]} for e in response.json()[:ERROR_SAMPLES]]


def _run_figures(run: ScanRun) -> dict[str, Any]:
    status = run.poll_final or {}
    seconds = (_epoch_ms(status["finishedAt"]) - _epoch_ms(status["startedAt"])) / 1000
    gaps = [b - a for a, b in zip(run.progress, run.progress[1:], strict=False)]
    stream_at = run.stream_final.received if run.stream_final else None
    return {
        "libraryId": run.library_id,
        "kind": run.kind,
        "videos": run.videos,
        "state": status.get("state"),
        **{k: status[k] for k in ("message", "processed", "errors", "added", "changed", "missing") if k in status},
        "scan_seconds": round(seconds, 3),
        "files_per_second": round(run.videos / seconds) if seconds > 0 else None,
        "time_to_first_event_ms": _ms(run.first_event - run.posted) if run.first_event else None,
        "progress_events": len(run.progress),
        "max_progress_gap_ms": _ms(max(gaps)) if gaps else None,
        "stream_final_event": run.stream_final.name if run.stream_final else None,
        "completion_stream_minus_poll_ms": _ms(stream_at - run.poll_final_at)
        if stream_at is not None and run.poll_final_at is not None else None,
        **({"error_samples": run.error_samples} if run.error_samples else {}),
    }


def _batch_figures(runs: list[ScanRun], started: float, system: LatencySamples, scans: LatencySamples) -> dict[str, Any]:
    ends = [r.stream_final.received if r.stream_final else r.poll_final_at or started for r in runs]
    wall = max(ends) - started
    videos = sum(r.videos for r in runs)
    return {
        "scans": [_run_figures(run) for run in runs],
        "videos": videos,
        "wall_seconds": round(wall, 3),
        "total_files_per_second": round(videos / wall) if wall > 0 else None,
        "latency": {"system_status": system.summary(), "scans_status": scans.summary()},
        "event_lag": summarize_ms([lag for run in runs for lag in run.lags]),
    }


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


