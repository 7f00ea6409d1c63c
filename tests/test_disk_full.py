"""A scan that fills the disk holding the database: its failure says so.

The server runs in a mount namespace of its own (``unshare --user
--map-root-user --mount``, no privilege needed) with its data folder on a
small tmpfs, so SQLite meets a real full disk (SQLITE_FULL) in the middle
of a scan.  Skips where user namespaces are not allowed.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from .http.scanning import FINAL_STATES
from .server_process import ServerProcess
from .tls import shared_tls_context

CAP_S = 120
DISK_BYTES = 1 << 20  # the migrated database is about 540 KiB: the rest fills during the scan
FILMS = 3000
FULL = "The scan failed: the disk holding the database is full."


def _namespace_problem() -> str | None:
    if shutil.which("unshare") is None:
        return "unshare(1) is not installed"
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", "mount -t tmpfs tmpfs /mnt"],
        capture_output=True, timeout=30, check=False,
    )  # fmt: skip
    if probe.returncode != 0:
        return f"no user and mount namespaces here: {probe.stderr.decode(errors='replace').strip()}"
    return None


def _on_small_disk(data_dir: Path, seed: Path) -> list[str]:
    """Run the server (the arguments that follow) with ``data_dir`` a tmpfs of DISK_BYTES holding ``seed``."""
    script = (
        f"mount -t tmpfs -o size={DISK_BYTES} tmpfs {shlex.quote(str(data_dir))}"
        f' && cp {shlex.quote(str(seed))} {shlex.quote(str(data_dir))}/ && exec "$@"'
    )
    return ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh"]


async def test_a_scan_that_fills_the_disk_fails_saying_the_disk_is_full(nursery: trio.Nursery, tmp_path: Path) -> None:
    problem = _namespace_problem()
    if problem is not None:
        pytest.skip(problem)
    seed, data_dir, root = tmp_path / "seed" / "reelhouse.db", tmp_path / "data", tmp_path / "films"
    seed.parent.mkdir()
    data_dir.mkdir()
    async with open_store(f"sqlite:///{seed}") as store:
        await migrate(store)
        _record, key = await create_api_key(store, "tests")
    for n in range(FILMS):  # long names: every row is big
        title = f"A Film With A Rather Long Title Number {n} To Fill Pages ({1900 + n % 100})"
        (root / title).mkdir(parents=True)
        (root / title / f"{title}.mkv").write_bytes(b"\x00" * 16)
    server = ServerProcess(data_dir, f"sqlite:///{data_dir / 'reelhouse.db'}", prefix=_on_small_disk(data_dir, seed))
    try:
        base = await server.start(nursery)
        async with httpx.AsyncClient(verify=shared_tls_context(), base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {key}"}) as client:
            with trio.fail_after(CAP_S):
                body = {"name": "Films", "paths": [str(root)], "collectionType": "movies",
                        "options": {"remoteAllowedHosts": [], "mediaInfoTiming": "background"}}
                created = await client.post("/libraries", json=body)
                assert created.status_code == 201, created.text
                while True:
                    statuses = (await client.get("/scans/status")).json()
                    status = next(s for s in statuses if s["libraryId"] == created.json()["id"])
                    if status["state"] in FINAL_STATES:
                        break
                    await trio.sleep(0.05)
    finally:
        server.kill()
    assert status["state"] == "failed", status
    assert status["message"] == FULL, server.log.decode(errors="replace")[-3000:]
