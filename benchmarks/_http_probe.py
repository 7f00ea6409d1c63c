"""HTTP probes for the scan benchmark: latency sampling and the event stream.

- ``sample_latency`` GETs one path at a fixed pace until cancelled and
  keeps every duration; ``LatencySamples.summary`` gives count, errors,
  p50/p99/max in milliseconds.
- ``stream_events`` reads ``GET /scans/events`` (server-sent events) and
  hands every event, stamped with its receipt time, to a callback.
- ``Watch`` lets a task wait until some recorded fact becomes true.

All of it runs on Trio with httpx; each function is cancelled by its
nursery, never stops by itself except on a closed stream.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import trio

SAMPLE_TIMEOUT_S = 10.0
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
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Read the event stream at ``path``, calling ``on_event`` for each event.

    Reports started once the server has answered 200 and sent its first
    line (the server is then subscribed: nothing later is missed). Raises
    ``httpx.HTTPStatusError`` on another status; returns when the server
    closes the stream; cancelled by the caller's nursery otherwise.
    """
    timeout = httpx.Timeout(SAMPLE_TIMEOUT_S, read=None)
    async with client.stream("GET", path, timeout=timeout) as response:
        response.raise_for_status()
        started = False
        fields: dict[str, str] = {}
        async for line in response.aiter_lines():
            if not started:
                started = True
                task_status.started()
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
