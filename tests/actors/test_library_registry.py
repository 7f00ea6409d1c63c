"""LibraryRegistry on a real store and actor tree: creation under the asker's deadline, checks off the turn."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio

from reelhouse.actors import library_registry as registry_module
from reelhouse.actors.library_registry import CreateLibrary, GetLibraryRef, ListLibraryRefs
from reelhouse.actors.tree import ActorTree
from reelhouse.runtime import AskTimeout
from reelhouse.storage import Store
from reelhouse.storage.libraries import list_libraries

from ..database_lock import database_write_lock

CAP_S = 30


def create_request(root: Path) -> CreateLibrary:
    root.mkdir(parents=True, exist_ok=True)
    options = {"remoteAllowedHosts": [], "scansSuspended": True}
    return CreateLibrary("Films " + root.name, [str(root)], "movies", options, None, ())


async def test_a_create_whose_asker_gave_up_leaves_no_library(
    tree: ActorTree, store: Store, tmp_path: Path, database_url: str
) -> None:
    """The ask limit passing mid-create (a slow database) means nothing was created, not a 503 and a library."""
    with trio.fail_after(CAP_S):
        async with database_write_lock(database_url, "libraries"):
            with pytest.raises(AskTimeout):
                await tree.libraries.ask(create_request(tmp_path / "a"), timeout=1)
            await trio.sleep(1)  # still held: the write waits (within the busy timeout)
        await tree.libraries.ask(ListLibraryRefs(), timeout=10)  # the registry is past that creation
        assert await list_libraries(store) == []
        assert await tree.libraries.ask(ListLibraryRefs(), timeout=10) == {}


async def test_a_slow_root_walk_does_not_hold_requests_for_other_libraries(
    tree: ActorTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await tree.libraries.ask(create_request(tmp_path / "first"), timeout=10)
    walking, disk_answers = threading.Event(), threading.Event()

    def slow_walk(paths: Sequence[str]) -> bool:  # a root on a slow disk
        walking.set()
        disk_answers.wait(CAP_S)
        return False

    monkeypatch.setattr(registry_module, "roots_have_strm", slow_walk)  # as the registry calls it
    created: list[object] = []

    async def create_second() -> None:
        created.append(await tree.libraries.ask(create_request(tmp_path / "second"), timeout=CAP_S))

    with trio.fail_after(CAP_S):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(create_second)
            while not walking.is_set():
                await trio.sleep(0.01)
            ref = await tree.libraries.ask(GetLibraryRef(first.id), timeout=1)  # not behind the walk
            assert ref is not None
            disk_answers.set()
    assert len(created) == 1
