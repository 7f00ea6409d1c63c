"""The realtime monitor end to end: files added on disk appear without a manual scan."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from ..media_factory import MediaFactory
from .conftest import RunningServer, start_server
from .scanning import create_library, scan_status, wait_for_state


@pytest.fixture
async def watching_server(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> RunningServer:
    return await start_server(nursery, database_url, tmp_path / "data", scan={"monitor_debounce_seconds": 0.2})


async def test_a_new_file_is_picked_up_by_the_monitor(watching_server: RunningServer, tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "films"
    media.video(root / "Heat (1995)" / "Heat (1995).mkv")
    async with watching_server.client() as client:
        with trio.fail_after(60):
            library = await create_library(client, "Films", [root])
            status = await wait_for_state(client, library["id"])
            assert status["watch"] == "watching"
            media.video(root / "Alien (1979)" / "Alien (1979).mkv")
            while (await client.get(f"/libraries/{library['id']}")).json().get("itemCount") != 2:
                await trio.sleep(0.1)
            status = await wait_for_state(client, library["id"])
    assert status["state"] == "completed"


async def test_monitoring_is_disabled_when_turned_off(watching_server: RunningServer, tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "films"
    media.video(root / "Heat (1995).mkv")
    async with watching_server.client() as client:
        with trio.fail_after(60):
            library = await create_library(client, "Films", [root], options={"remoteAllowedHosts": [], "realtimeMonitor": False})
            await wait_for_state(client, library["id"])
            status = await scan_status(client, library["id"])
            assert library["options"]["realtimeMonitor"] is False
    assert status["watch"] == "disabled"


async def test_cloud_storage_turns_monitoring_off_by_default(watching_server: RunningServer, tmp_path: Path, media: MediaFactory) -> None:
    root = tmp_path / "cloud"
    media.video(root / "Heat (1995).mkv")
    async with watching_server.client() as client:
        with trio.fail_after(60):
            library = await create_library(client, "Cloud", [root], options={"remoteAllowedHosts": [], "storage": "cloud"})
            await wait_for_state(client, library["id"])
            status = await scan_status(client, library["id"])
    assert library["options"]["realtimeMonitor"] is False
    assert library["options"]["effectiveReadConcurrency"] == 2
    assert status["watch"] == "disabled"
