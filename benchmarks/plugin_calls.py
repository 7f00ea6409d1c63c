"""Plugin calls through the PluginHost to a trivial Python plugin.

Measures, in one run, and prints one line of JSON:

- ``calls_per_second_c1`` / ``_c8``: round trips per second with plugin
  concurrency 1 (one caller) and 8 (eight callers);
- ``p50_ms_c1``, ``p99_ms_c1``, ``p99_ms_c8``: latency of one call;
- ``cold_start_ms_median`` / ``_max``: spawn of an idle plugin's process
  to its first answer (handshake and one call), over ``--cold`` plugins;
- ``server_rss_kib_0`` / ``_20``: resident memory of ``reelhouse serve``
  with no plugin and with 20 idle plugins installed (idle plugins have no
  process, so the difference is the host's and actors' own cost).

The plugin is the bundled ``hello`` (its ``echo`` method). Targets
(issue 16): p99 of a trivial call under 2 ms; a cold start under 300 ms.

Usage: PYTHONPATH=src python benchmarks/plugin_calls.py [--calls N] [--cold N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from reelhouse.actors.plugins import HostConfig, PluginHost, call_plugin
from reelhouse.runtime import ChildSpec, RootActor
from reelhouse.storage import plugin_catalog

HELLO = plugin_catalog.BUNDLED_DIR / "hello"
SERVING = re.compile(rb"serving on http://")


def install_copy(plugins: Path, plugin_id: str, concurrency: int) -> None:
    target = plugins / plugin_id
    shutil.copytree(HELLO, target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = (target / "plugin.toml").read_text()
    manifest = re.sub(r'^id = ".*"$', f'id = "{plugin_id}"', manifest, flags=re.M)
    manifest = re.sub(r"^concurrency = \d+$", f"concurrency = {concurrency}", manifest, flags=re.M)
    (target / "plugin.toml").write_text(manifest)


async def timed_calls(host, plugin_id: str, callers: int, calls: int) -> list[float]:
    latencies: list[float] = []

    async def caller(count: int) -> None:
        for i in range(count):
            started = time.perf_counter()
            await call_plugin(host, plugin_id, "echo", {"i": i})
            latencies.append(time.perf_counter() - started)

    async with trio.open_nursery() as nursery:
        for _ in range(callers):
            nursery.start_soon(caller, calls // callers)
    return latencies


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def measure_calls(work: Path, calls: int, cold: int) -> dict[str, float]:
    data_dir = work / "data"
    plugins = plugin_catalog.plugins_dir(data_dir)
    plugins.mkdir(parents=True)
    install_copy(plugins, "one", 1)
    install_copy(plugins, "eight", 8)
    for i in range(cold):
        install_copy(plugins, f"cold{i}", 1)
    config = HostConfig(data_dir=data_dir, server_version="bench")
    figures: dict[str, float] = {}
    async with trio.open_nursery() as nursery:
        root = RootActor([ChildSpec("plugins", lambda: PluginHost(config, bundled_dir=None))])
        await nursery.start(root.run)
        host = root.child("plugins")
        # The host reads the catalog as it starts: every plugin installed above has its actor now.
        for plugin_id, callers, key in (("one", 1, "c1"), ("eight", 8, "c8")):
            await timed_calls(host, plugin_id, callers, 200)  # warm up: the process runs
            started = time.perf_counter()
            latencies = await timed_calls(host, plugin_id, callers, calls)
            elapsed = time.perf_counter() - started
            figures[f"calls_per_second_{key}"] = round(len(latencies) / elapsed)
            figures[f"p50_ms_{key}"] = round(p(latencies, 0.50), 3)
            figures[f"p99_ms_{key}"] = round(p(latencies, 0.99), 3)
        starts = []
        for i in range(cold):
            started = time.perf_counter()
            await call_plugin(host, f"cold{i}", "echo", {})
            starts.append((time.perf_counter() - started) * 1000)
        figures["cold_start_ms_median"] = round(statistics.median(starts), 1)
        figures["cold_start_ms_max"] = round(max(starts), 1)
        await root.stop(timeout=10)
    return figures


def server_rss_kib(work: Path, plugin_count: int) -> int:
    data_dir = work / f"rss{plugin_count}"
    plugins = plugin_catalog.plugins_dir(data_dir)
    plugins.mkdir(parents=True)
    for i in range(plugin_count):
        install_copy(plugins, f"idle{i}", 1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REELHOUSE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1] / "src"), env.get("PYTHONPATH", "")])
    process = subprocess.Popen(
        [sys.executable, "-m", "reelhouse", "serve", "--bind", "127.0.0.1:0", "--data-dir", str(data_dir)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env,
    )
    try:
        log = b""
        assert process.stderr is not None
        deadline = time.monotonic() + 60
        while not SERVING.search(log):
            line = process.stderr.readline()
            if not line or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{log.decode(errors='replace')}")
            log += line
        time.sleep(3)  # the host's first catalog read and one poll
        status = Path(f"/proc/{process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--cold", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reelhouse-plugin-bench-") as work:
        figures = trio.run(measure_calls, Path(work), args.calls, args.cold)
        figures["server_rss_kib_0"] = server_rss_kib(Path(work), 0)
        figures["server_rss_kib_20"] = server_rss_kib(Path(work), 20)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
