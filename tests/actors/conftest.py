"""A real actor tree on the ``store`` fixture (both backends)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.actors.tree import ActorTree, open_actor_tree
from reelhouse.config import load_settings
from reelhouse.storage import Store

from .scan.probe_workers import worker_command

TREE_STOP_S = 5


@pytest.fixture
async def tree(store: Store, tmp_path: Path) -> AsyncIterator[ActorTree]:
    """The server's actor tree; its probe workers hang, so scans that probe keep running."""
    flags = {
        "data_dir": str(tmp_path / "data"),
        "scan": {
            "probe_timeout_seconds": 120,
            "progress_interval_seconds": 0.05,
            "probe_worker_command": worker_command(hang_on="/"),
            "health_probe_at_start": False,  # its sample would hang in these workers, holding the start 2 s
        },
    }
    async with open_actor_tree(load_settings(flags=flags, environ={}), store, "test") as actors:
        yield actors
        with trio.fail_after(TREE_STOP_S * 2):
            await actors.stop(deadline=trio.current_time() + TREE_STOP_S)
