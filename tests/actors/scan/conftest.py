"""Helpers for scan tests: real directory trees and a library to scan them into.

``tree`` builds files under ``tmp_path/lib`` (``tree.add("A (2001)/A (2001).mkv")``),
``tree.age()`` backdates every directory and file so quick scans see them as
unchanged (a directory touched within the last second is always listed again).
``library`` is a scanner bound to the ``store`` fixture: ``await library.scan(mode=...)``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from reelhouse.actors.scan import ScanDeps, ScanOutcome, ScanPlan, ScanProgress, run_scan
from reelhouse.media.library_options import LibraryOptions
from reelhouse.storage import Store

LIBRARY_ID = "lib1"
SCAN_LIMIT_S = 20
AGE_S = 60


class Tree:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def add(self, rel: str, data: bytes | str = b"\x00" * 64) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()

    def path(self, rel: str = "") -> str:
        return str(self.root / rel) if rel else str(self.root)

    def age(self, seconds: float = AGE_S) -> None:
        """Backdate everything (directories last: writing a file touches them)."""
        stamp = time.time() - seconds
        for dirpath, _dirnames, filenames in os.walk(self.root):
            for name in filenames:
                os.utime(os.path.join(dirpath, name), (stamp, stamp), follow_symlinks=False)
        for dirpath, _, _ in sorted(os.walk(self.root), key=lambda w: -len(w[0])):
            os.utime(dirpath, (stamp, stamp))


@dataclass
class Library:
    store: Store
    roots: tuple[str, ...]
    kind: str = "movies"
    options: LibraryOptions = field(default_factory=lambda: LibraryOptions(media_info_timing="playback"))
    deps: ScanDeps = field(default_factory=lambda: ScanDeps(trio.CapacityLimiter(2)))
    progress: ScanProgress = field(default_factory=ScanProgress)

    async def scan(self, mode: str = "full", **plan: Any) -> ScanOutcome:
        options = plan.pop("options", self.options)
        self.progress = ScanProgress()
        with trio.fail_after(SCAN_LIMIT_S):
            return await run_scan(
                ScanPlan(LIBRARY_ID, self.kind, plan.pop("roots", self.roots), mode, options, **plan),  # type: ignore[arg-type]
                self.store,
                self.progress,
                self.deps,
            )

    async def items(self) -> dict[str, Mapping[str, Any]]:
        """Items by path relative to the first root (folders too; virtual series by name)."""
        rows = await self.store.fetch_all("SELECT * FROM items WHERE library_id = ?", (LIBRARY_ID,))
        prefix = self.roots[0].rstrip("/") + "/"
        return {
            (row["path"].removeprefix(prefix) if row["path"] else f"<{row['name']}>"): dict(row)
            for row in rows
        }

    async def errors(self) -> list[tuple[str, str]]:
        rows = await self.store.fetch_all("SELECT path, error FROM scan_errors WHERE library_id = ? ORDER BY id", (LIBRARY_ID,))
        return [(row["path"], row["error"]) for row in rows]


async def create_library(store: Store, library_id: str = LIBRARY_ID, kind: str = "movies") -> None:
    await store.execute(
        "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES (?, ?, ?, 0, 0)",
        (library_id, library_id, kind),
    )


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(tmp_path / "lib")


@pytest.fixture
async def library(store: Store, tree: Tree) -> Library:
    await create_library(store)
    return Library(store, (tree.path(),))
