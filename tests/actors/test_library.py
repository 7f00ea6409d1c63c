"""LibraryActor in a real actor tree: cancels routed down the tree, final reports kept across a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from reelhouse.actors.jobs import ListJobs, RouteCancel
from reelhouse.actors.library import StopScan
from reelhouse.actors.library_registry import CreateLibrary, GetLibraryRef
from reelhouse.actors.tree import ActorTree
from reelhouse.runtime import ActorRef

CAP_S = 30


async def scanning_library(tree: ActorTree, tmp_path: Path) -> tuple[str, ActorRef]:
    """A library whose first scan is probing (ffprobe hangs), and its actor."""
    root = tmp_path / "films"
    (root / "Heat (1995)").mkdir(parents=True)
    (root / "Heat (1995)" / "Heat (1995).mkv").write_bytes(b"\x00" * 64)
    options = {"remoteAllowedHosts": [], "mediaInfoTiming": "scan"}
    record = await tree.libraries.ask(CreateLibrary("Films", [str(root)], "movies", options, False, ()), timeout=10)
    ref = await tree.libraries.ask(GetLibraryRef(record.id), timeout=10)
    await job_in(tree, f"scan:{record.id}", lambda job: job.get("phase") == "write")
    return record.id, ref


async def job_in(tree: ActorTree, job_id: str, wanted: Any) -> dict[str, Any]:
    with trio.fail_after(CAP_S):
        while True:
            for job in await tree.jobs.ask(ListJobs(), timeout=10):
                if job["id"] == job_id and wanted(job):
                    return job
            await trio.sleep(0.05)


async def test_a_final_report_reaching_a_restarted_library_is_kept(tree: ActorTree, tmp_path: Path) -> None:
    """The library crashes mid-scan; its scan ends (cancelled) and reports to the
    restarted instance, which must not drop it: the job ends, never stays running."""
    library_id, library = await scanning_library(tree, tmp_path)
    await library.tell(object())  # a message it does not understand: a crash, then a restart
    job = await job_in(tree, f"scan:{library_id}", lambda job: job["state"] != "running")
    assert job["state"] == "cancelled"


async def test_a_job_cancel_is_routed_down_the_tree_to_the_library(tree: ActorTree, tmp_path: Path) -> None:
    library_id, library = await scanning_library(tree, tmp_path)
    route = await tree.jobs.ask(RouteCancel(f"scan:{library_id}"), timeout=10)
    assert route.owner is library and route.cancel == StopScan()
    await route.owner.ask(route.cancel, timeout=10)
    job = await job_in(tree, f"scan:{library_id}", lambda job: job["state"] != "running")
    assert job["state"] in ("cancelling", "cancelled")
