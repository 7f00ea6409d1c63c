"""How long a member has played since a moment: the daily limit of parental controls.

Counted from the play history (``watched_sec``, pauses left out) of
records started since the given moment, across every device.  A session
still playing is not in the history until it ends: its play time so far
comes from its last saved state (``playback_live``, saved after reports,
at most every ``playback.save_interval_seconds``).
"""

from __future__ import annotations

import json

from ._store import Store


async def watched_seconds_since(store: Store, user_id: str, since_ms: int) -> float:
    row = await store.fetch_one(
        "SELECT COALESCE(SUM(watched_sec), 0) AS watched FROM play_history WHERE user_id = ? AND started_at >= ?",
        (user_id, since_ms),
    )
    return float(row["watched"]) if row is not None else 0.0


async def live_watched_seconds_since(store: Store, user_id: str, since_ms: int) -> float:
    """Play time of the member's sessions still playing that started since ``since_ms``, as last saved."""
    rows = await store.fetch_all("SELECT state FROM playback_live")
    total = 0.0
    for row in rows:
        try:
            state = json.loads(row["state"])
            if state.get("member_id") == user_id and int(state.get("started_at_ms") or 0) >= since_ms:
                total += float(state.get("watched_sec") or 0.0)
        except (ValueError, TypeError, AttributeError):
            continue  # an unreadable row counts nothing (it is dropped at the next start)
    return total
