"""minidlna as the peer of a benchmark: a private network namespace, its config, its first scan, CPU from /proc.

- ``private_namespace`` makes a network namespace whose loopback carries
  multicast (minidlna's SSDP), so a peer server started in it announces
  nothing outside (root and ``ip netns``); ``ip netns exec`` execs the
  command, so the child's pid is the server's own.
- ``write_conf`` / ``minidlna_argv``: ``minidlnad -S -R`` (foreground, a
  fresh database) over some folders, logging warnings (the scanner's
  "Scanning <dir> finished" line among them).
- ``first_scan``: minidlna's first scan of one folder, timed from the
  start of ``minidlnad`` to the exit of its scanner (a child process it
  forks and reaps), with the CPU of the server and its scanner.
- ``cpu_seconds``: user + system CPU of a process, of the children it
  waited for and of its living children (probe workers, scanners,
  streaming children), from /proc (Linux).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

LOG_LEVELS = "general,artwork,database,inotify,scanner,metadata,http,ssdp,tivo=warn"
SCAN_POLL_S = 0.02
SCAN_TIMEOUT_S = 1800.0
STOP_TIMEOUT_S = 60.0


def available() -> str | None:
    """Why minidlna cannot be run here as a benchmark's peer, or None."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return "needs root and `ip netns` (a private network namespace for minidlna)"
    if shutil.which("minidlnad") is None:
        return "needs minidlnad (make dlna-tools)"
    return None


@contextmanager
def private_namespace(name: str, address: str | None = None) -> Iterator[str]:
    """A network namespace ``name`` with its loopback up and multicast on it (and ``address``/24 on it)."""
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        commands = [["link", "set", "lo", "up"], ["link", "set", "lo", "multicast", "on"],
                    ["route", "add", "224.0.0.0/4", "dev", "lo"]]  # fmt: skip
        if address is not None:
            commands.insert(1, ["addr", "add", f"{address}/24", "dev", "lo"])
        for command in commands:
            subprocess.run(["ip", "netns", "exec", name, "ip", *command], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def write_conf(folder: Path, media_dirs: list[Path], port: int) -> Path:
    """``folder``/minidlna.conf: video folders, database and log in ``folder``, no inotify."""
    (folder / "db").mkdir(parents=True)
    conf = folder / "minidlna.conf"
    dirs = "".join(f"media_dir=V,{path}\n" for path in media_dirs)
    conf.write_text(
        f"port={port}\nnetwork_interface=lo\n{dirs}db_dir={folder / 'db'}\nlog_dir={folder}\n"
        f"friendly_name=minidlna\ninotify=no\nlog_level={LOG_LEVELS}\n"
    )
    return conf


def minidlna_argv(conf: Path) -> list[str]:
    """Foreground (-S), a fresh database (-R), its pid file beside the config."""
    return ["minidlnad", "-f", str(conf), "-P", str(conf.parent / "pid"), "-S", "-R"]


def first_scan(work: Path, root: Path, files: int) -> dict[str, Any]:
    """minidlna's first scan of ``root``, in a private namespace: wall time, CPU seconds, files indexed."""
    folder = work / "minidlna"
    conf = write_conf(folder, [root], 8200)
    with private_namespace(f"rhscan{os.getpid()}") as namespace:
        started = time.perf_counter()
        server = subprocess.Popen(["ip", "netns", "exec", namespace, *minidlna_argv(conf)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            _wait_scanned(server, folder / "minidlna.log", root)
            wall = time.perf_counter() - started
            cpu = cpu_seconds(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=STOP_TIMEOUT_S)
    videos = _videos(folder / "db" / "files.db")
    return {"scan_seconds": round(wall, 3), "cpu_seconds": round(cpu, 2), "videos_indexed": videos,
            "files_per_second": round(files / wall) if wall else None,
            "files_per_cpu_second": round(files / cpu) if cpu else None}  # fmt: skip


def _wait_scanned(server: subprocess.Popen[bytes], log: Path, root: Path) -> None:
    """Until the scanner logged the end of ``root`` and has been reaped by the server (its CPU then counted)."""
    finished = f"Scanning {root} finished"
    deadline = time.monotonic() + SCAN_TIMEOUT_S
    while not (log.exists() and finished in log.read_text(errors="replace") and not children(server.pid)):
        if server.poll() is not None:
            raise RuntimeError(f"minidlnad exited with {server.returncode} before its scan ended")
        if time.monotonic() > deadline:
            raise RuntimeError(f"minidlna's scan did not end within {SCAN_TIMEOUT_S:g} s")
        time.sleep(SCAN_POLL_S)


def _videos(database: Path) -> int:
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return int(connection.execute("SELECT count(*) FROM DETAILS WHERE MIME LIKE 'video/%'").fetchone()[0])
    finally:
        connection.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid``, of the children it waited for and of its living children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return own + sum(_living_cpu_seconds(child) for child in children(pid))


def children(pid: int) -> list[int]:
    """The living (or not yet reaped) children of every thread of ``pid``."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            found.extend(int(child) for child in (task / "children").read_text().split())
    return found


def _living_cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0  # ended meanwhile: counted once its parent waited for it
    return sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")
