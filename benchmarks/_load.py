"""The load generator of api_load.py: N keep-alive HTTP/1.1 clients, closed loop.

Run as its own process (so it never shares an event loop or a GIL with the
server under test)::

    python benchmarks/_load.py SPEC.json

SPEC is a JSON object: ``host``, ``port``, ``clients``, ``warmup`` and
``duration`` (seconds), ``headers`` (sent with every request), ``requests``
(a list of ``[path, {extra headers}]``, taken in turn; client *i* starts at
request *i* so the clients spread over the list), ``ok_statuses`` (the
statuses that count as answered, default ``[200]``) and optionally
``watch_pids`` (processes whose CPU time is read at the start and end of
the measured window, e.g. the server).

Every client holds one connection and sends its next request as soon as the
previous answer is complete (no pipelining, no think time). After
``warmup`` seconds the measured window opens; the answers completed within
``duration`` seconds after that are counted; then the run stops and
in-flight requests are abandoned. A request unanswered after
``REQUEST_TIMEOUT_S`` counts as an error and its connection is replaced; so
is a connection the server closes.

Prints one JSON object on stdout: ``requests`` (answered with an ok
status), ``requests_per_second``, ``p50_ms``/``p90_ms``/``p99_ms``/
``max_ms`` of those, ``errors`` (by status, ``timeout`` or
``connection``), ``bytes_per_request``, and CPU use over the window:
``client_cpu_cores`` (this process), ``watched_cpu_cores`` (per watched
pid) and ``machine_busy_cores`` (all CPUs, from /proc/stat).

Why not Trio or httpx here: the clients share the machine's two cores with
the server, and every microsecond the client spends per request is taken
from the server. A plain ``selectors`` loop over non-blocking sockets with
pre-encoded requests costs a few tens of microseconds per request, several
times less than an async HTTP client library. Linux only (/proc).
"""

from __future__ import annotations

import json
import math
import os
import resource
import selectors
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REQUEST_TIMEOUT_S = 10.0
RECV_BYTES = 256 * 1024
SELECT_TIMEOUT_S = 0.05
CONNECT_TIMEOUT_S = 5.0
HEADER_END = b"\r\n\r\n"


@dataclass(slots=True)
class Spec:
    host: str
    port: int
    clients: int
    warmup: float
    duration: float
    requests: list[bytes]
    ok_statuses: frozenset[int]
    watch_pids: list[int]


def load_spec(path: Path) -> Spec:
    data = json.loads(path.read_text())
    host, port = data["host"], int(data["port"])
    common = {"Host": f"{host}:{port}", **data.get("headers", {})}
    encoded = [_encode(path_, {**common, **extra}) for path_, extra in data["requests"]]
    if not encoded:
        raise ValueError("the spec has no requests")
    return Spec(
        host=host, port=port, clients=int(data["clients"]), warmup=float(data["warmup"]),
        duration=float(data["duration"]), requests=encoded,
        ok_statuses=frozenset(data.get("ok_statuses", [200])), watch_pids=list(data.get("watch_pids", [])),
    )  # fmt: skip


def _encode(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"GET {path} HTTP/1.1", *(f"{name}: {value}" for name, value in headers.items()), "", ""]
    return "\r\n".join(lines).encode("latin-1")


# --- one connection -------------------------------------------------------------------


class ResponseParser:
    """Incremental parser of one HTTP/1.1 response (Content-Length or chunked).

    ``feed`` returns None while the response is incomplete, else (status,
    body bytes, keep-alive). Bytes after the response are kept for the next
    one (the server never sends any unasked, but the parser stays honest).
    """

    __slots__ = ("body_start", "buffer", "chunked", "keep_alive", "length", "status")

    def __init__(self) -> None:
        self.buffer = b""
        self.reset()

    def reset(self) -> None:
        self.status = 0
        self.length = -1
        self.chunked = False
        self.keep_alive = True
        self.body_start = -1

    def feed(self, data: bytes) -> tuple[int, int, bool] | None:
        self.buffer += data
        if self.body_start < 0 and not self._read_head():
            return None
        if self.chunked:
            return self._chunked_body()
        end = self.body_start + self.length
        if len(self.buffer) < end:
            return None
        self.buffer = self.buffer[end:]
        return self.status, self.length, self.keep_alive

    def _read_head(self) -> bool:
        head_end = self.buffer.find(HEADER_END)
        if head_end < 0:
            return False
        head = self.buffer[:head_end].lower()
        self.status = int(head[9:12])
        self.body_start = head_end + 4
        self.keep_alive = b"\r\nconnection: close" not in head
        self.chunked = b"\r\ntransfer-encoding: chunked" in head
        at = head.find(b"\r\ncontent-length:")
        if at >= 0:
            line_end = head.find(b"\r\n", at + 2)
            self.length = int(head[at + 17 : line_end if line_end > 0 else len(head)])
        elif not self.chunked:
            self.length = 0  # 204/304 and friends: no body
        return True

    def _chunked_body(self) -> tuple[int, int, bool] | None:
        at, size = self.body_start, 0
        while True:
            line_end = self.buffer.find(b"\r\n", at)
            if line_end < 0:
                return None
            chunk = int(self.buffer[at:line_end].split(b";")[0], 16)
            if chunk == 0:
                # The last chunk's line ends the body when an empty line follows (no trailers).
                trailers_end = self.buffer.find(HEADER_END, line_end)
                if trailers_end < 0:
                    return None
                self.buffer = self.buffer[trailers_end + 4 :]
                return self.status, size, self.keep_alive
            if len(self.buffer) < line_end + 2 + chunk + 2:
                return None
            size += chunk
            at = line_end + 2 + chunk + 2


@dataclass(slots=True)
class Client:
    index: int
    sock: socket.socket | None = None
    parser: ResponseParser = field(default_factory=ResponseParser)
    sent_at: float = 0.0
    next_request: int = 0


# --- the run ----------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """What the measured window saw."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    body_bytes: int = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


class LoadRun:
    """The clients, their connections and one selector; see the module docstring."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.selector = selectors.DefaultSelector()
        self.clients = [Client(index=i, next_request=i % len(spec.requests)) for i in range(spec.clients)]
        self.tally = Tally()
        self.window_open = math.inf
        self.window_close = math.inf

    def run(self) -> dict[str, Any]:
        started = time.perf_counter()
        self.window_open = started + self.spec.warmup
        self.window_close = self.window_open + self.spec.duration
        for client in self.clients:
            self._connect(client)
            self._send(client, time.perf_counter())
        before = _cpu_snapshot(self.spec.watch_pids)
        measuring, next_expiry_check = False, started
        while (now := time.perf_counter()) < self.window_close:
            if not measuring and now >= self.window_open:
                measuring, before = True, _cpu_snapshot(self.spec.watch_pids)
            for key, _ in self.selector.select(SELECT_TIMEOUT_S):
                self._on_readable(key.data)
            if now >= next_expiry_check:
                self._expire(now)
                next_expiry_check = now + SELECT_TIMEOUT_S
        after = _cpu_snapshot(self.spec.watch_pids)
        self._close_all()
        return self._figures(before, after)

    def _connect(self, client: Client) -> None:
        sock = socket.create_connection((self.spec.host, self.spec.port), timeout=CONNECT_TIMEOUT_S)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        client.sock, client.parser = sock, ResponseParser()
        self.selector.register(sock, selectors.EVENT_READ, client)

    def _reconnect(self, client: Client) -> None:
        if client.sock is not None:
            self.selector.unregister(client.sock)
            client.sock.close()
        self._connect(client)

    def _send(self, client: Client, now: float) -> None:
        request = self.spec.requests[client.next_request]
        client.next_request = (client.next_request + 1) % len(self.spec.requests)
        client.sent_at = now
        assert client.sock is not None
        # A request is a few hundred bytes: the socket buffer always takes it whole.
        client.sock.sendall(request)

    def _on_readable(self, client: Client) -> None:
        assert client.sock is not None
        try:
            data = client.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        now = time.perf_counter()
        if not data:
            self._record_error(now, "connection")
            self._reconnect(client)
            self._send(client, time.perf_counter())
            return
        answer = client.parser.feed(data)
        if answer is None:
            return
        status, size, keep_alive = answer
        client.parser.reset()
        self._record(now, client.sent_at, status, size)
        if not keep_alive:
            self._reconnect(client)
        self._send(client, time.perf_counter())

    def _record(self, now: float, sent_at: float, status: int, size: int) -> None:
        if not self.window_open <= now < self.window_close:
            return
        if status in self.spec.ok_statuses:
            self.tally.latencies.append(now - sent_at)
            self.tally.body_bytes += size
        else:
            self.tally.error(str(status))

    def _record_error(self, now: float, kind: str) -> None:
        if self.window_open <= now < self.window_close:
            self.tally.error(kind)

    def _expire(self, now: float) -> None:
        for client in self.clients:
            if now - client.sent_at > REQUEST_TIMEOUT_S:
                self._record_error(now, "timeout")
                self._reconnect(client)
                self._send(client, time.perf_counter())

    def _close_all(self) -> None:
        for client in self.clients:
            if client.sock is not None:
                self.selector.unregister(client.sock)
                client.sock.close()
        self.selector.close()

    def _figures(self, before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
        latencies = sorted(self.tally.latencies)
        count, window = len(latencies), self.spec.duration
        wall = after["wall"] - before["wall"]

        def cores(key: str) -> float | None:
            if key not in before or key not in after or wall <= 0:
                return None
            return round((after[key] - before[key]) / wall, 2)

        return {
            "clients": self.spec.clients,
            "duration_s": window,
            "requests": count,
            "requests_per_second": round(count / window, 1),
            **{f"p{q}_ms": _ms(_percentile(latencies, q)) for q in (50, 90, 99)},
            "max_ms": _ms(latencies[-1] if latencies else None),
            "errors": dict(sorted(self.tally.errors.items())),
            "error_count": sum(self.tally.errors.values()),
            "bytes_per_request": round(self.tally.body_bytes / count) if count else None,
            "client_cpu_cores": cores("self"),
            "watched_cpu_cores": {str(pid): cores(f"pid{pid}") for pid in self.spec.watch_pids},
            "machine_busy_cores": cores("busy"),
        }


def _percentile(ordered: list[float], q: float) -> float | None:
    """Nearest-rank percentile of a sorted list (the same rule as _http_probe.percentile)."""
    if not ordered:
        return None
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def _cpu_snapshot(pids: list[int]) -> dict[str, float]:
    """CPU seconds so far: this process, each watched pid, all CPUs busy; plus the wall clock."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    snapshot = {"wall": time.perf_counter(), "self": usage.ru_utime + usage.ru_stime}
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        snapshot[f"pid{pid}"] = (int(fields[11]) + int(fields[12])) / tick
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    snapshot["busy"] = (sum(values[:8]) - idle) / tick
    return snapshot


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    spec = load_spec(Path(sys.argv[1]))
    print(json.dumps(LoadRun(spec).run()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
