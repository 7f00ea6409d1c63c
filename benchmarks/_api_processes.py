"""The processes of api_load.py: servers under test, the load generator, PostgreSQL backends.

- ``reelhouse_server(data_dir, database_url)``: ``reelhouse serve`` on a
  free port and the given database, with a fresh API key (the start-up and
  stop helpers of ``_http_probe``; its ``running_server`` knows SQLite only).
- ``ceiling_server(log_path)``: benchmarks/_ceiling_app.py the same way.
- ``run_load(...)``: one run of benchmarks/_load.py (a separate process)
  against a server; its JSON figures.
- ``postgres_backends(pid)``: the PostgreSQL backend processes serving the
  connections of process ``pid``, found through /proc (Linux; as root, or as
  the postgres user, to see their sockets), so their CPU can be measured.

Every server is stopped with SIGTERM (killed after 20 s) when its block
ends, also on failure; the last lines of its log go to stderr then.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _http_probe import LOG_TAIL_LINES, BenchmarkError, Server, stop_process, wait_for_url

BENCHMARKS = Path(__file__).resolve().parent
LOAD_TIMEOUT_MARGIN_S = 60.0
KEY_TIMEOUT_S = 60.0
POSTGRES_PORT = 5432


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("REELHOUSE_")}


@contextmanager
def _process(argv: list[str], log_path: Path, extra_env: dict[str, str] | None = None,
             ) -> Iterator[tuple[subprocess.Popen[bytes], str]]:  # fmt: skip
    """A server process and its base URL (from its ``serving on`` line)."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, env=_clean_env() | (extra_env or {}))
    try:
        yield process, wait_for_url(process, log_path)
    except Exception:  # not on Ctrl-C: the log is of no help then
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:])
        print(f"api_load: {log_path.name}, last lines:\n{tail}", file=sys.stderr)
        raise
    finally:
        stop_process(process)


@contextmanager
def reelhouse_server(data_dir: Path, database_url: str, extra_env: dict[str, str] | None = None) -> Iterator[Server]:
    """``reelhouse serve`` on ``database_url`` with a fresh API key; ``extra_env``: its ``REELHOUSE_*``."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log_path = data_dir.with_suffix(".log")
    common = ["--data-dir", str(data_dir), "--database", database_url]
    argv = [sys.executable, "-m", "reelhouse", "serve", "--bind", "127.0.0.1:0", *common]
    with _process(argv, log_path, extra_env) as (process, url):
        create = [sys.executable, "-m", "reelhouse", *common, "apikey", "create", "bench"]
        done = subprocess.run(create, capture_output=True, text=True, env=_clean_env(), timeout=KEY_TIMEOUT_S,
                              check=False)  # fmt: skip
        if done.returncode != 0 or not done.stdout.strip():
            raise BenchmarkError(f"apikey create failed ({done.returncode}): {done.stderr.strip()}")
        key = done.stdout.strip().splitlines()[-1]
        yield Server(process=process, log_path=log_path, api_url=f"{url}/api/v1", key=key)


@contextmanager
def ceiling_server(log_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """benchmarks/_ceiling_app.py on a free port; (process, base URL of its API)."""
    argv = [sys.executable, str(BENCHMARKS / "_ceiling_app.py"), "--bind", "127.0.0.1:0"]
    with _process(argv, log_path) as (process, url):
        yield process, f"{url}/api/v1"


@dataclass(frozen=True, slots=True)
class LoadShape:
    clients: int
    warmup: float
    duration: float


def run_load(base_url: str, requests: list[tuple[str, dict[str, str]]], *, headers: dict[str, str],
             ok_statuses: tuple[int, ...], shape: LoadShape, spec_path: Path,
             server_pid: int, postgres_pids: Sequence[int] = ()) -> dict[str, Any]:  # fmt: skip
    """One run of benchmarks/_load.py; ``requests`` are (path from the root, extra headers).

    The figures are _load.py's, with the watched CPU split into
    ``server_cpu_cores`` and ``postgres_cpu_cores`` (None without backends).
    Raises BenchmarkError when the load generator fails.
    """
    host, port = base_url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)
    spec = {
        "host": host, "port": int(port), "clients": shape.clients, "warmup": shape.warmup,
        "duration": shape.duration, "headers": headers, "requests": [[path, extra] for path, extra in requests],
        "ok_statuses": list(ok_statuses), "watch_pids": [server_pid, *postgres_pids],
    }  # fmt: skip
    spec_path.write_text(json.dumps(spec))
    argv = [sys.executable, str(BENCHMARKS / "_load.py"), str(spec_path)]
    timeout = shape.warmup + shape.duration + LOAD_TIMEOUT_MARGIN_S
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise BenchmarkError(f"the load generator failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    figures = json.loads(done.stdout)
    watched = figures.pop("watched_cpu_cores")
    figures["server_cpu_cores"] = watched.get(str(server_pid))
    backends = [watched[str(pid)] for pid in postgres_pids if watched.get(str(pid)) is not None]
    figures["postgres_cpu_cores"] = round(sum(backends), 2) if backends else None
    return figures


# --- PostgreSQL backends ---------------------------------------------------------------------


def postgres_backends(client_pid: int, port: int = POSTGRES_PORT) -> list[int]:
    """PIDs of the PostgreSQL backends at the other end of ``client_pid``'s connections to ``port``.

    Matches the client's TCP sockets to the server side's by port pairs in
    /proc/net/tcp*, then finds the ``postgres`` processes holding those.
    Returns [] when /proc says nothing (another OS, or no permission).
    """
    rows = _tcp_sockets()
    mine = _socket_inodes(client_pid)
    client_ports = {local for local, remote, inode in rows if remote == port and inode in mine}
    peers = {inode for local, remote, inode in rows if local == port and remote in client_ports}
    if not peers:
        return []
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() == "postgres" and _socket_inodes(int(entry.name)) & peers:
                pids.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return sorted(pids)


def _tcp_sockets() -> list[tuple[int, int, str]]:
    """(local port, remote port, inode) of every TCP socket of this network namespace."""
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote = (int(address.rsplit(":", 1)[1], 16) for address in fields[1:3])
            rows.append((local, remote, fields[9]))
    return rows


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return inodes
    for descriptor in descriptors:
        try:
            target = os.readlink(descriptor)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes
