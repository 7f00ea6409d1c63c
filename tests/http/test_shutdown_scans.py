"""A running scan at shutdown: recorded ``cancelled``, end to end, on both backends."""

from __future__ import annotations

from pathlib import Path

import trio

from reelhouse.storage import open_store
from reelhouse.storage.scans import latest_scan_run

from .conftest import start_server
from .scanning import create_library, hanging_probe_worker, wait_for_phase

CAP_S = 60


async def test_a_scan_running_at_shutdown_is_recorded_cancelled(database_url: str, tmp_path: Path) -> None:
    root = tmp_path / "films"
    (root / "Heat (1995)").mkdir(parents=True)
    (root / "Heat (1995)" / "Heat (1995).mkv").write_bytes(b"\x00" * 64)
    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as nursery:
            server = await start_server(
                nursery, database_url, tmp_path / "data",
                scan={"probe_timeout_seconds": 120, "probe_worker_command": hanging_probe_worker()},
            )
            async with server.client() as client:
                library = await create_library(
                    client, "Films", [root], options={"remoteAllowedHosts": [], "mediaInfoTiming": "scan"}
                )
                await wait_for_phase(client, library["id"], "write")  # probing: ffprobe hangs
            server.shutdown.set()
        # the server has returned
    async with open_store(database_url) as store:
        run = await latest_scan_run(store, library["id"])
    assert run is not None and run.state == "cancelled", run
