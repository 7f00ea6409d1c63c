"""GET /system/status and /system/update over real HTTP.

The tests that only read share a server per backend; the others start their own.
"""

from __future__ import annotations

import platform
from pathlib import Path

import httpx
import trio

import reelhouse

from .conftest import RunningServer, start_server
from .shared_server import backend, client, server, shared_server  # noqa: F401  (fixtures)


def _not_checked_yet(body: dict) -> bool:
    return any(c.get("detail") == "not checked yet" for c in body.get("checks", []))


async def test_status_reports_every_check_and_is_ok(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> None:
    running = await start_server(nursery, database_url, tmp_path / "data", scan={"health_probe_at_start": True})
    async with running.client() as client:
        with trio.fail_after(20):
            # A loaded machine may start the first probe worker after the server answers.
            while _not_checked_yet((response := await client.get("/system/status")).json()):
                await trio.sleep(0.1)
    running.shutdown.set()
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["version"] == reelhouse.__version__ != "dev"  # pyproject.toml's, as installed
    assert body["goVersion"] == f"python{platform.python_version()}"
    for field in ("uptimeSeconds", "startedAt", "serverId", "serverName", "os", "arch"):
        assert field in body
    assert body["startedAt"].endswith("Z")
    checks = {c["name"]: c for c in body["checks"]}
    assert set(checks) == {"database", "mediaProbe", "mediaRoot"}
    assert all(c["status"] == "ok" and isinstance(c["latencyMs"], int) for c in checks.values())
    assert checks["mediaProbe"]["detail"].startswith("PyAV ")  # the library versions
    caches = {c["name"]: c for c in body["caches"]}
    assert caches["images"]["status"] == "ok"
    assert caches["images"]["clearable"] is True  # renditions, rendered again on request (docs/upkeep.md)


async def test_status_is_degraded_when_the_probe_workers_cannot_start(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    running = await start_server(
        nursery, database_url, tmp_path / "data",
        scan={"probe_worker_command": [str(tmp_path / "no-worker")], "health_probe_at_start": True},
    )
    try:
        async with running.client() as client:
            with trio.fail_after(20):
                body = (await client.get("/system/status")).json()
    finally:
        running.shutdown.set()
    assert body["status"] == "degraded"
    probe = next(c for c in body["checks"] if c["name"] == "mediaProbe")
    assert probe["status"] == "error"
    assert "Traceback" not in probe.get("detail", "") and "no-worker" not in probe.get("detail", "")


async def test_server_id_is_stable_across_restarts(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    ids = []
    for _ in range(2):
        running = await start_server(nursery, database_url, tmp_path / "data")
        async with running.client() as client:
            with trio.fail_after(20):
                ids.append((await client.get("/system/status")).json()["serverId"])
        running.shutdown.set()
    assert ids[0] == ids[1]


async def test_update_status_is_off_by_default_and_names_the_installed_version(client: httpx.AsyncClient) -> None:
    with trio.fail_after(20):
        response = await client.get("/system/update")
    assert response.status_code == 200
    assert response.json() == {"current": reelhouse.__version__, "enabled": False, "available": False}


async def test_openapi_document_is_served(server: RunningServer) -> None:
    async with server.client(key="") as anonymous:
        with trio.fail_after(20):
            response = await anonymous.get("/openapi.json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert "/api/v1/system/status" in paths
