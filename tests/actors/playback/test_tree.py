"""The PlaybackRegistry as the server's actor tree starts it: sessions end into the store's history."""

from __future__ import annotations

from pathlib import Path

import trio

from reelhouse.actors.playback.messages import EndSession, StartSession
from reelhouse.actors.tree import ActorTree, open_actor_tree
from reelhouse.config import load_settings
from reelhouse.storage import Store

from .test_registry import start_of

LIMIT_S = 20


async def test_an_ended_session_is_a_play_record_in_the_store(tree: ActorTree, store: Store) -> None:
    assert tree.playback is not None
    with trio.fail_after(LIMIT_S):
        session_id = await tree.playback.ask(StartSession(start_of()))
        await tree.playback.ask(EndSession(str(session_id), "dev1", 5400.0, None))
        rows = await store.fetch_all("SELECT item_id, user_name, device_name, percent, finished FROM play_history")
    assert [tuple(row) for row in rows] == [("movie1", "Ann", "Living room", 90.0, 1)]


async def test_stopping_the_tree_records_the_live_sessions(store: Store, tmp_path: Path) -> None:
    settings = load_settings(flags={"data_dir": str(tmp_path / "data")}, environ={})
    with trio.fail_after(LIMIT_S):
        async with open_actor_tree(settings, store, "test") as actors:
            assert actors.playback is not None
            for device in ("dev1", "dev2"):
                await actors.playback.ask(StartSession(start_of(device=device)))
            await actors.stop(deadline=trio.current_time() + 5)
        count = await store.fetch_value("SELECT COUNT(*) FROM play_history")
    assert count == 2
