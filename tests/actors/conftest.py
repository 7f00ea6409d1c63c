"""A real actor tree on the ``store`` fixture (both backends)."""

from __future__ import annotations

import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from reelhouse.actors.tree import ActorTree, open_actor_tree
from reelhouse.config import load_settings
from reelhouse.storage import Store

TREE_STOP_S = 5


def hanging_ffprobe(directory: Path) -> str:
    """An ffprobe stand-in that never answers: a scan that probes keeps running."""
    script = directory / "hanging-ffprobe"
    script.write_text("#!/bin/sh\nexec sleep 120\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.fixture
async def tree(store: Store, tmp_path: Path) -> AsyncIterator[ActorTree]:
    """The server's actor tree; its ffprobe hangs, so scans that probe keep running."""
    flags = {
        "data_dir": str(tmp_path / "data"),
        "ffprobe_path": hanging_ffprobe(tmp_path),
        "scan": {"probe_timeout_seconds": 120, "progress_interval_seconds": 0.05},
    }
    async with open_actor_tree(load_settings(flags=flags, environ={}), store, "test") as actors:
        yield actors
        with trio.fail_after(TREE_STOP_S * 2):
            await actors.stop(deadline=trio.current_time() + TREE_STOP_S)
