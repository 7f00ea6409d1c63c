"""Helpers for API tests that scan real folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import trio

from ..actors.scan.probe_workers import worker_command

FINAL_STATES = ("completed", "failed", "cancelled")
SCAN_TIMEOUT_S = 60.0


async def create_library(client: httpx.AsyncClient, name: str, paths: list[Path], **fields: Any) -> dict[str, Any]:
    body = {"name": name, "paths": [str(p) for p in paths], "collectionType": "movies", **fields}
    response = await client.post("/libraries", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def scan_status(client: httpx.AsyncClient, library_id: str) -> dict[str, Any]:
    response = await client.get("/scans/status")
    assert response.status_code == 200, response.text
    return next(s for s in response.json() if s["libraryId"] == library_id)


async def wait_for_state(client: httpx.AsyncClient, library_id: str, states: tuple[str, ...] = FINAL_STATES) -> dict[str, Any]:
    with trio.fail_after(SCAN_TIMEOUT_S):
        while True:
            status = await scan_status(client, library_id)
            if status["state"] in states:
                return status
            await trio.sleep(0.05)


async def wait_for_phase(client: httpx.AsyncClient, library_id: str, phase: str) -> dict[str, Any]:
    with trio.fail_after(SCAN_TIMEOUT_S):
        while True:
            status = await scan_status(client, library_id)
            if status.get("phase") == phase and status["state"] == "running":
                return status
            await trio.sleep(0.05)


def hanging_probe_worker() -> tuple[str, ...]:
    """A probe worker command that never answers: scans that probe stay running."""
    return worker_command(hang_on="/")
