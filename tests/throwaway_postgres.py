"""A PostgreSQL cluster of a test's own, which the test may stop, restart or break.

The shared server on 5432 is never touched: a test that restarts its
database starts its own cluster (``initdb`` into a fresh folder, a free
port on 127.0.0.1, its socket in that folder) and stops it afterwards.
Use the ``throwaway_postgres`` fixture (tests/conftest.py) or
:func:`throwaway_cluster` directly.

initdb and the server refuse to run as root: as root, the cluster runs as
the ``postgres`` user (``runuser``), in a folder of its own under the
temporary directory (pytest's ``tmp_path`` sits below a folder only its
owner may enter).  Without the binaries (``POSTGRES_BIN_DIR`` overrides
where they are looked for), the tests skip, except under CI (``CI=true``),
where they fail.  pytest-postgresql was considered: it runs initdb as the
current user (refused as root) and has no restart.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

BIN_DIR = Path(os.environ.get("POSTGRES_BIN_DIR", "/usr/lib/postgresql/15/bin"))
SERVER_USER = "postgres"  # who runs the cluster when the tests run as root
SUPERUSER = "root"  # the cluster's superuser, so URLs read as on the shared server
COMMAND_TIMEOUT_S = 60
# Durability is worth nothing in a cluster thrown away after one test.
SETTINGS = ("-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off", "-c shared_buffers=16MB")


class ThrowawayPostgres:
    """One cluster: ``url`` to connect, ``restart``/``stop``/``start`` to break it."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.data = folder / "data"
        self.logfile = folder / "server.log"
        self.url = f"postgresql://{SUPERUSER}@127.0.0.1:{port}/postgres"

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "--no-sync", "-E", "UTF8")

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        self._pg_ctl("start", "-l", str(self.logfile), "-o", self._options())

    def stop(self) -> None:
        """Stop at once (``fast``: sessions are cut, as a real restart cuts them)."""
        self._pg_ctl("stop", "-m", "fast")

    def restart(self) -> None:
        """Stop fast and start again: every connection to it is cut."""
        self._pg_ctl("restart", "-m", "fast", "-l", str(self.logfile), "-o", self._options())

    def running(self) -> bool:
        result = subprocess.run(
            self._as_server_user(str(BIN_DIR / "pg_ctl"), "-D", str(self.data), "status"),
            capture_output=True, timeout=COMMAND_TIMEOUT_S, check=False,
        )  # fmt: skip
        return result.returncode == 0

    def log(self) -> str:
        try:
            return self.logfile.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _options(self) -> str:
        return " ".join((f"-p {self.port}", f"-k {self.folder}", "-c listen_addresses=127.0.0.1", *SETTINGS))

    def _pg_ctl(self, action: str, *args: str) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", str(COMMAND_TIMEOUT_S), action, *args)

    def _run(self, program: str, *args: str) -> None:
        result = subprocess.run(
            self._as_server_user(str(BIN_DIR / program), *args),
            capture_output=True, timeout=COMMAND_TIMEOUT_S * 2, check=False,
        )  # fmt: skip
        if result.returncode != 0:
            output = (result.stdout + result.stderr).decode(errors="replace")
            raise RuntimeError(f"{program} {' '.join(args)} failed ({result.returncode}):\n{output}\n{self.log()}")

    @staticmethod
    def _as_server_user(*argv: str) -> list[str]:
        return ["runuser", "-u", SERVER_USER, "--", *argv] if os.geteuid() == 0 else list(argv)


def missing_reason() -> str | None:
    """Why no throwaway cluster can be made here, or None."""
    if not (BIN_DIR / "initdb").is_file():
        return f"no PostgreSQL binaries in {BIN_DIR} (set POSTGRES_BIN_DIR)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError:
            return f"running as root and there is no {SERVER_USER!r} user to run PostgreSQL"
        if shutil.which("runuser") is None:
            return "running as root and there is no runuser"
    return None


def require_binaries() -> None:
    """Skip the calling test when no cluster can be made, except under CI (there, fail)."""
    reason = missing_reason()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def throwaway_cluster(tmp_path: Path) -> Iterator[ThrowawayPostgres]:
    """A started cluster (skips when impossible, see :func:`require_binaries`), stopped and removed after."""
    require_binaries()
    folder = _cluster_folder(tmp_path)
    cluster = ThrowawayPostgres(folder, _free_port())
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        if cluster.running():
            cluster.stop()
        if folder != tmp_path / "postgres":
            shutil.rmtree(folder, ignore_errors=True)


def _cluster_folder(tmp_path: Path) -> Path:
    if os.geteuid() != 0:
        folder = tmp_path / "postgres"
        folder.mkdir()
        return folder
    folder = Path(tempfile.mkdtemp(prefix="reelhouse-pg-"))  # short: the socket path has a length limit
    user = pwd.getpwnam(SERVER_USER)
    os.chown(folder, user.pw_uid, user.pw_gid)
    return folder


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
