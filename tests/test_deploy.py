"""The deployment files: the image's entrypoint and user in a PID namespace, compose files and the unit checked.

No container engine runs here, so the image is built only where one
answers; what the image does is tried without one: the final stage's
entrypoint, environment, user and health check run in a PID namespace of
their own (``unshare --pid``, as root), the server as PID 1 and as the
image's unprivileged user, its data folder owned by that user.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import trio

from reelhouse.config import Settings, load_settings

from .deploy_files import (
    COMPOSE_FILES,
    CONTAINERFILE,
    ROOT,
    UNIT,
    Stage,
    compose,
    created_user,
    image,
    stages,
    unit,
    unit_values,
)
from .server_process import descendants, is_running

START_S = 60.0
VENV_BIN = Path(sys.executable).parent


def _namespace_problem() -> str | None:
    if os.geteuid() != 0:
        return "needs root for a PID namespace and another user (unshare --pid, setpriv)"
    if shutil.which("unshare") is None or shutil.which("setpriv") is None:
        return "needs unshare(1) and setpriv(1) from util-linux"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def data_dir_of_the_image_user() -> Iterator[Path]:
    """A data folder the image's user owns, where that user can reach it (pytest's tmp_path is root's, 0700)."""
    uid, gid = created_user(image(), image().user or "")
    top = Path(tempfile.mkdtemp(prefix="reelhouse-image-"))
    top.chmod(0o755)
    data = top / "data"
    data.mkdir()
    os.chown(data, uid, gid)
    try:
        yield data
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _environment(stage: Stage, data_dir: Path, bind: str) -> dict[str, str]:
    """The image's ENV, with this machine's venv for /opt/reelhouse and a test port and folder."""
    env = {name: value for name, value in stage.env.items() if name != "PATH"}
    env.update(PATH=f"{VENV_BIN}:/usr/bin:/bin", HOME=str(data_dir), REELHOUSE_DATA_DIR=str(data_dir),
               REELHOUSE_BIND=bind)
    return env


def _uid_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("Uid:")).split()[1])


async def _healthy(stage: Stage, env: dict[str, str]) -> bool:
    command = [sys.executable if stage.healthcheck[0] == "python" else stage.healthcheck[0], *stage.healthcheck[1:]]
    done = await trio.run_process(command, env=env, check=False, capture_stdout=True, capture_stderr=True)
    return done.returncode == 0


@pytest.mark.skipif(_namespace_problem() is not None, reason=str(_namespace_problem()))
async def test_the_images_entrypoint_runs_as_pid_1_and_its_user_passes_the_health_check_and_stops_on_sigterm(
    data_dir_of_the_image_user: Path,
) -> None:
    stage = image()
    assert stage.user and stage.user != "root"
    uid, gid = created_user(stage, stage.user)
    assert uid != 0 and gid != 0
    env = _environment(stage, data_dir_of_the_image_user, f"127.0.0.1:{_free_port()}")
    as_image_user = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    argv = ["unshare", "--pid", "--fork", "--kill-child", *as_image_user, *stage.entrypoint, *stage.cmd]
    process = await trio.lowlevel.open_process(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with trio.fail_after(START_S):
            while not await _healthy(stage, env):
                assert process.poll() is None, "the server ended before it was healthy"
                await trio.sleep(0.2)
        pid_1, *server = descendants(process.pid)  # the init (PID 1 inside), then the server it forked
        assert server, "as PID 1 the entrypoint forks the server under its own init"
        assert {_uid_of(pid) for pid in [pid_1, *server]} == {uid}
        assert (data_dir_of_the_image_user / "reelhouse.db").stat().st_uid == uid
        os.kill(pid_1, signal.Signals[stage.stop_signal or "SIGTERM"])  # what `docker stop` sends PID 1
        with trio.fail_after(Settings().shutdown_grace_seconds + 5):
            code = await process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    assert code == 0
    assert not [pid for pid in [pid_1, *server] if is_running(pid)]


def test_the_image_is_built_in_two_stages_and_keeps_its_data_in_a_volume() -> None:
    image_stages = stages()
    final = image_stages[-1]
    assert len(image_stages) == 2
    assert any("--from=build" in copy for copy in final.copies)
    assert final.volumes == [final.env["REELHOUSE_DATA_DIR"]]
    port = final.env["REELHOUSE_BIND"].rpartition(":")[2]
    assert final.exposed == [port]
    assert final.stop_signal == "SIGTERM"
    assert final.healthcheck and "/health" in " ".join(final.healthcheck)
    # Every REELHOUSE_* variable of the image is a setting the server accepts.
    load_settings(environ={k: v for k, v in final.env.items() if k.startswith("REELHOUSE_")})


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=lambda p: p.name)
def test_a_compose_file_runs_the_image_with_its_volume_port_and_valid_settings(path: Path) -> None:
    stage = image()
    document = compose(path)
    service = document["services"]["reelhouse"]
    assert service["build"]["dockerfile"] == CONTAINERFILE.name
    assert (ROOT / service["build"]["context"]).resolve() == ROOT
    port = stage.env["REELHOUSE_BIND"].rpartition(":")[2]
    assert any(str(mapping).endswith(f":{port}") for mapping in service["ports"])
    volumes = [v.split(":") for v in service["volumes"]]
    data = [v for v in volumes if v[1] == stage.env["REELHOUSE_DATA_DIR"]]
    assert data and data[0][0] in document["volumes"]  # a named volume the file declares
    assert all(v[2:] == ["ro"] for v in volumes if v[1] != stage.env["REELHOUSE_DATA_DIR"])  # media read-only
    grace = float(service["stop_grace_period"].removesuffix("s"))
    assert grace > Settings().shutdown_grace_seconds  # the server stops on its own before SIGKILL
    environment = {k: _without_interpolation(v) for k, v in service.get("environment", {}).items()}
    load_settings(environ=environment)  # every variable a known setting with a valid value


def test_the_postgresql_compose_file_waits_for_a_healthy_database_it_creates() -> None:
    document = compose(COMPOSE_FILES[1])
    postgres, reelhouse = document["services"]["postgres"], document["services"]["reelhouse"]
    assert reelhouse["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert postgres["healthcheck"]["test"][1] == "pg_isready"
    url = load_settings(environ={"REELHOUSE_DATABASE_URL": _without_interpolation(
        reelhouse["environment"]["REELHOUSE_DATABASE_URL"])}).database_url
    parts = urlsplit(url)
    assert parts.hostname == "postgres" and parts.port == 5432
    assert parts.username == postgres["environment"]["POSTGRES_USER"]
    assert parts.path.lstrip("/") == postgres["environment"]["POSTGRES_DB"]
    # The password comes from .env, never written in the file; the same for both services.
    assert "${REELHOUSE_DB_PASSWORD" in postgres["environment"]["POSTGRES_PASSWORD"]
    assert "${REELHOUSE_DB_PASSWORD" in reelhouse["environment"]["REELHOUSE_DATABASE_URL"]
    assert postgres["image"].startswith("postgres:15")  # the image's pg_dump (Debian 12) is version 15


def _without_interpolation(value: object) -> str:
    """Compose's ${NAME:?message} replaced by a sample value, as `docker compose config` would with .env."""
    return re.sub(r"\$\{[A-Z_]+(:\?[^}]*)?\}", "sample", str(value))


def test_the_systemd_unit_runs_serve_as_its_user_and_stops_gracefully() -> None:
    service = unit()["Service"]
    assert service["ExecStart"].split()[-1] == "serve" and service["ExecStart"].startswith("/")
    assert service["User"] != "root"
    assert service["KillSignal"] == "SIGTERM"
    assert float(service["TimeoutStopSec"]) > Settings().shutdown_grace_seconds
    assert service["Restart"] == "on-failure"  # a database not up yet at boot is retried
    environment = dict(line.split("=", 1) for line in unit_values("Environment"))
    settings = load_settings(environ=environment)
    assert str(settings.data_dir) == f"/var/lib/{service['StateDirectory']}"
    assert settings.data_dir.as_posix() in service["ReadWritePaths"].split()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_reads_the_unit_without_a_complaint(tmp_path: Path) -> None:
    # The unit as installed, its ExecStart pointed at this venv's command (/opt/reelhouse is not here).
    command = str(Path(sys.executable).with_name("reelhouse"))
    text = UNIT.read_text().replace(unit()["Service"]["ExecStart"].split()[0], command)
    (tmp_path / UNIT.name).write_text(text)
    done = subprocess.run(["systemd-analyze", "verify", str(tmp_path / UNIT.name)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def _container_engine_problem() -> str | None:
    for engine in ("docker", "podman"):
        if shutil.which(engine) is None:
            continue
        info = subprocess.run([engine, "info"], capture_output=True, timeout=30, check=False)
        if info.returncode == 0:
            return None
        return f"{engine} is installed but its engine does not answer ({engine} info failed)"
    return "no container engine (docker or podman) on this machine"


@pytest.mark.skipif(_container_engine_problem() is not None, reason=str(_container_engine_problem()))
def test_the_image_builds_and_reports_its_version() -> None:
    engine = "docker" if shutil.which("docker") else "podman"
    tag = "reelhouse-test:latest"
    subprocess.run([engine, "build", "-t", tag, "-f", str(CONTAINERFILE), str(ROOT)], check=True, timeout=1800)
    version = subprocess.run([engine, "run", "--rm", tag, "--version"], capture_output=True, check=True, timeout=120)
    assert version.stdout.decode().startswith("reelhouse ")
