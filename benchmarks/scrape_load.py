"""The scrape queue with the bundled TMDB provider against the local fake TMDB API.

What it does, in one run:

1. writes ``--items`` movie folders (``Synthetic Feature 00001 (1951)/...mkv``,
   64 dummy bytes, no NFO) and starts the fake TMDB API (tests/fakes) with
   as many synthetic movies in a process of its own (``_fake_tmdb_process``:
   its threads would otherwise take the GIL from the latency probe); it
   answers every request after ``--delay-ms`` once the scrape starts;
2. sets the bundled ``tmdb`` plugin's ``apiKey`` and ``baseUrl`` (the fake)
   with ``reelhouse plugin set``, starts ``reelhouse serve`` (SQLite, fresh
   data directory), creates a movies library with ``autoScrape`` off and
   waits for its scan: every item is ``scrapeState: none``;
3. at rest: samples ``GET /items?libraryId=..&limit=50`` every 20 ms for
   ``--rest-seconds``;
4. turns ``autoScrape`` on and ``POST /libraries/{id}/scrape-requeue``:
   the queue scrapes every item (search, details, images from the fake)
   while the same request is sampled at the same pace, until no item is
   ``pending`` (timeout ``--timeout`` s).

Figures (one JSON document on stdout):

- ``items_per_second``: items that left ``pending`` / seconds from the
  requeue to the last one; ``steady_items_per_second`` between 10 % and 90 %;
- ``plugin_concurrency`` (the plugin's effective limit), ``max_api_concurrency``
  and ``mean_api_concurrency`` (API requests in flight at the fake: the most,
  and the time average over the scrape), ``api_requests_per_item`` and
  ``image_requests_per_item``;
- ``allowed_items_per_second`` = concurrency / (delay x API requests per
  item): what the plugin's limit allows; ``rate_vs_allowed`` = items per
  second / that (target at least 0.8);
- ``items_p99_rest_ms``, ``items_p99_scrape_ms`` and ``p99_ratio`` (target
  under 1.5), with p50 and counts; the rest is sampled before the scrape
  (bare items); ``items_p99_rest_after_ms`` and ``p99_ratio_vs_rest_after``
  compare with the same request after it (items carrying their metadata);
- ``states``: items per final scrape state; ``job``: the scrape job at the end;
  ``server_cpu_ms_per_item``: the server process's CPU time during the
  scrape per item (its plugin child not counted);
- ``plugin_only``: the plugin alone, no server: ``search`` + ``details`` for
  ``--plugin-items`` titles through an in-process PluginHost, three callers
  per concurrency slot; its items per second and ``rate_vs_allowed`` show
  what the plugin and the fake can do, apart from the queue.

It asserts nothing about timings; it exits 1 only when it could not measure
(the server failed, the queue did not finish in time).

Usage: .venv/bin/python benchmarks/scrape_load.py [--items 2000] [--delay-ms 20]
       [--rest-seconds 8] [--timeout 600] [--plugin-items 400] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import trio

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS.parent))  # tests.fakes: the fake TMDB the tests use

from tests.fakes.tmdb_catalogue import synthetic_title  # noqa: E402

from _fake_tmdb_process import command, fake_tmdb_process  # noqa: E402
from _fake_tmdb_process import figures as fake_figures  # noqa: E402
from _http_probe import (  # noqa: E402
    BenchmarkError,
    LatencySamples,
    Server,
    cpu_seconds,
    running_server,
    sample_latency,
    sigterm_as_interrupt,
    summarize_ms,
)
from reelhouse.actors.plugins import HostConfig, PluginHost, call_plugin  # noqa: E402
from reelhouse.media.plugin_policy import CrashPolicy  # noqa: E402
from reelhouse.runtime import ChildSpec, RootActor  # noqa: E402
from reelhouse.storage import plugin_catalog  # noqa: E402

SAMPLE_INTERVAL_S = 0.02
POLL_INTERVAL_S = 0.5
SCAN_TIMEOUT_S = 300.0
FINAL_STATES = ("completed", "failed", "cancelled")
SCRAPED_STATES = ("scraped", "needsIdentify", "failed", "identified")


def write_tree(root: Path, items: int) -> None:
    for index in range(items):
        title, year = synthetic_title(index)
        folder = root / f"{title} ({year})"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{title} ({year}).mkv").write_bytes(b"\x1a\x45\xdf\xa3" + bytes(60))


class Fake:
    """The fake TMDB's process: its address and key, and its commands."""

    def __init__(self, info: dict[str, Any], process: subprocess.Popen[str]) -> None:
        self.base_url, self.api_key, self._process = str(info["baseUrl"]), str(info["apiKey"]), process
        self.delay = 0.0

    def set_delay(self, seconds: float) -> None:
        command(self._process, f"delay {seconds}")
        self.delay = seconds

    def reset(self) -> None:
        command(self._process, "reset")

    def figures(self) -> dict[str, Any]:
        return fake_figures(self._process)


def configure_plugin(data_dir: Path, fake: Fake) -> None:
    argv = [sys.executable, "-m", "reelhouse", "--data-dir", str(data_dir), "plugin", "set", "tmdb",
            f"apiKey={fake.api_key}", f"baseUrl={fake.base_url}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise BenchmarkError(f"plugin set failed ({done.returncode}): {done.stderr.strip()}")


def client_for(server: Server) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server.api_url, headers={"Authorization": f"Bearer {server.key}"}, timeout=30)


async def ok(response_awaitable: Any, what: str) -> Any:
    response = await response_awaitable
    if response.status_code >= 300:
        raise BenchmarkError(f"{what}: {response.status_code} {response.text[:300]}")
    return response.json() if response.content else None


async def create_library(client: httpx.AsyncClient, root: Path) -> str:
    options = {"remoteAllowedHosts": [], "autoScrape": False, "metadataProviders": ["tmdb"],
               "metadataLanguage": "en", "mediaInfoTiming": "playback", "realtimeMonitor": False}
    body = {"name": "Scrape bench", "paths": [str(root)], "collectionType": "movies", "options": options}
    library = await ok(client.post("/libraries", json=body), "POST /libraries")
    library_id = str(library["id"])
    with trio.fail_after(SCAN_TIMEOUT_S):
        while True:
            statuses = await ok(client.get("/scans/status"), "GET /scans/status")
            status = next((s for s in statuses if s["libraryId"] == library_id), None)
            if status is not None and status["state"] in FINAL_STATES:
                if status["state"] != "completed":
                    raise BenchmarkError(f"the scan ended {status['state']}")
                break
            await trio.sleep(0.2)
    return library_id


async def count_state(client: httpx.AsyncClient, library_id: str, state: str) -> int:
    params = {"libraryId": library_id, "scrapeState": state, "includeTotal": "true", "limit": 1}
    body = await ok(client.get("/items", params=params), "GET /items?scrapeState")
    return int(body.get("totalCount", 0))


async def scrape_job(client: httpx.AsyncClient, library_id: str) -> dict[str, Any] | None:
    jobs = await ok(client.get("/jobs"), "GET /jobs")
    jobs = jobs["items"] if isinstance(jobs, dict) else jobs
    return next((job for job in jobs if job.get("id") == f"scrape:{library_id}"), None)


async def sample_for(client: httpx.AsyncClient, path: str, seconds: float) -> LatencySamples:
    samples = LatencySamples(path)
    with trio.move_on_after(seconds):
        await sample_latency(client, samples, SAMPLE_INTERVAL_S)
    return samples


async def scrape(server: Server, fake: Fake, library_id: str, items: int, timeout: float) -> dict[str, Any]:
    """Requeue every item and follow the queue; the timeline of ``pending`` and the latency samples."""
    path = f"/items?libraryId={library_id}&limit=50"
    during = LatencySamples(path)
    timeline: list[tuple[float, int]] = []
    async with client_for(server) as control, client_for(server) as sampler:
        await ok(control.patch(f"/libraries/{library_id}/options", json={"remoteAllowedHosts": [], "autoScrape": True}),
                 "PATCH options")
        fake.reset()
        started = time.perf_counter()
        queued = await ok(control.post(f"/libraries/{library_id}/scrape-requeue"), "POST scrape-requeue")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sample_latency, sampler, during, SAMPLE_INTERVAL_S)
            with trio.move_on_after(timeout) as waiting:
                while True:
                    pending = await count_state(control, library_id, "pending")
                    timeline.append((time.perf_counter() - started, pending))
                    if pending == 0:
                        break
                    await trio.sleep(POLL_INTERVAL_S)
            elapsed = time.perf_counter() - started
            nursery.cancel_scope.cancel()
        if waiting.cancelled_caught:
            raise BenchmarkError(f"the queue did not finish in {timeout} s: {timeline[-1][1]} items still pending")
        states = {state: await count_state(control, library_id, state) for state in SCRAPED_STATES}
        job = await scrape_job(control, library_id)
        plugins = await ok(control.get("/plugins/installed"), "GET /plugins/installed")
    plugin = next(p for p in (plugins["items"] if isinstance(plugins, dict) else plugins) if p["id"] == "tmdb")
    upstream = fake.figures()
    return {"queued": queued, "elapsed": elapsed, "timeline": timeline, "during": during, "states": states,
            "job": job, "concurrency": int(plugin["concurrency"]), "api_busy": upstream["apiBusySeconds"],
            "counts": upstream["counts"], "max_api_concurrency": upstream["maxApiConcurrency"]}


def steady_rate(timeline: list[tuple[float, int]], total: int) -> float | None:
    """Items per second between 10 % and 90 % of the work done."""
    done = [(at, total - pending) for at, pending in timeline]
    low = next(((at, n) for at, n in done if n >= 0.1 * total), None)
    high = next(((at, n) for at, n in done if n >= 0.9 * total), None)
    if low is None or high is None or high[0] <= low[0]:
        return None
    return (high[1] - low[1]) / (high[0] - low[0])


def figures(items: int, delay: float, rest: LatencySamples, run: dict[str, Any]) -> dict[str, Any]:
    counts = run["counts"]
    api = sum(n for p, n in counts.items() if p.startswith("/3/") and p != "/3/configuration")
    images = sum(n for p, n in counts.items() if p.startswith("/t/p/"))
    per_item = api / items if items else 0.0
    allowed = run["concurrency"] / (delay * per_item) if per_item else None
    rate = items / run["elapsed"]
    rest_summary, during_summary = summarize_ms(rest.durations), summarize_ms(run["during"].durations)
    ratio = (during_summary["p99_ms"] / rest_summary["p99_ms"]
             if rest_summary["p99_ms"] and during_summary["p99_ms"] else None)
    return {
        "items": items, "delay_ms": delay * 1000, "queued": run["queued"], "seconds": round(run["elapsed"], 2),
        "items_per_second": round(rate, 1),
        "steady_items_per_second": round(s, 1) if (s := steady_rate(run["timeline"], items)) else None,
        "plugin_concurrency": run["concurrency"], "max_api_concurrency": run["max_api_concurrency"],
        "mean_api_concurrency": round(run["api_busy"] / run["elapsed"], 2),
        "api_requests_per_item": round(per_item, 2), "image_requests_per_item": round(images / items, 2),
        "allowed_items_per_second": round(allowed, 1) if allowed else None,
        "rate_vs_allowed": round(rate / allowed, 2) if allowed else None, "rate_target": 0.8,
        "items_p50_rest_ms": rest_summary["p50_ms"], "items_p99_rest_ms": rest_summary["p99_ms"],
        "items_p50_scrape_ms": during_summary["p50_ms"], "items_p99_scrape_ms": during_summary["p99_ms"],
        "items_samples_rest": rest_summary["count"], "items_samples_scrape": during_summary["count"],
        "items_errors_scrape": run["during"].errors,
        "p99_ratio": round(ratio, 2) if ratio else None, "p99_ratio_target": 1.5,
        "states": run["states"], "job": run["job"],
    }


async def plugin_only(fake: Fake, work: Path, items: int) -> dict[str, Any]:
    """search + details for ``items`` titles through an in-process PluginHost (no server, no queue)."""
    data_dir = work / "plugin-only"
    plugin_catalog.plugins_dir(data_dir).mkdir(parents=True)
    plugin_catalog.update_state(data_dir, "tmdb", settings={"apiKey": fake.api_key, "baseUrl": fake.base_url})
    config = HostConfig(data_dir=data_dir, server_version="bench", idle_seconds=None,
                        policy=CrashPolicy(max_crashes=3, window=60, base=0.05, cap=0.2))
    manifest = plugin_catalog.discover(data_dir)
    concurrency = next(e.manifest.concurrency for e in manifest if e.id == "tmdb" and e.manifest)
    todo = iter(range(items))

    async def caller(host: Any) -> None:
        for index in todo:
            title, year = synthetic_title(index)
            found = await call_plugin(host, "tmdb", "metadata.search",
                                      {"kind": "movie", "name": title, "year": year, "language": "en"})
            await call_plugin(host, "tmdb", "metadata.details", {
                "kind": "movie", "providerItemId": found["candidates"][0]["providerItemId"], "language": "en"})

    async with trio.open_nursery() as nursery:
        root = RootActor([ChildSpec("plugins", lambda: PluginHost(config, poll_seconds=3600))])
        await nursery.start(root.run)
        host = root.child("plugins")
        await call_plugin(host, "tmdb", "metadata.search", {"kind": "movie", "name": "Heat", "language": "en"})
        fake.reset()
        started = time.perf_counter()
        async with trio.open_nursery() as callers:
            for _ in range(3 * concurrency):
                callers.start_soon(caller, host)
        elapsed = time.perf_counter() - started
        upstream = fake.figures()
        await root.stop(timeout=10)
    rate, allowed = items / elapsed, concurrency / (2 * fake.delay)
    return {"items": items, "seconds": round(elapsed, 2), "items_per_second": round(rate, 1),
            "allowed_items_per_second": round(allowed, 1), "rate_vs_allowed": round(rate / allowed, 2),
            "mean_api_concurrency": round(upstream["apiBusySeconds"] / elapsed, 2),
            "max_api_concurrency": upstream["maxApiConcurrency"]}


async def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    media, data_dir = work / "media", work / "data"
    write_tree(media, args.items)
    with fake_tmdb_process(args.items, 0.0) as (info, process):
        fake = Fake(info, process)
        configure_plugin(data_dir, fake)
        with running_server(data_dir, None) as server:
            async with client_for(server) as client:
                library_id = await create_library(client, media)
                rest = await sample_for(client, f"/items?libraryId={library_id}&limit=50", args.rest_seconds)
            fake.set_delay(args.delay_ms / 1000)
            cpu_before = cpu_seconds(server.process.pid)
            result = await scrape(server, fake, library_id, args.items, args.timeout)
            cpu_scrape = cpu_seconds(server.process.pid) - cpu_before
            async with client_for(server) as client:
                after = await sample_for(client, f"/items?libraryId={library_id}&limit=50", args.rest_seconds)
            out = figures(args.items, fake.delay, rest, result)
            after_p99 = summarize_ms(after.durations)["p99_ms"]
            out["items_p99_rest_after_ms"] = after_p99
            out["p99_ratio_vs_rest_after"] = (round(out["items_p99_scrape_ms"] / after_p99, 2)
                                              if after_p99 and out["items_p99_scrape_ms"] else None)
            out["server"] = server.figures()
            out["server_cpu_ms_per_item"] = round(cpu_scrape * 1000 / args.items, 2)
        if args.plugin_items:
            out["plugin_only"] = await plugin_only(fake, work, min(args.plugin_items, args.items))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--rest-seconds", type=float, default=8.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--plugin-items", type=int, default=400, help="titles for the plugin-only phase (0: skip)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    sigterm_as_interrupt()
    work = Path(tempfile.mkdtemp(prefix="scrape-load-", dir=args.workdir))
    try:
        out = trio.run(run, args, work)
    except BenchmarkError as exc:
        print(f"scrape_load: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"scrape_load: kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out, indent=2))
    print(f"scrape_load: {out['items_per_second']} items/s ({out['rate_vs_allowed']} of the "
          f"{out['allowed_items_per_second']} the concurrency {out['plugin_concurrency']} allows), "
          f"GET /items p99 ratio {out['p99_ratio']}; the plugin alone: "
          f"{out.get('plugin_only', {}).get('rate_vs_allowed')} of what it allows", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
