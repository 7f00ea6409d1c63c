"""The scrape queue against the fake TMDB API (issue 17's benchmark).

A library of ``--items`` movies (empty ``.mkv`` files named as the fake's
synthetic titles; media info is read on playback, so no probing competes)
is created on ``reelhouse serve`` (a separate process, SQLite) with the
bundled ``tmdb`` provider pointed at the fake, which answers every request
after ``--delay`` seconds. Prints one line of JSON:

- ``items_per_second``: scraped items over the queue's run (first item
  taken to the job's end, from the job's own timestamps);
- ``allowed_per_second``: what the plugin's concurrency allows: its
  ``concurrency`` / (API requests per item x delay); ``rate_ratio`` the
  share reached (target: at least 0.8);
- ``max_concurrency`` / ``plugin_concurrency``: the most API requests the
  fake saw in flight, against the plugin's limit;
- ``items_p99_ms_rest`` / ``_busy`` and ``p99_ratio``: ``GET /items``
  (a page of 50) p99 at rest (after the queue ended) and while it runs
  (target: the ratio under 1.5).

Usage: PYTHONPATH=src python benchmarks/scrape_load.py [--items N] [--delay S]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import httpx
import trio

from _fake_tmdb_process import fake_tmdb_process, figures
from _http_probe import LatencySamples, running_server, sample_latency

from reelhouse.storage import plugin_catalog

SAMPLE_INTERVAL_S = 0.05
REST_SAMPLES_S = 10.0
RUN_TIMEOUT_S = 900.0


def synthetic_title(index: int) -> tuple[str, int]:
    """As tests/fakes/tmdb_catalogue.py names its synthetic movies."""
    return f"Synthetic Feature {index:05d}", 1950 + index % 70


def make_films(root: Path, count: int) -> None:
    for index in range(count):
        name, year = synthetic_title(index)
        folder = root / f"{name} ({year})"
        folder.mkdir(parents=True)
        (folder / f"{name} ({year}).mkv").write_bytes(b"")


def _ms(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


async def scrape_job(client: httpx.AsyncClient, library_id: str) -> dict | None:
    jobs = (await client.get("/jobs")).json()
    return next((job for job in jobs if job["id"] == f"scrape:{library_id}"), None)


async def measure(work: Path, items: int, delay: float) -> dict[str, float | int | None]:
    root = work / "films"
    make_films(root, items)
    data_dir = work / "data"
    data_dir.mkdir()
    with fake_tmdb_process(items, delay) as (fake, fake_process):
        plugin_catalog.update_state(data_dir, "tmdb", settings={"apiKey": fake["apiKey"], "baseUrl": fake["baseUrl"]})
        with running_server(data_dir, None) as server:
            headers = {"Authorization": f"Bearer {server.key}"}
            async with httpx.AsyncClient(base_url=server.api_url, headers=headers, timeout=30) as client:
                plugins = (await client.get("/plugins/installed")).json()
                concurrency = next(p for p in plugins if p["id"] == "tmdb")["concurrency"]
                created = await client.post("/libraries", json={
                    "name": "Bench", "paths": [str(root)], "collectionType": "movies",
                    "options": {"remoteAllowedHosts": [], "mediaInfoTiming": "playback"}})
                created.raise_for_status()
                library_id = created.json()["id"]
                busy = LatencySamples(f"/items?libraryId={library_id}&limit=50")
                with trio.fail_after(RUN_TIMEOUT_S):
                    async with trio.open_nursery() as nursery:
                        job = None
                        while job is None or job["state"] != "succeeded":
                            await trio.sleep(0.2)
                            job = await scrape_job(client, library_id)
                            if job is not None and job["state"] == "running" and not nursery.child_tasks:
                                nursery.start_soon(sample_latency, client, busy, SAMPLE_INTERVAL_S)
                        nursery.cancel_scope.cancel()
                rest = LatencySamples(busy.path)
                with trio.move_on_after(REST_SAMPLES_S):
                    await sample_latency(client, rest, SAMPLE_INTERVAL_S)
                stats = server.figures()
        upstream = figures(fake_process)
    seconds = _ms(job["finishedAt"]) - _ms(job["startedAt"])
    api_requests = upstream["apiRequests"]
    per_item = api_requests / max(job["messageParams"]["applied"], 1)
    allowed = concurrency / (per_item * delay)
    rate = job["messageParams"]["applied"] / seconds if seconds > 0 else None
    rest_p99 = rest.summary()["p99_ms"]
    busy_p99 = busy.summary()["p99_ms"]
    return {
        "items": items, "applied": job["messageParams"]["applied"], "failed": job["messageParams"]["failed"],
        "seconds": round(seconds, 2), "items_per_second": round(rate, 1) if rate else None,
        "api_requests_per_item": round(per_item, 2), "allowed_per_second": round(allowed, 1),
        "rate_ratio": round(rate / allowed, 2) if rate else None,
        "max_concurrency": upstream["maxApiConcurrency"], "plugin_concurrency": concurrency,
        "items_p50_ms_rest": rest.summary()["p50_ms"], "items_p50_ms_busy": busy.summary()["p50_ms"],
        "items_p99_ms_rest": rest_p99, "items_p99_ms_busy": busy_p99,
        "p99_ratio": round(busy_p99 / rest_p99, 2) if busy_p99 and rest_p99 else None,
        "busy_samples": len(busy.durations), "loop_stalls": stats.get("loop_stalls"),
        "server_cpu_ms_per_item": round(stats["cpu_seconds"] * 1000 / max(items, 1), 2),
        "upstream_busy_share": round(upstream["apiBusySeconds"] / (seconds * concurrency), 2) if seconds else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.02)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scrape-load-") as work:
        started = time.perf_counter()
        figures = trio.run(measure, Path(work), args.items, args.delay)
        figures["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
