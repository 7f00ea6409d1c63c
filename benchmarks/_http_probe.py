"""Probes of the server under test: its process, HTTP latency, the event stream.

- ``running_server`` starts ``reelhouse serve`` on a free port with a fresh
  API key and stops it (SIGTERM, then kill) on exit; ``Server.figures``
  reads its peak RSS and CPU time from ``/proc`` and the loop stalls its
  watchdog logged.
- ``sample_latency`` GETs one path at a fixed pace until cancelled and
  keeps every duration; ``LatencySamples.summary`` gives count, errors,
  p50/p99/max in milliseconds.
- ``stream_events`` reads ``GET /scans/events`` (server-sent events) and
  hands every event, stamped with its receipt time, to a callback.
- ``Watch`` lets a task wait until some recorded fact becomes true.

The HTTP probes run on Trio with httpx and are cancelled by their nursery;
the process helpers are synchronous (Linux only, for ``/proc``).
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import trio

SAMPLE_TIMEOUT_S = 10.0
SERVER_START_TIMEOUT_S = 30.0
SERVER_STOP_TIMEOUT_S = 20.0
LOG_TAIL_LINES = 20
# The server's loop watchdog (reelhouse.watchdog) logs stalls over this.
WATCHDOG_THRESHOLD_MS = 100
SERVING_LINE = re.compile(r"serving on (http://[\d.]+:\d+)/api/v1")
STALL_LINE = re.compile(r"event loop blocked for (\d+) ms")
T = TypeVar("T")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarize_ms(seconds: list[float]) -> dict[str, float | int | None]:
    """count, p50, p99 and max of durations given in seconds, in milliseconds."""
    if not seconds:
        return {"count": 0, "p50_ms": None, "p99_ms": None, "max_ms": None}
    return {
        "count": len(seconds),
        "p50_ms": round(percentile(seconds, 50) * 1000, 1),
        "p99_ms": round(percentile(seconds, 99) * 1000, 1),
        "max_ms": round(max(seconds) * 1000, 1),
    }


@dataclass(slots=True)
class LatencySamples:
    """Durations (seconds) of the answered requests of one path; failures counted apart."""

    path: str
    durations: list[float] = field(default_factory=list)
    errors: int = 0

    def summary(self) -> dict[str, Any]:
        return {"path": self.path, **summarize_ms(self.durations), "errors": self.errors}


async def sample_latency(
    client: httpx.AsyncClient,
    samples: LatencySamples,
    interval: float,
    on_json: Callable[[Any], None] | None = None,
) -> None:
    """GET ``samples.path`` every ``interval`` seconds (back to back when slower) until cancelled.

    A non-200 answer, a timeout (``SAMPLE_TIMEOUT_S``) or a transport
    error counts in ``samples.errors``; a 200 answer's duration is kept
    and its JSON body handed to ``on_json``.
    """
    while True:
        started = time.perf_counter()
        try:
            response = await client.get(samples.path, timeout=SAMPLE_TIMEOUT_S)
        except httpx.HTTPError:
            samples.errors += 1
        else:
            elapsed = time.perf_counter() - started
            if response.status_code != 200:
                samples.errors += 1
            else:
                samples.durations.append(elapsed)
                if on_json is not None:
                    on_json(response.json())
        await trio.sleep(max(0.0, interval - (time.perf_counter() - started)))


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One server-sent event; ``received`` is ``time.perf_counter()``, ``received_epoch`` ``time.time()``."""

    id: str | None
    name: str
    data: Any
    received: float
    received_epoch: float


async def stream_events(
    client: httpx.AsyncClient,
    path: str,
    on_event: Callable[[SseEvent], None],
    on_open: Callable[[], None],
) -> None:
    """Read the event stream at ``path``, calling ``on_event`` for each event.

    Calls ``on_open`` once the server has answered 200 and sent its first
    line (the server is then subscribed: nothing later is missed). Raises
    ``httpx.HTTPStatusError`` on another status and ``httpx.HTTPError``
    when the connection breaks; returns when the server closes the stream;
    cancelled by the caller's nursery otherwise.
    """
    timeout = httpx.Timeout(SAMPLE_TIMEOUT_S, read=None)
    async with client.stream("GET", path, timeout=timeout) as response:
        response.raise_for_status()
        opened = False
        fields: dict[str, str] = {}
        async for line in response.aiter_lines():
            if not opened:
                opened = True
                on_open()
            if line == "":
                if "data" in fields:
                    on_event(_event(fields))
                fields = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                fields[name] = fields[name] + "\n" + value if name == "data" and name in fields else value


def _event(fields: dict[str, str]) -> SseEvent:
    data: Any
    try:
        data = json.loads(fields["data"])
    except json.JSONDecodeError:
        data = fields["data"]
    return SseEvent(
        id=fields.get("id"),
        name=fields.get("event", "message"),
        data=data,
        received=time.perf_counter(),
        received_epoch=time.time(),
    )


class Watch:
    """Wakes waiters whenever ``changed()`` is called, so they re-check their condition."""

    def __init__(self) -> None:
        self._changed = trio.Event()

    def changed(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def until(self, check: Callable[[], T | None]) -> T:
        """The first non-None result of ``check()``, re-checked after each change."""
        while (result := check()) is None:
            await self._changed.wait()
        return result


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set (VmHWM) in MB, from /proc; the process must live."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process and the children it has waited
    for (a scan's parser processes) have used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return round(sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK"), 2)


def tree_rss_mb(pid: int) -> float:
    """The resident set of the process and all its living descendants now, in MB."""
    total_kb, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in Path(f"/proc/{current}/task").iterdir():
                pending.extend(int(child) for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile
        total_kb += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return round(total_kb / 1024, 1)


async def sample_tree_rss(server: Server, interval: float) -> None:
    """Keep ``server.peak_tree_rss_mb`` up to date until cancelled."""
    while True:
        server.peak_tree_rss_mb = max(server.peak_tree_rss_mb, tree_rss_mb(server.process.pid))
        await trio.sleep(interval)


class BenchmarkError(Exception):
    """The benchmark could not measure: the server or a scan misbehaved."""


@dataclass(slots=True)
class Server:
    process: subprocess.Popen[bytes]
    log_path: Path
    api_url: str
    key: str
    peak_tree_rss_mb: float = 0.0  # server and children together, as sampled (sample_tree_rss)

    def figures(self) -> dict[str, Any]:
        """Peak RSS, CPU time and loop stalls so far; read while the process lives.

        ``peak_rss_mb`` is the larger of the server's own peak and the
        sampled peak of the server with its children (scan parsers).
        """
        stalls = [int(ms) for ms in STALL_LINE.findall(self.log_path.read_text(errors="replace"))]
        own = peak_rss_mb(self.process.pid)
        return {
            "pid": self.process.pid,
            "peak_rss_mb": max(own or 0.0, self.peak_tree_rss_mb),
            "peak_server_rss_mb": own,
            "peak_tree_rss_mb": self.peak_tree_rss_mb,
            "cpu_seconds": cpu_seconds(self.process.pid),
            "loop_stalls": len(stalls),
            "max_loop_stall_ms": max(stalls, default=0),
            "watchdog_threshold_ms": WATCHDOG_THRESHOLD_MS,
        }


def _server_env(full_scans: int | None, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REELHOUSE_")}
    if full_scans is not None:
        env["REELHOUSE_SCAN__MAX_CONCURRENT_FULL_SCANS"] = str(full_scans)
    env.update(extra or {})
    return env


@contextmanager
def running_server(data_dir: Path, full_scans: int | None, extra_env: dict[str, str] | None = None) -> Iterator[Server]:
    """``reelhouse serve`` on a free port with a fresh API key; SIGTERM and wait on exit.

    ``extra_env``: settings for the server (``REELHOUSE_...`` variables).
    """
    env = _server_env(full_scans, extra_env)
    log_path = data_dir.with_suffix(".log")
    argv = [sys.executable, "-m", "reelhouse", "serve", "--bind", "127.0.0.1:0", "--data-dir", str(data_dir)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, env=env)
    try:
        url = wait_for_url(process, log_path)
        key = _create_key(data_dir, env)
        yield Server(process=process, log_path=log_path, api_url=f"{url}/api/v1", key=key)
    except Exception:  # not on Ctrl-C: the user knows why it stopped
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:])
        print(f"scan_load: server log, last lines:\n{tail}", file=sys.stderr)
        raise
    finally:
        stop_process(process)


def wait_for_url(process: subprocess.Popen[bytes], log_path: Path) -> str:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if match := SERVING_LINE.search(log_path.read_text(errors="replace")):
            return match.group(1)
        if process.poll() is not None:
            raise BenchmarkError(f"server exited early with code {process.returncode}")
        time.sleep(0.05)
    raise BenchmarkError(f"server did not log its URL within {SERVER_START_TIMEOUT_S} s")


def _create_key(data_dir: Path, env: dict[str, str]) -> str:
    argv = [sys.executable, "-m", "reelhouse", "--data-dir", str(data_dir), "apikey", "create", "bench"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise BenchmarkError(f"apikey create failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.strip().splitlines()[-1]


def stop_process(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=SERVER_STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _interrupt(signum: int, frame: object) -> None:
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        raise KeyboardInterrupt
    signal.raise_signal(signal.SIGINT)  # Trio's handler, inside trio.run, interrupts at a safe point


def sigterm_as_interrupt() -> None:
    """Make SIGTERM act as Ctrl-C, so a killed benchmark still cleans up (servers, files)."""
    signal.signal(signal.SIGTERM, _interrupt)
