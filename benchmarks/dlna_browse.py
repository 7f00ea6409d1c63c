"""DLNA against minidlna: Browse of a 5,000-film container by pages of 50, and one stream (issue 34).

Both servers serve the same tree (5,000 films, each ``Title NNNN (Year)/Title
NNNN (Year).mkv``, hard links to one real 1-second video, and one film of
518 MB of raw frames to stream) in the same private network namespace, made here (root
and ``ip netns``; the run re-executes itself inside it), on its loopback
interface (with a second address), so nothing is announced outside.  Reelhouse runs ``reelhouse
serve`` with DLNA on (its member sees every library), minidlna
``minidlnad -S`` (Debian's package; ``make dlna-tools``) with a fresh
database; each has scanned everything before anything is timed.

- **browse**: ``CLIENTS`` clients (threads, one keep-alive connection
  each, stdlib ``http.client``) send ``BrowseDirectChildren`` of the films
  container (Reelhouse ``lib.<id>.title``, minidlna ``2$8`` "All Video")
  with ``RequestedCount=50`` and ``StartingIndex`` walking the pages, for
  ``SECONDS`` s; ``REELHOUSE_DLNA_BENCH_ROUNDS`` times each (2), alternating; ``requests_per_second`` per
  server (the better round) and ``browse_ratio`` = Reelhouse / minidlna
  (target: at least 1); ``browse_cpu_ms_per_request``: each server's CPU
  time (user and system, every thread) per answered page, the lowest round:
  less disturbed by other work on a shared machine than the rates.
- **stream**: ``curl`` fetches the large film whole ``STREAM_ROUNDS``
  times from each, alternating: Reelhouse's DLNA resource
  (``/dlna/media/<id>``), Reelhouse's native stream route
  (``/api/v1/videos/<id>/stream`` with an API key, to tell the DLNA path's
  cost from the stream path's) and minidlna's; ``mb_per_second`` (best
  round), ``stream_ratio`` = minidlna / Reelhouse DLNA (time ratio; target:
  at most 1.2; also of the rounds' medians), and each server's CPU seconds per GB sent (its process's
  user and system time, minidlna's forked streaming children included).
  With ``REELHOUSE_DLNA_BENCH_PYSPY=<prefix>`` py-spy (``pip install
  py-spy``) records Reelhouse's threads during its browse and stream
  rounds (``<prefix>.browse.json``, ``<prefix>.stream.json``: speedscope).  ``--stream-only`` skips the browse rounds.

Prints one JSON object, with the machine's load average and core count
beside the figures: the machine is shared, so only the ratios (measured
side by side in one run) mean something.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from _minidlna import available, cpu_seconds, minidlna_argv, private_namespace, write_conf

FILMS = 5000
PAGE = 50
CLIENTS = 4
BROWSE_ROUNDS = int(os.environ.get("REELHOUSE_DLNA_BENCH_ROUNDS", "2"))  # each server's, alternating
SECONDS = 10.0
STREAM_ROUNDS = 5
STREAM_SECONDS = 60  # of raw 640x360 frames: 518 MB, so the stream's rate and not its first bytes is timed
ADDRESS = "10.77.0.1"
REELHOUSE_PORT = 8096
MINIDLNA_PORT = 8200
INSIDE = "REELHOUSE_DLNA_BENCH_INSIDE"
READY_TIMEOUT_S = 900.0
CD = "urn:schemas-upnp-org:service:ContentDirectory:1"
SOAP = (
    '<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"'
    ' s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body><u:Browse xmlns:u="{cd}">'
    "<ObjectID>{id}</ObjectID><BrowseFlag>BrowseDirectChildren</BrowseFlag><Filter>*</Filter>"
    "<StartingIndex>{start}</StartingIndex><RequestedCount>{count}</RequestedCount><SortCriteria></SortCriteria>"
    "</u:Browse></s:Body></s:Envelope>"
)
DIDL = "{urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/}"
DC = "{http://purl.org/dc/elements/1.1/}"


def main() -> int:
    global FILMS, STREAM_SECONDS
    if "--quick" in sys.argv[1:] or "--stream-only" in sys.argv[1:]:  # a smoke test: 500 films
        FILMS = 500
    if "--browse-only" in sys.argv[1:]:  # the stream's film is only found, not timed
        STREAM_SECONDS = 1
    if os.environ.get(INSIDE) != "1":
        return _in_namespace()
    with tempfile.TemporaryDirectory(prefix="dlna-bench-") as work:
        figures = _measure(Path(work))
    print(json.dumps(figures, indent=2))
    return 0


def _in_namespace() -> int:
    """Make the namespace, run this script inside it, remove the namespace."""
    if (why := available()) is not None:
        print(json.dumps({"skipped": why}))
        return 0
    with private_namespace(f"rhbench{os.getpid()}", ADDRESS) as name:
        env = {**os.environ, INSIDE: "1"}
        argv = ["ip", "netns", "exec", name, sys.executable, __file__, *sys.argv[1:]]
        return subprocess.run(argv, env=env, check=False).returncode


def _measure(work: Path) -> dict[str, Any]:
    films, stream = _make_tree(work / "media")
    load_before = os.getloadavg()
    with _reelhouse(work, films, stream) as reelhouse, _minidlna(work, films, stream) as minidlna:
        browse: dict[str, list[float]] = {"reelhouse": [], "minidlna": []}
        cpu: dict[str, list[float]] = {"reelhouse": [], "minidlna": []}
        for _ in range(0 if "--stream-only" in sys.argv[1:] else BROWSE_ROUNDS):
            profiler = _py_spy(reelhouse.pid, "browse")
            _browse_round(browse, cpu, "reelhouse", reelhouse, REELHOUSE_PORT, "/dlna/control/contentdirectory")
            _stop(profiler)
            _browse_round(browse, cpu, "minidlna", minidlna, MINIDLNA_PORT, "/ctl/ContentDir")
        streams = _streams(reelhouse, minidlna) if "--browse-only" not in sys.argv[1:] else _NO_STREAMS
    rh_rps, md_rps = max(browse["reelhouse"], default=0.0), max(browse["minidlna"], default=0.0)
    rh_mbs, md_mbs = max(streams["reelhouse"], default=0.0), max(streams["minidlna"], default=0.0)
    return {
        "films": FILMS, "page": PAGE, "clients": CLIENTS, "seconds_per_round": SECONDS,
        "browse_requests_per_second": {"reelhouse": rh_rps, "minidlna": md_rps, "rounds": browse},
        "browse_ratio": round(rh_rps / md_rps, 3) if md_rps else None,
        "browse_cpu_ms_per_request": {k: min(v, default=None) for k, v in cpu.items()} | {"rounds": cpu},
        "stream_mb": round(stream.stat().st_size / 1e6, 1),
        "stream_mb_per_second": {"reelhouse": rh_mbs, "reelhouse_native": max(streams["reelhouse_native"], default=0.0),
                                 "minidlna": md_mbs, "rounds": streams},
        "stream_ratio": round(md_mbs / rh_mbs, 3) if rh_mbs else None,
        "stream_ratio_of_medians": round(statistics.median(streams["minidlna"]) / statistics.median(streams["reelhouse"]), 3)
        if streams["reelhouse"] else None,
        "stream_cpu_seconds_per_gb": streams["cpu_seconds_per_gb"],
        "machine": {"cores": os.cpu_count(), "loadavg_before": load_before, "loadavg_after": os.getloadavg(),
                    "note": "shared with other work: the ratios, measured side by side, are the figures"},
    }  # fmt: skip


_NO_STREAMS: dict[str, Any] = {"reelhouse": [], "reelhouse_native": [], "minidlna": [], "cpu_seconds_per_gb": {}}


@dataclass(frozen=True)
class _Served:
    films: str  # the films container's id
    stream: str  # the long film's resource URL
    pid: int
    native: tuple[str, dict[str, str]] | None = None  # Reelhouse's own stream route and its headers


def _streams(reelhouse: _Served, minidlna: _Served) -> dict[str, Any]:
    """STREAM_ROUNDS whole downloads from each, alternating: MB/s per round, CPU seconds per GB per server."""
    rounds: dict[str, Any] = {"reelhouse": [], "reelhouse_native": [], "minidlna": []}
    cpu = {"reelhouse": 0.0, "minidlna": 0.0}
    sent = {"reelhouse": 0, "minidlna": 0}
    profiler = _py_spy(reelhouse.pid, "stream")
    try:
        for _ in range(STREAM_ROUNDS):
            for name, served in (("reelhouse", reelhouse), ("minidlna", minidlna)):
                before = cpu_seconds(served.pid)
                size, rate = _stream(served.stream)
                cpu[name] += cpu_seconds(served.pid) - before
                sent[name] += size
                rounds[name].append(rate)
            assert reelhouse.native is not None
            rounds["reelhouse_native"].append(_stream(*reelhouse.native)[1])
    finally:
        _stop(profiler)
    rounds["cpu_seconds_per_gb"] = {k: round(cpu[k] / (sent[k] / 1e9), 3) for k in cpu if sent[k]}
    return rounds


def _browse_round(rates: dict[str, list[float]], cpu: dict[str, list[float]], name: str, served: _Served, port: int,
                  path: str) -> None:  # fmt: skip
    """One browse round of ``served``: requests per second, and its process's CPU ms per request (all threads)."""
    before = cpu_seconds(served.pid)
    rate, count = _browse_load(port, path, served.films)
    rates[name].append(rate)
    cpu[name].append(round((cpu_seconds(served.pid) - before) * 1000 / max(count, 1), 3))


def _stop(profiler: subprocess.Popen[bytes] | None) -> None:
    if profiler is not None:
        profiler.send_signal(signal.SIGINT)
        profiler.wait(timeout=120)


def _py_spy(pid: int, what: str) -> subprocess.Popen[bytes] | None:
    """py-spy recording ``pid`` (without stopping it: --nonblocking) into ``<REELHOUSE_DLNA_BENCH_PYSPY>.<what>``."""
    target = os.environ.get("REELHOUSE_DLNA_BENCH_PYSPY")
    if not target or shutil.which("py-spy") is None:
        return None
    argv = ["py-spy", "record", "--pid", str(pid), "--threads", "--nonblocking", "--rate", "100", "--format",
            "speedscope", "--output", f"{target}.{what}.json"]  # fmt: skip
    profiler = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # attached before the first byte
    return profiler


def _make_tree(root: Path) -> tuple[Path, Path]:
    """5,000 films as hard links to one 1-second video, and one larger film (518 MB of raw frames) to stream."""
    films = root / "Films"
    films.mkdir(parents=True)
    one = root / "one.mkv"
    _ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=5", "-f", "lavfi", "-i", "sine=frequency=440",
             "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", str(one)])  # fmt: skip
    for n in range(FILMS):
        title = f"Film {n:04d} ({1950 + n % 70})"
        (films / title).mkdir()
        os.link(one, films / title / f"{title}.mkv")
    stream = root / "Stream" / "Long Film (2020)" / "Long Film (2020).mkv"
    stream.parent.mkdir(parents=True)
    _ffmpeg(["-f", "lavfi", "-i", "testsrc=size=640x360:rate=25", "-t", str(STREAM_SECONDS), "-c:v", "rawvideo", "-pix_fmt",
             "yuv420p", str(stream)])  # fmt: skip (raw frames: 518 MB that take no time to make)
    one.unlink()
    return films, stream


def _ffmpeg(args: list[str]) -> None:
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True, timeout=600)


@contextmanager
def _reelhouse(work: Path, films: Path, stream: Path) -> Iterator[_Served]:
    """Reelhouse with DLNA on, both folders scanned."""
    data = work / "reelhouse"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REELHOUSE_")}
    env.update(REELHOUSE_DLNA__ENABLED="true", REELHOUSE_DLNA__MEMBER="tv")
    common = ["--data-dir", str(data)]
    cli = [sys.executable, "-m", "reelhouse"]
    subprocess.run([*cli, *common, "user", "add", "tv"], env=env, check=True, capture_output=True)
    subprocess.run([*cli, *common, "user", "set", "tv", "--all-libraries"], env=env, check=True, capture_output=True)
    key = subprocess.run([*cli, *common, "apikey", "create", "bench"], env=env, check=True, capture_output=True,
                         text=True).stdout.strip().splitlines()[-1]  # fmt: skip
    with (work / "reelhouse.log").open("wb") as log:
        server = subprocess.Popen([*cli, "serve", "--bind", f"{ADDRESS}:{REELHOUSE_PORT}", *common], env=env,
                                  stdout=subprocess.DEVNULL, stderr=log)  # fmt: skip
    try:
        api = _Api(key)
        _wait(lambda: api.get("/health")[0] == 200, "Reelhouse to start")
        film_lib = api.library("Films", films)
        stream_lib = api.library("Stream", stream.parent.parent)
        _wait(lambda: _total(REELHOUSE_PORT, "/dlna/control/contentdirectory", f"lib.{film_lib}.title") == FILMS
              and _total(REELHOUSE_PORT, "/dlna/control/contentdirectory", f"lib.{stream_lib}.title") == 1,
              "Reelhouse to scan")  # fmt: skip
        # The items are listed once written; the scan then probes them (its probe workers, children
        # counted in the CPU figures): timing starts once both scans have completed.
        _wait(lambda: api.scans_completed({film_lib, stream_lib}), "Reelhouse's scans to complete")
        url = _first_url(REELHOUSE_PORT, "/dlna/control/contentdirectory", f"lib.{stream_lib}.title", "Long Film")
        native = (f"http://{ADDRESS}:{REELHOUSE_PORT}/api/v1/videos/{url.rsplit('/', 1)[1]}/stream",
                  {"Authorization": f"Bearer {key}"})  # fmt: skip
        yield _Served(f"lib.{film_lib}.title", url, server.pid, native)
    finally:
        server.terminate()
        server.wait(timeout=60)


class _Api:
    def __init__(self, key: str) -> None:
        self._headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

    def get(self, path: str) -> tuple[int, bytes]:
        return self._call("GET", path, None)

    def library(self, name: str, folder: Path) -> str:
        body = {"name": name, "collectionType": "movies", "paths": [str(folder)], "realtimeMonitor": False}
        status, answer = self._call("POST", "/api/v1/libraries", json.dumps(body).encode())
        if status not in (200, 201):
            raise RuntimeError(f"creating library {name}: {status} {answer[:200]!r}")
        library_id: str = json.loads(answer)["id"]
        return library_id

    def scans_completed(self, libraries: set[str]) -> bool:
        status, answer = self.get("/api/v1/scans/status")
        states = {s["libraryId"]: s["state"] for s in json.loads(answer)} if status == 200 else {}
        return all(states.get(library) == "completed" for library in libraries)

    def _call(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection(ADDRESS, REELHOUSE_PORT, timeout=30)
        try:
            connection.request(method, path, body=body, headers=self._headers)
            answer = connection.getresponse()
            return answer.status, answer.read()
        except OSError:
            return 0, b""
        finally:
            connection.close()


@contextmanager
def _minidlna(work: Path, films: Path, stream: Path) -> Iterator[_Served]:
    """minidlnad over the same folders, its database built: ("2$8" All Video, the stream's URL)."""
    conf = write_conf(work / "minidlna", [films, stream.parent.parent], MINIDLNA_PORT)
    server = subprocess.Popen(minidlna_argv(conf), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(lambda: _total(MINIDLNA_PORT, "/ctl/ContentDir", "2$8") == FILMS + 1, "minidlna to scan")
        yield _Served("2$8", _first_url(MINIDLNA_PORT, "/ctl/ContentDir", "2$8", "Long Film", walk=True), server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)


def _browse(connection: http.client.HTTPConnection, path: str, object_id: str, start: int,
            count: int) -> bytes:  # fmt: skip
    body = SOAP.format(cd=CD, id=object_id, start=start, count=count).encode()
    headers = {"Content-Type": 'text/xml; charset="utf-8"', "SOAPACTION": f'"{CD}#Browse"'}
    connection.request("POST", path, body=body, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    if answer.status != 200:
        raise RuntimeError(f"Browse {object_id}: {answer.status}")
    return data


def _result(envelope: bytes) -> tuple[ElementTree.Element, int]:
    root = ElementTree.fromstring(envelope)
    result = root.findtext(".//Result") or ""
    return ElementTree.fromstring(result), int(root.findtext(".//TotalMatches") or 0)


def _total(port: int, path: str, object_id: str) -> int:
    try:
        connection = http.client.HTTPConnection(ADDRESS, port, timeout=30)
        return _result(_browse(connection, path, object_id, 0, 1))[1]
    except (OSError, RuntimeError, ElementTree.ParseError):
        return -1


def _first_url(port: int, path: str, object_id: str, title: str, walk: bool = False) -> str:
    connection = http.client.HTTPConnection(ADDRESS, port, timeout=30)
    start = 0
    while True:  # to a short page: minidlna's TotalMatches may read 0 while its scanner finishes
        didl, _ = _result(_browse(connection, path, object_id, start, PAGE))
        for item in didl:
            if (item.findtext(f"{DC}title") or "").startswith(title):
                return item.findtext(f"{DIDL}res") or ""
        start += PAGE
        if not walk or len(didl) < PAGE:
            raise RuntimeError(f"{title} not found in {object_id}")


def _browse_load(port: int, path: str, object_id: str) -> tuple[float, int]:
    """Pages of 50 by CLIENTS keep-alive clients for SECONDS: answered requests per second, and how many."""
    done = [0] * CLIENTS
    stop = time.monotonic() + SECONDS

    def client(index: int) -> None:
        connection = http.client.HTTPConnection(ADDRESS, port, timeout=30)
        start = index * PAGE
        while time.monotonic() < stop:
            _browse(connection, path, object_id, start, PAGE)
            done[index] += 1
            start = (start + CLIENTS * PAGE) % FILMS

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return round(sum(done) / (time.monotonic() - began), 1), sum(done)


def _stream(url: str, headers: dict[str, str] | None = None) -> tuple[int, float]:
    """Bytes and MB/s of one whole GET by curl (to /dev/null)."""
    options = [f"-H{name}: {value}" for name, value in (headers or {}).items()]
    done = subprocess.run(["curl", "-sf", *options, "-o", "/dev/null", "-w", "%{size_download} %{time_total}", url],
                          capture_output=True, text=True, check=True, timeout=600)  # fmt: skip
    size, seconds = done.stdout.split()
    return int(size), round(int(size) / float(seconds) / 1e6, 1)


def _wait(ready: Any, what: str) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.5)


if __name__ == "__main__":
    sys.exit(main())
