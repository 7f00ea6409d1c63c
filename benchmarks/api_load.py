"""Catalogue reads under load: 50 HTTP clients against the real server, both backends.

For each backend (SQLite, PostgreSQL) a library of ``--items`` items is
written straight into a fresh store (benchmarks/_catalog_rows.py), then
``reelhouse serve`` runs on it as a process and ``--clients`` keep-alive
clients (benchmarks/_load.py, a separate process) hammer one scenario at a
time for ``--duration`` seconds after a warm-up:

- items_default: the first page of a library (``GET /items?libraryId=``);
- items_filtered: movies of a genre, 1990-2010, by premiere date;
- items_genre, items_studio, items_person, items_year, items_tag,
  items_attention: the first page of the Films library with one filter
  (a genre, a studio, the most credited person, one year, a tag, the
  noPoster attention state), each next to items_default: its
  ``over_plain`` is items_default's requests per server CPU-second (the
  server process and its PostgreSQL backends) over its own, steadier than
  requests/s when other work shares the machine (issue #29: within 1.5);
  ``rate_over_plain`` the same with requests/s;
- items_deep: the page a cursor walk reaches after many pages;
- item_detail: ``GET /items/{id}`` over a fixed sample of ids;
- search: ``GET /search`` over a set of realistic queries;
- image_cached: a poster rendition already in the cache;
- image_not_modified: the same with ``If-None-Match`` (304; no target).

Next to them, the *ceiling*: a bare QuartTrio route returning a constant
(benchmarks/_ceiling_app.py) on the same server settings, measured the same
way before each backend. It prints one JSON document (figures, fractions of
the ceiling, the issue's targets) on stdout and a summary on stderr; see
benchmarks/README.md. It asserts nothing about timings: it exits 0 when
every scenario could be measured (PostgreSQL not answering is a skip with a
note), 1 otherwise.

Usage: python benchmarks/api_load.py [--items N] [--clients N] [--duration S] [--quick]
                                     [--backends sqlite,postgresql] [--scenarios NAME,...]
                                     [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import trio

from _api_processes import LoadShape, ceiling_server, postgres_backends, reelhouse_server, run_load
from _catalog_rows import STUDIOS, TAGS, CatalogSample, Poster, fill_catalog, write_posters
from _http_probe import STALL_LINE, BenchmarkError, Server, sigterm_as_interrupt, summarize_ms
from reelhouse.storage import migrate, open_store

DEFAULT_ITEMS, QUICK_ITEMS = 100_000, 10_000
DEFAULT_CLIENTS = 50
DEFAULT_DURATION_S, QUICK_DURATION_S = 5.0, 2.0
WARMUP_S = 1.0
# One client alone for a moment before the load: the service time without queueing.
SINGLE_WARMUP_S, SINGLE_DURATION_S = 0.3, 1.0
BACKENDS = ("sqlite", "postgresql")
PG_URL = "postgresql://root@127.0.0.1:5432/test"
PG_TIMEOUT_S = 5.0
PAGE_SIZE = 40  # the reference's default page size
DEEP_PAGES_MAX = 500
DEEP_FRACTION = 0.6  # the deep page is at most this far into the Films library
SEARCH_LIMIT = 20
IMAGE_MAX_WIDTH = 300
FILTER_GENRES = ("Drama", "Comedy", "Thriller")
REQUEST_TIMEOUT_S = 30.0
POOL_WARMUP_S = 1.0  # full load before the first scenario: the PostgreSQL pool opens all its connections
PG_TABLES = ("libraries", "library_paths", "items", "item_values", "people", "credits", "media_sources",
             "media_streams", "images", "search_items", "search_people")

# The targets, at 50 clients, on each backend.
TARGET_P99_MS = 50.0
TARGET_ITEMS_FRACTION = 0.4
TARGET_IMAGE_FRACTION = 0.6
TARGET_FILTERED_OVER_PLAIN = 1.5  # issue #29: a filtered first page within 1.5x of the plain one
FILTER_SCENARIOS = ("items_genre", "items_studio", "items_person", "items_year", "items_tag", "items_attention")
SCENARIOS = ("items_default", "items_filtered", *FILTER_SCENARIOS, "items_deep", "item_detail", "search",
             "image_cached", "image_not_modified")
P99_SCENARIOS = ("items_default", "items_filtered", "items_deep", "item_detail", "search")
ITEM_PAGE_SCENARIOS = ("items_default", "items_filtered", "items_deep")


def progress(message: str, _started: float = time.monotonic()) -> None:
    """One line on stderr with the seconds since start: the run takes minutes."""
    print(f"api_load [{time.monotonic() - _started:6.1f} s] {message}", file=sys.stderr, flush=True)


# --- the catalogue ----------------------------------------------------------------------------


@dataclass(slots=True)
class Backend:
    name: str
    url: str
    data_dir: Path
    schema: str | None = None
    sample: CatalogSample | None = None
    person_id: str | None = None  # the most credited person (the person filter's scenario)
    skipped: str | None = None
    results: dict[str, Any] = field(default_factory=dict)


async def _postgres_answers() -> str | None:
    """None when PostgreSQL answers at PG_URL, else why not."""
    try:
        with trio.fail_after(PG_TIMEOUT_S):
            async with open_store(PG_URL) as store:
                await store.ping()
    except Exception as exc:  # any failure means: skip PostgreSQL, say why
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]  # the nursery's wrapping says nothing
        return f"PostgreSQL at {PG_URL} did not answer: {type(exc).__name__}: {exc}"
    return None


async def _fill(backend: Backend, items: int, media_root: Path, posters: list[Poster]) -> None:
    async with open_store(backend.url) as store:
        await migrate(store)
        backend.sample = await fill_catalog(store, items, media_root, posters)
        backend.person_id = await store.fetch_value(
            "SELECT person_id FROM credits GROUP BY person_id ORDER BY count(*) DESC, person_id LIMIT 1")
        if backend.name == "postgresql":
            # What autovacuum would do minutes later: statistics and visibility map now, not mid-run.
            await store.fetch_all(f"VACUUM (ANALYZE) {', '.join(PG_TABLES)}")
    progress(f"{backend.name}: {items} items written in {backend.sample.seconds} s")


async def fill_all(backends: list[Backend], items: int, media_root: Path, posters: list[Poster]) -> None:
    """Every backend's catalogue at once: PostgreSQL works in its own processes, SQLite in a thread."""
    async with trio.open_nursery() as nursery:
        for backend in backends:
            nursery.start_soon(_fill, backend, items, media_root, posters)


async def _drop_schema(schema: str) -> None:
    with trio.fail_after(60):
        async with open_store(PG_URL) as store:
            await store.fetch_all(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


# --- scenarios -------------------------------------------------------------------------------


@dataclass(slots=True)
class Scenario:
    name: str
    requests: list[tuple[str, dict[str, str]]]
    ok_statuses: tuple[int, ...] = (200,)


def _items_path(**params: Any) -> str:
    return "/items?" + urlencode(params, quote_via=quote)


def _check(client: httpx.Client, path: str, headers: dict[str, str] | None = None,
           expect: int = 200) -> httpx.Response:  # fmt: skip
    response = client.get(path, headers=headers)
    if response.status_code != expect:
        raise BenchmarkError(f"GET {path} answered {response.status_code}, not {expect}: {response.text[:300]}")
    return response


def deep_cursor(client: httpx.Client, sample: CatalogSample) -> tuple[str, dict[str, Any]]:
    """Walk the Films library page by page; the cursor of the deepest page, and the walk's figures."""
    pages = max(1, min(DEEP_PAGES_MAX, int(sample.films_top_level * DEEP_FRACTION / PAGE_SIZE)))
    cursor, durations = None, []
    for _ in range(pages):
        params: dict[str, Any] = {"libraryId": sample.movies_library}
        if cursor:
            params["cursor"] = cursor
        started = time.perf_counter()
        body = _check(client, _items_path(**params)).json()
        durations.append(time.perf_counter() - started)
        cursor = body.get("nextCursor")
        if not cursor:
            raise BenchmarkError(f"the cursor walk ended before page {pages}")
    walk = {"pages": pages, "items_before_page": pages * PAGE_SIZE, "sequential": summarize_ms(durations)}
    return cursor, walk


def filter_paths(films: str, person_id: str | None) -> dict[str, list[str]]:
    """One filter each on the Films library's first page (sorted by name, like items_default)."""
    return {
        "items_genre": [_items_path(libraryId=films, genreId=genre) for genre in FILTER_GENRES],
        "items_studio": [_items_path(libraryId=films, studioId=studio) for studio in STUDIOS[:3]],
        "items_person": [_items_path(libraryId=films, personId=person_id)] if person_id else [],
        "items_year": [_items_path(libraryId=films, year=year) for year in (1975, 1999, 2012)],
        "items_tag": [_items_path(libraryId=films, tagId=tag) for tag in TAGS[:3]],
        "items_attention": [_items_path(libraryId=films, attention="noPoster")],
    }


def prepare_scenarios(server: Server, sample: CatalogSample,
                      person_id: str | None) -> tuple[list[Scenario], dict[str, Any]]:  # fmt: skip
    """The scenarios' requests, checked once each (and the cursor walk and image cache warmed)."""
    headers = {"Authorization": f"Bearer {server.key}"}
    with httpx.Client(base_url=server.api_url, headers=headers, timeout=REQUEST_TIMEOUT_S) as client:
        films, shows = sample.movies_library, sample.shows_library
        default = [_items_path(libraryId=films), _items_path(libraryId=shows)]
        filtered = [_items_path(libraryId=films, type="Movie", genreId=genre, yearFrom=1990, yearTo=2010,
                                sort="premiereDate") for genre in FILTER_GENRES]  # fmt: skip
        one_filter = {name: paths for name, paths in filter_paths(films, person_id).items() if paths}
        for paths in one_filter.values():
            _check(client, paths[0])
        detail = [f"/items/{item_id}" for item_id in sample.detail_ids]
        search = [f"/search?{urlencode({'q': q, 'limit': SEARCH_LIMIT}, quote_via=quote)}"
                  for q in sample.search_queries]
        images = [f"/images/items/{item_id}?tag={tag}&maxWidth={IMAGE_MAX_WIDTH}"
                  for item_id, tag in sample.image_items]
        for path in (*default, *filtered, detail[0], search[0]):
            _check(client, path)
        cursor, walk = deep_cursor(client, sample)
        deep = [_items_path(libraryId=films, cursor=cursor)]
        _check(client, deep[0])
        etags = {path: _check(client, path).headers.get("ETag") for path in images}  # renders and caches each
        not_modified = [(path, {"If-None-Match": etag}) for path, etag in etags.items() if etag]
        if not_modified:
            _check(client, not_modified[0][0], not_modified[0][1], expect=304)
    scenarios = [
        Scenario("items_default", [(p, {}) for p in default]),
        Scenario("items_filtered", [(p, {}) for p in filtered]),
        *(Scenario(name, [(p, {}) for p in paths]) for name, paths in one_filter.items()),
        Scenario("items_deep", [(p, {}) for p in deep]),
        Scenario("item_detail", [(p, {}) for p in detail]),
        Scenario("search", [(p, {}) for p in search]),
        Scenario("image_cached", [(p, {}) for p in images]),
    ]
    if not_modified:
        scenarios.append(Scenario("image_not_modified", not_modified, ok_statuses=(304,)))
    return scenarios, {"deep_walk": walk, "images_with_etag": len(not_modified)}


# --- one backend ------------------------------------------------------------------------------


def measure(base_url: str, scenario: Scenario, headers: dict[str, str], pid: int, args: argparse.Namespace,
            spec_path: Path) -> dict[str, Any]:  # fmt: skip
    """``args.clients`` clients, with the figures of one client alone (``single_client``) first.

    The CPU of the PostgreSQL backends serving ``pid`` is measured too
    (they are looked up again each time: the pool may replace connections).
    """
    requests = [(f"/api/v1{path}", extra) for path, extra in scenario.requests]
    common = {"headers": headers, "ok_statuses": scenario.ok_statuses, "spec_path": spec_path, "server_pid": pid}
    backends = postgres_backends(pid)
    single = run_load(base_url, requests, shape=LoadShape(1, SINGLE_WARMUP_S, SINGLE_DURATION_S),
                      postgres_pids=backends, **common)  # fmt: skip
    loaded = run_load(base_url, requests, shape=LoadShape(args.clients, WARMUP_S, args.duration),
                      postgres_pids=backends, **common)  # fmt: skip
    keys = ("requests_per_second", "p50_ms", "p99_ms", "max_ms", "error_count", "server_cpu_cores")
    loaded["postgres_backends"] = len(backends)
    # Steadier than requests/s when other work takes CPU from the server: requests per CPU-second
    # of the server process and its PostgreSQL backends.
    cpu = (loaded["server_cpu_cores"] or 0) + (loaded["postgres_cpu_cores"] or 0)
    loaded["requests_per_cpu_second"] = round(loaded["requests_per_second"] / cpu) if cpu > 0 else None
    return {**loaded, "example": requests[0][0], "single_client": {key: single[key] for key in keys}}


def measure_ceiling(base: Path, args: argparse.Namespace, label: str) -> dict[str, Any]:
    with ceiling_server(base / f"ceiling-{label}.log") as (process, base_url):
        scenario = Scenario("ceiling", [("/ceiling", {})])
        return measure(base_url.removesuffix("/api/v1"), scenario, {}, process.pid, args, base / "spec.json")


def run_backend(backend: Backend, base: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The ceiling, every scenario against the real server on this backend, the ceiling again.

    The better of the two ceiling runs is the ceiling: other work on the
    machine can only lower a run, never raise it.
    """
    assert backend.sample is not None
    progress(f"{backend.name}: ceiling")
    ceilings = [measure_ceiling(base, args, f"{backend.name}-before")]
    with reelhouse_server(backend.data_dir, backend.url) as server:
        progress(f"{backend.name}: server up; checking the scenarios, walking the cursor, warming the images")
        scenarios, preparation = prepare_scenarios(server, backend.sample, backend.person_id)
        figures = run_scenarios(backend.name, server, scenarios, base, args)
        server_figures = server.figures()
    progress(f"{backend.name}: ceiling again")
    ceilings.append(measure_ceiling(base, args, f"{backend.name}-after"))
    ceiling = max(ceilings, key=lambda run: run["requests_per_second"])
    for result in figures.values():
        result["fraction_of_ceiling"] = _fraction(result, ceiling, "requests_per_second")
        result["cpu_fraction_of_ceiling"] = _fraction(result, ceiling, "requests_per_cpu_second")
    plain = figures.get("items_default")
    for name in ("items_filtered", *FILTER_SCENARIOS):
        if plain and name in figures:
            figures[name]["over_plain"] = _ratio(plain, figures[name], "requests_per_cpu_second")
            figures[name]["rate_over_plain"] = _ratio(plain, figures[name], "requests_per_second")
    return {"ceiling": ceiling, "ceiling_runs_requests_per_second": [c["requests_per_second"] for c in ceilings],
            "scenarios": figures, **preparation, "server": server_figures,
            "catalog": {"seconds": backend.sample.seconds, "rows": backend.sample.counts}}  # fmt: skip


def run_scenarios(label: str, server: Server, scenarios: list[Scenario], base: Path,
                  args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    """Each scenario's figures, after a short full load that opens the PostgreSQL pool's connections."""
    headers = {"Authorization": f"Bearer {server.key}"}
    base_url = server.api_url.removesuffix("/api/v1")
    warm = [(f"/api/v1{path}", extra) for path, extra in scenarios[0].requests]
    run_load(base_url, warm, headers=headers, ok_statuses=(200,), shape=LoadShape(args.clients, 0, POOL_WARMUP_S),
             spec_path=base / "spec.json", server_pid=server.process.pid)  # fmt: skip
    figures: dict[str, Any] = {}
    for scenario in scenarios:
        if args.scenarios and scenario.name not in args.scenarios:
            continue
        progress(f"{label}: {scenario.name} ({args.clients} clients, {args.duration:g} s)")
        stalls_before = len(_stalls(server))
        result = measure(base_url, scenario, headers, server.process.pid, args, base / "spec.json")
        stalls = _stalls(server)[stalls_before:]
        result["loop_stalls"], result["max_loop_stall_ms"] = len(stalls), max(stalls, default=0)
        figures[scenario.name] = result
    return figures


def _stalls(server: Server) -> list[int]:
    """Every event-loop stall the server's watchdog logged so far, in ms (only those over its threshold)."""
    return [int(ms) for ms in STALL_LINE.findall(server.log_path.read_text(errors="replace"))]


def _ratio(plain: dict[str, Any], filtered: dict[str, Any], key: str) -> float | None:
    """How many times the plain page's ``key`` the filtered page's is (a cost ratio: lower is better)."""
    if not plain.get(key) or not filtered.get(key):
        return None
    return round(plain[key] / filtered[key], 2)


def _fraction(result: dict[str, Any], ceiling: dict[str, Any], key: str) -> float | None:
    if not ceiling.get(key) or result.get(key) is None:
        return None
    return round(result[key] / ceiling[key], 3)


# --- report --------------------------------------------------------------------------------


def _target(name: str, backend: str, target: str, measured: float | None, limit: float,
            *, at_least: bool) -> dict[str, Any]:  # fmt: skip
    met = None if measured is None else (measured >= limit if at_least else measured < limit)
    return {"name": name, "backend": backend, "target": target, "measured": measured, "met": met}


def targets(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The issue's targets next to what was measured, per backend that ran."""
    rows = []
    for backend, result in results.items():
        scenarios = result.get("scenarios")
        if not scenarios:
            continue
        for name in P99_SCENARIOS:
            if name in scenarios:
                rows.append(_target(f"{name}.p99_ms", backend, f"< {TARGET_P99_MS:g}", scenarios[name]["p99_ms"],
                                    TARGET_P99_MS, at_least=False))  # fmt: skip
        for name in ITEM_PAGE_SCENARIOS:
            if name in scenarios:
                rows.append(_target(f"{name}.fraction_of_ceiling", backend, f">= {TARGET_ITEMS_FRACTION}",
                                    scenarios[name]["fraction_of_ceiling"], TARGET_ITEMS_FRACTION, at_least=True))
        for name in ("items_filtered", *FILTER_SCENARIOS):
            if scenarios.get(name, {}).get("over_plain") is not None:
                rows.append(_target(f"{name}.over_plain", backend, f"< {TARGET_FILTERED_OVER_PLAIN}",
                                    scenarios[name]["over_plain"], TARGET_FILTERED_OVER_PLAIN, at_least=False))
        if "image_cached" in scenarios:
            rows.append(_target("image_cached.fraction_of_ceiling", backend, f">= {TARGET_IMAGE_FRACTION}",
                                scenarios["image_cached"]["fraction_of_ceiling"], TARGET_IMAGE_FRACTION,
                                at_least=True))  # fmt: skip
    return rows


def summary_lines(report: dict[str, Any]) -> list[str]:
    config = report["config"]
    lines = [f"{config['items']} items, {config['clients']} clients, {config['duration_s']:g} s per scenario; "
             f"load average before {config['load_average_before'][0]:.1f}, after "
             f"{config['load_average_after'][0]:.1f} on {config['cpus']} CPUs"]  # fmt: skip
    header = f"  {'scenario':<20}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}{'ceil':>7}" \
             f"{'server':>8}{'pg':>6}{'client':>8}{'busy':>6}{'req/cpu-s':>10}{'cpu ceil':>9}" \
             f"{'alone p50':>11}"  # fmt: skip
    for backend, result in report["results"].items():
        if "skipped" in result:
            lines.append(f"{backend}: skipped: {result['skipped']}")
            continue
        lines += [f"{backend} (CPU in cores: server process, its PostgreSQL backends, load client, whole machine;"
                  f" alone: 1 client):", header]
        rows = {"ceiling": result["ceiling"], **result["scenarios"]}
        for name, f in rows.items():
            fraction = f.get("fraction_of_ceiling")
            lines.append(
                f"  {name:<20}{f['requests_per_second']:>8.0f}{_num(f['p50_ms']):>9}{_num(f['p99_ms']):>9}"
                f"{_num(f['max_ms']):>9}{f['error_count']:>8}{_num(fraction, 2) if fraction is not None else '':>7}"
                f"{_num(f['server_cpu_cores'], 2):>8}{_num(f['postgres_cpu_cores'], 2):>6}"
                f"{_num(f['client_cpu_cores'], 2):>8}{_num(f['machine_busy_cores'], 2):>6}"
                f"{_num(f['requests_per_cpu_second'], 0):>10}{_num(f.get('cpu_fraction_of_ceiling'), 2):>9}"
                f"{_num(f['single_client']['p50_ms'], 2):>11}"
            )  # fmt: skip
    lines += [f"  {'ok  ' if r['met'] else 'MISS' if r['met'] is False else '  ? '} [{r['backend']}] {r['name']}: "
              f"{r['measured']} (target {r['target']})" for r in report["targets"]]  # fmt: skip
    return lines + [f"note: {note}" for note in report["notes"]]


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def client_note(results: dict[str, dict[str, Any]]) -> str | None:
    """How much of the machine the load client took, next to the server."""
    runs = [f for r in results.values() for f in [r.get("ceiling"), *r.get("scenarios", {}).values()] if f]
    if not runs:
        return None
    client = max(f["client_cpu_cores"] or 0 for f in runs)
    server = max(f["server_cpu_cores"] or 0 for f in runs)
    return (f"client and server share {os.cpu_count()} cores: the load client used at most {client:.2f} of a core "
            f"per scenario, the server process up to {server:.2f}")


# --- main --------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, help=f"items in the catalogue (default {DEFAULT_ITEMS}, "
                        f"{QUICK_ITEMS} with --quick)")  # fmt: skip
    parser.add_argument("--clients", type=int, default=DEFAULT_CLIENTS, help="concurrent keep-alive clients")
    parser.add_argument("--duration", type=float,
                        help=f"measured seconds per scenario (default {DEFAULT_DURATION_S:g}, "
                        f"{QUICK_DURATION_S:g} with --quick), after {WARMUP_S:g} s of warm-up")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="a small, short run for a smoke test")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated: sqlite,postgresql")
    parser.add_argument("--scenarios", type=lambda text: set(text.split(",")), default=set(),
                        help="comma-separated scenario names to measure (default: all)")
    parser.add_argument("--workdir", type=Path, help="where the temporary data goes (default: system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the data and server logs (PostgreSQL schema too)")
    args = parser.parse_args()
    args.items = args.items or (QUICK_ITEMS if args.quick else DEFAULT_ITEMS)
    args.duration = args.duration or (QUICK_DURATION_S if args.quick else DEFAULT_DURATION_S)
    args.backends = [b for b in args.backends.split(",") if b]
    if not args.backends or set(args.backends) - set(BACKENDS) or args.items < 100 or args.clients < 1:
        parser.error(f"--backends takes {','.join(BACKENDS)}; --items at least 100; --clients positive")
    if args.scenarios - set(SCENARIOS):
        parser.error(f"--scenarios takes {','.join(SCENARIOS)}")
    return args


def make_backends(base: Path, names: list[str]) -> list[Backend]:
    backends = []
    for name in names:
        data_dir = base / name / "data"
        if name == "sqlite":
            backends.append(Backend(name, f"sqlite:///{data_dir / 'reelhouse.db'}", data_dir))
        else:
            schema = f"bench_api_{os.getpid()}_{secrets.token_hex(3)}"
            backends.append(Backend(name, f"{PG_URL}?schema={schema}", data_dir, schema=schema))
        data_dir.mkdir(parents=True)
    return backends


def run(base: Path, backends: list[Backend], args: argparse.Namespace, report: dict[str, Any]) -> None:
    for backend in backends:
        if backend.name == "postgresql" and (reason := trio.run(_postgres_answers)):
            backend.skipped = reason
            report["notes"].append(f"PostgreSQL skipped: {reason}")
    ready = [b for b in backends if not b.skipped]
    progress(f"writing {args.items} items into {', '.join(b.name for b in ready)}")
    posters = write_posters(base / "posters")
    trio.run(fill_all, ready, args.items, base / "media", posters)
    for backend in backends:
        report["results"][backend.name] = (
            {"skipped": backend.skipped} if backend.skipped else run_backend(backend, base, args)
        )


def main() -> int:
    args = parse_args()
    sigterm_as_interrupt()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="reelhouse-api-load-", dir=args.workdir))
    started = time.perf_counter()
    report: dict[str, Any] = {
        "benchmark": "api_load",
        "config": {"items": args.items, "clients": args.clients, "duration_s": args.duration, "warmup_s": WARMUP_S,
                   "quick": args.quick, "backends": args.backends, "cpus": os.cpu_count(),
                   "load_average_before": os.getloadavg(), "page_size": PAGE_SIZE, "search_limit": SEARCH_LIMIT,
                   "image_max_width": IMAGE_MAX_WIDTH, "client": "benchmarks/_load.py (Python selectors, HTTP/1.1)"},
        "results": {},
        "notes": [],
    }  # fmt: skip
    backends = make_backends(base, args.backends)
    try:
        run(base, backends, args, report)
    except BenchmarkError as exc:
        print(f"api_load: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("api_load: interrupted; cleaning up", file=sys.stderr)
        return 130
    finally:
        _clean_up(base, backends, args.keep)
    report["config"]["load_average_after"] = os.getloadavg()
    report["targets"] = targets(report["results"])
    if note := client_note(report["results"]):
        report["notes"].append(note)
    report["run_seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, indent=2))
    print("\n".join(summary_lines(report)), file=sys.stderr)
    return 0


def _clean_up(base: Path, backends: list[Backend], keep: bool) -> None:
    """Drop the PostgreSQL schemas and remove the temporary directory, unless kept."""
    if keep:
        print(f"api_load: kept {base}" + "".join(f", schema {b.schema}" for b in backends if b.schema), file=sys.stderr)
        return
    for backend in backends:
        if backend.schema and not backend.skipped:
            try:
                trio.run(_drop_schema, backend.schema)
            except Exception as exc:  # report and go on: the temporary directory still goes
                print(f"api_load: could not drop schema {backend.schema}: {exc}", file=sys.stderr)
    shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
