"""The last known state of live playback sessions, so that a killed server loses no play.

A live session saves itself (``playback_live``, one row per session) as the
:class:`EndedPlayback` it would make if it ended at its last report; the
transaction that records it (``play_history.record_playback``) deletes the
row.  A row still there when a server starts was left by a process that
died: :func:`sessions_left_behind` hands it back marked
:data:`~reelhouse.media.play_record.CRASH`, to be recorded like any other
end.  Recording is idempotent per session id, so a save that raced the
session's own record (a stale row) changes nothing when recorded again.

On a server of one every row found at start-up is taken as left behind.
On a cluster each row names its node (``node_id``): a node takes as left
behind only the rows of nodes no longer alive (heartbeat older than the
expiry, ``storage/cluster_nodes.py``), at start and every so often after,
so a dead node's sessions are recorded once by whichever node looks first.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from reelhouse.media.play_record import CRASH, EndedPlayback

from ._store import Store, now_ms
from .cluster_nodes import DB_NOW_MS

log = logging.getLogger(__name__)

# Skipped once the session is recorded: a save that comes after its record
# must not bring the row back.  CASTs: PostgreSQL cannot type bare parameters of a SELECT.
_SAVE = (
    "INSERT INTO playback_live (session_id, state, saved_at, node_id)"
    " SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT)"
    " WHERE NOT EXISTS (SELECT 1 FROM play_history_sessions WHERE session_id = CAST(? AS TEXT))"
    " ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at"
)
_ALL = "SELECT session_id, state FROM playback_live ORDER BY saved_at, session_id"
# A cluster (PostgreSQL): the rows of no live node.
_OF_DEAD_NODES = (
    "SELECT session_id, state FROM playback_live WHERE node_id IS NULL OR node_id NOT IN "
    f"(SELECT id FROM cluster_nodes WHERE heartbeat_at >= {DB_NOW_MS} - ?) ORDER BY saved_at, session_id"
)


async def save_live_session(store: Store, state: EndedPlayback, node_id: str | None = None) -> None:
    """Keep ``state`` as the session's last known one (kept by cluster node ``node_id``). Raises StoreError."""
    text = json.dumps(dataclasses.asdict(state))
    await store.execute(_SAVE, (state.session_id, text, now_ms(), node_id, state.session_id))


async def sessions_left_behind(store: Store, node_expiry_ms: int | None = None) -> list[EndedPlayback]:
    """Every saved session, oldest save first, as ended by a crash; unreadable rows are dropped.

    With ``node_expiry_ms`` (a cluster), only those of nodes silent for longer.
    """
    if node_expiry_ms is None:
        rows = await store.fetch_all(_ALL)
    else:
        rows = await store.fetch_all(_OF_DEAD_NODES, (node_expiry_ms,))
    found: list[EndedPlayback] = []
    for row in rows:
        state = _state(row["state"])
        if state is None or state.session_id != row["session_id"]:
            log.error("playback session %s: its saved state is unreadable; dropped", row["session_id"])
            await store.execute("DELETE FROM playback_live WHERE session_id = ?", (row["session_id"],))
            continue
        found.append(dataclasses.replace(state, end_reason=CRASH))
    return found


def _state(text: str) -> EndedPlayback | None:
    try:
        fields: dict[str, Any] = json.loads(text)
        return EndedPlayback(**fields)
    except (ValueError, TypeError):
        return None
