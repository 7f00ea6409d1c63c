"""scan_load.py's report: the issue's targets next to the figures, and the summary lines."""

from __future__ import annotations

from collections import Counter
from typing import Any

# The issues' targets (#25, #28, #29), for 20,000 video files, probing off.
TARGET_FILES_PER_SECOND = 5_000
TARGET_SCAN_OVER_FLOOR = 10.0  # #29: a first scan without probing within 10x of the floor
REFERENCE_FLOOR_SECONDS = 0.26
TARGET_QUICK_RESCAN_SECONDS = 1.0
TARGET_FULL_RESCAN_SECONDS = 1.8  # #29: no slower than minidlna's rescan of the tree (0.9-1.8 s)
TARGET_POSTGRES_OVER_SQLITE = 1.5  # #28: a first scan on PostgreSQL within 1.5x of SQLite
TARGET_PAGE_P99_OVER_IDLE = 1.5  # #29: GET /items p99 during two full scans within 1.5x of idle
TARGET_STATUS_P99_MS = 100.0
TARGET_MAX_STALL_MS = 100.0
TARGET_PEAK_RSS_MB = 300.0


def _target(name: str, target: str, measured: float | None, limit: float, *, at_least: bool = False,
            met: bool | None = None, informational: bool = False) -> dict[str, Any]:
    ratio = round(measured / limit, 2) if measured is not None else None
    if met is None and measured is not None and not informational:
        met = measured >= limit if at_least else measured < limit
    return {"name": name, "target": target, "measured": measured, "ratio": ratio, "met": met}


def targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The issues' targets next to what was measured; ratio = measured / target."""
    rows = []
    for result in (report.get("single") or {}).get("results", []):
        kind, full = result["kind"], result["full"]["scans"][0]
        quick = result["quick_rescan"]["scans"][0]
        rescan = result["full_rescan"]["scans"][0]
        rows.append(_target(f"full_scan_files_per_second[{kind}]", f">= {TARGET_FILES_PER_SECOND}",
                            full["files_per_second"], TARGET_FILES_PER_SECOND, at_least=True))
        rows.append(_target(f"floor_seconds[{kind}]", f"about {REFERENCE_FLOOR_SECONDS} (reference, not a goal)",
                            result["floor"]["floor_seconds"], REFERENCE_FLOOR_SECONDS, informational=True))
        rows.append(_target(f"scan_over_floor[{kind}]", f"< {TARGET_SCAN_OVER_FLOOR}",
                            result["scan_over_floor"], TARGET_SCAN_OVER_FLOOR))
        rows.append(_target(f"quick_rescan_seconds[{kind}]", f"< {TARGET_QUICK_RESCAN_SECONDS}",
                            quick["scan_seconds"], TARGET_QUICK_RESCAN_SECONDS))
        rows.append(_target(f"unchanged_full_rescan_seconds[{kind}]", f"<= {TARGET_FULL_RESCAN_SECONDS}",
                            rescan["scan_seconds"], TARGET_FULL_RESCAN_SECONDS))
    if single := report.get("single"):
        rows.append(_target("single_max_loop_stall_ms",
                            f"no stall over {TARGET_MAX_STALL_MS:g} ms during or after a scan",
                            single["server"]["max_loop_stall_ms"], TARGET_MAX_STALL_MS,
                            met=single["server"]["loop_stalls"] == 0))
    for result in (report.get("postgresql") or {}).get("results", []):
        rows.append(_target(f"postgresql_over_sqlite_first_scan[{result['kind']}]",
                            f"< {TARGET_POSTGRES_OVER_SQLITE}", result["over_sqlite"], TARGET_POSTGRES_OVER_SQLITE))
    if two := report.get("two_scans"):
        for batch in ("first", "rescan"):
            rows.append(_target(f"items_p99_over_idle[two {batch} full scans]", f"< {TARGET_PAGE_P99_OVER_IDLE}",
                                two[f"{batch}_p99_over_idle"], TARGET_PAGE_P99_OVER_IDLE))
        rows.append(_target("two_scans_max_loop_stall_ms",
                            f"no stall over {TARGET_MAX_STALL_MS:g} ms during or after a scan",
                            two["server"]["max_loop_stall_ms"], TARGET_MAX_STALL_MS,
                            met=two["server"]["loop_stalls"] == 0))
    if concurrent := report.get("concurrent"):
        server, batch = concurrent["server"], concurrent["batch"]
        rows.append(_target("concurrent_system_status_p99_ms", f"< {TARGET_STATUS_P99_MS}",
                            batch["latency"]["system_status"]["p99_ms"], TARGET_STATUS_P99_MS))
        rows.append(_target("concurrent_max_loop_stall_ms",
                            f"no stall over {TARGET_MAX_STALL_MS:g} ms during or after a scan",
                            server["max_loop_stall_ms"], TARGET_MAX_STALL_MS, met=server["loop_stalls"] == 0))
        rows.append(_target("concurrent_peak_rss_mb", f"< {TARGET_PEAK_RSS_MB:g}",
                            server["peak_rss_mb"], TARGET_PEAK_RSS_MB))
    return rows


def summary_lines(report: dict[str, Any], stream_errors: list[str]) -> list[str]:
    config = report["config"]
    lines = [f"load average before {config['load_average_before'][0]:.1f}, after {config['load_average_after'][0]:.1f} "
             f"on {config['cpus']} CPUs"]
    for result in (report.get("single") or {}).get("results", []):
        full, quick = result["full"]["scans"][0], result["quick_rescan"]["scans"][0]
        lines.append(
            f"{result['kind']}: full scan of {full['videos']} videos {full['scan_seconds']} s "
            f"({full['files_per_second']} files/s, {result['full']['files_per_server_cpu_second']} per server "
            f"CPU-second), floor {result['floor']['floor_seconds']} s, "
            f"scan/floor {result['scan_over_floor']}x; quick rescan {quick['scan_seconds']} s; "
            f"unchanged full rescan {result['full_rescan']['scans'][0]['scan_seconds']} s"
        )
    for result in (report.get("postgresql") or {}).get("results", []):
        lines.append(f"{result['kind']} on PostgreSQL: full scan {result['full']['scans'][0]['scan_seconds']} s "
                     f"({result['over_sqlite']}x SQLite's); unchanged full rescan "
                     f"{result['full_rescan']['scans'][0]['scan_seconds']} s")
    if two := report.get("two_scans"):
        lines.append(
            f"GET /items p99: idle {two['idle']['p99_ms']} ms; during two first scans "
            f"{two['first']['latency']['items_page']['p99_ms']} ms ({two['first_p99_over_idle']}x); during two "
            f"unchanged full rescans {two['rescan']['latency']['items_page']['p99_ms']} ms "
            f"({two['rescan_p99_over_idle']}x); stalls {two['server']['loop_stalls']} "
            f"(max {two['server']['max_loop_stall_ms']} ms)"
        )
    if concurrent := report.get("concurrent"):
        batch, server = concurrent["batch"], concurrent["server"]
        lines.append(
            f"{len(batch['scans'])} scans at once: {batch['videos']} videos in {batch['wall_seconds']} s "
            f"({batch['total_files_per_second']} files/s); /system/status p99 "
            f"{batch['latency']['system_status']['p99_ms']} ms; stalls {server['loop_stalls']} "
            f"(max {server['max_loop_stall_ms']} ms); peak RSS {server['peak_rss_mb']} MB"
        )
    lines += [f"event stream broken in {n} batch(es): {e}" for e, n in Counter(stream_errors).items()]
    lines += [
        f"  {'ok  ' if row['met'] else '    ' if row['met'] is None else 'MISS'} {row['name']}: "
        f"{row['measured']} (target {row['target']}, ratio {row['ratio']})"
        for row in report["targets"]
    ]
    return lines
