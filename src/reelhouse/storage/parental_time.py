"""How long a member has played since a moment: the daily limit of parental controls.

Counted from the play history (``watched_sec``, pauses left out) of
records started since the given moment, across every device.  A session
still playing is not in the history until it ends.
"""

from __future__ import annotations

from ._store import Store


async def watched_seconds_since(store: Store, user_id: str, since_ms: int) -> float:
    row = await store.fetch_one(
        "SELECT COALESCE(SUM(watched_sec), 0) AS watched FROM play_history WHERE user_id = ? AND started_at >= ?",
        (user_id, since_ms),
    )
    return float(row["watched"]) if row is not None else 0.0
