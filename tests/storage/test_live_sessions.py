"""Live playback sessions' last known states: kept, handed back after a crash, gone once recorded (both backends)."""

from __future__ import annotations

import dataclasses

import pytest
import trio

from reelhouse.storage import Store
from reelhouse.storage.cluster_nodes import heartbeat
from reelhouse.storage.live_sessions import save_live_session, sessions_left_behind
from reelhouse.storage.play_history import record_playback

from .play_samples import ended

LIMIT_S = 20


async def left_ids(store: Store) -> list[str]:
    return [row["session_id"] for row in await store.fetch_all("SELECT session_id FROM playback_live")]


async def test_the_last_saved_state_comes_back_marked_as_ended_by_a_crash(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        first = ended(furthest_sec=300.0, end_reason="crash")
        await save_live_session(store, first)
        later = dataclasses.replace(first, furthest_sec=1500.0, watched_sec=1200.0, ended_at_ms=first.ended_at_ms + 9)
        await save_live_session(store, later)
        other = ended(item_id="item-2")
        await save_live_session(store, other)
        found = await sessions_left_behind(store)
    assert found == [later, dataclasses.replace(other, end_reason="crash")]


async def test_recording_a_session_forgets_its_state_and_a_late_save_does_not_bring_it_back(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        session = ended()
        await save_live_session(store, session)
        await record_playback(store, session)
        assert await left_ids(store) == []
        await save_live_session(store, session)  # a save that raced the record
        assert await left_ids(store) == []


async def test_a_stale_state_of_a_recorded_session_is_forgotten_when_recorded_again(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        session = ended()
        record_id = await record_playback(store, session)
        await store.execute("INSERT INTO playback_live (session_id, state, saved_at) VALUES (?, '{}', 0)",
                            (session.session_id,))
        again = await record_playback(store, dataclasses.replace(session, end_reason="crash"))
        records = await store.fetch_all("SELECT sessions, end_reason FROM play_history")
        assert again == record_id and await left_ids(store) == []
    assert [tuple(row) for row in records] == [(1, "stopped")]


async def test_an_unreadable_state_is_dropped_not_recorded(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await store.execute("INSERT INTO playback_live (session_id, state, saved_at) VALUES ('s9', '{\"x\": 1}', 0)")
        assert await sessions_left_behind(store) == []
        assert await left_ids(store) == []


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_on_a_cluster_only_the_states_of_dead_nodes_are_left_behind(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        await heartbeat(store, "alive", "http://a")
        await heartbeat(store, "dead", "http://d")
        await store.execute("UPDATE cluster_nodes SET heartbeat_at = 0 WHERE id = 'dead'")
        live, gone, single = ended(), ended(item_id="item-2"), ended(item_id="item-3")
        await save_live_session(store, live, node_id="alive")
        await save_live_session(store, gone, node_id="dead")
        await save_live_session(store, single)  # saved by a server of one (no node)
        found = await sessions_left_behind(store, node_expiry_ms=15_000)
    assert {state.session_id for state in found} == {gone.session_id, single.session_id}
    assert {state.end_reason for state in found} == {"crash"}
