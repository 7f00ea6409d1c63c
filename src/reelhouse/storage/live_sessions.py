"""The last known state of live playback sessions, so that a killed server loses no play.

A live session saves itself (``playback_live``, one row per session) as the
:class:`EndedPlayback` it would make if it ended at its last report; the
transaction that records it (``play_history.record_playback``) deletes the
row.  A row still there when a server starts was left by a process that
died: :func:`sessions_left_behind` hands it back marked
:data:`~reelhouse.media.play_record.CRASH`, to be recorded like any other
end.  Recording is idempotent per session id, so a save that raced the
session's own record (a stale row) changes nothing when recorded again.

One server per database is assumed, as for scans found ``running`` at
start-up: every row found at start-up is taken as left behind.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from reelhouse.media.play_record import CRASH, EndedPlayback

from ._store import Store, now_ms

log = logging.getLogger(__name__)

# Skipped once the session is recorded: a save that comes after its record
# must not bring the row back.  CASTs: PostgreSQL cannot type bare parameters of a SELECT.
_SAVE = (
    "INSERT INTO playback_live (session_id, state, saved_at)"
    " SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT)"
    " WHERE NOT EXISTS (SELECT 1 FROM play_history_sessions WHERE session_id = CAST(? AS TEXT))"
    " ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at"
)


async def save_live_session(store: Store, state: EndedPlayback) -> None:
    """Keep ``state`` as the session's last known one. Raises StoreError."""
    text = json.dumps(dataclasses.asdict(state))
    await store.execute(_SAVE, (state.session_id, text, now_ms(), state.session_id))


async def sessions_left_behind(store: Store) -> list[EndedPlayback]:
    """Every saved session, oldest save first, as ended by a crash; unreadable rows are dropped."""
    rows = await store.fetch_all("SELECT session_id, state FROM playback_live ORDER BY saved_at, session_id")
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
