"""The watch history's writes: a PlayRecord for every ended session, merged when it continues one.

A session merges into the member's latest record of the same item on the
same device when it started within ``MERGE_WINDOW_SECONDS`` of that record's
end (symmetrically: the gap between the two, either way round, is at most
the window, so sessions recorded out of order, as concurrent ends are,
merge alike): ``sessions`` + 1, ``at`` the earliest start,
``endedAt`` the latest end, ``watchedSec`` summed, ``furthest``/``percent``
the maximum, ``finished`` once either reached 90 %, the duration kept when
known, ``end_reason`` the newest session's.  Otherwise it becomes a new
record.  The same transaction deletes the session's last known state
(``storage/live_sessions.py``).

Atomic on both backends: "merge, else insert" is one transaction of plain
statements (no read-then-write in Python).  The merge sets the record's
``last_session_id``; the insert is skipped on a conflict with it.  Every
recorded session id goes into ``play_history_sessions`` (primary key): a
session recorded twice rolls back whole and the first record's id comes
back.  On PostgreSQL a transaction-scoped advisory lock on (member, item,
device) serializes concurrent ends of one key (READ COMMITTED would let two
of them both insert); SQLite's single writer serializes them already.
"""

from __future__ import annotations

import hashlib
import json

from reelhouse.media.play_record import (
    FINISHED_PERCENT,
    MERGE_WINDOW_SECONDS,
    EndedPlayback,
    is_finished,
    percent_watched,
)

from ._store import IntegrityError, Statement, Store, StoreError

_MERGE = """
UPDATE play_history SET
    sessions = sessions + 1,
    started_at = CASE WHEN started_at < ? THEN started_at ELSE ? END,
    ended_at = CASE WHEN ended_at > ? THEN ended_at ELSE ? END,
    duration_sec = CASE WHEN duration_sec > 0 THEN duration_sec ELSE ? END,
    watched_sec = watched_sec + ?,
    furthest_sec = CASE WHEN furthest_sec > ? THEN furthest_sec ELSE ? END,
    percent = CASE WHEN percent > ? THEN percent ELSE ? END,
    finished = CASE WHEN percent >= ? THEN 1 ELSE ? END,
    user_name = ?,
    device_name = ?,
    delivery = ?,
    ip = COALESCE(?, ip),
    end_reason = ?,
    last_session_id = ?
WHERE id = (
    SELECT id FROM play_history
    WHERE user_id = ? AND item_id = ? AND device_id = ? AND ended_at >= ? AND started_at <= ?
    ORDER BY ended_at DESC, id DESC LIMIT 1
)
RETURNING id
"""

_INSERT = """
INSERT INTO play_history (
    item_id, user_id, user_name, device_id, device_name, player, player_key, kind,
    title, title_key, episode, series_id, season_id, started_at, ended_at,
    duration_sec, watched_sec, furthest_sec, percent, finished, sessions, delivery, ip, end_reason, last_session_id
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
ON CONFLICT (last_session_id) DO NOTHING
RETURNING id
"""

_REMEMBER_SESSION = (
    "INSERT INTO play_history_sessions (session_id, record_id)"
    " SELECT CAST(? AS TEXT), id FROM play_history WHERE last_session_id = ?"
)
# The session is recorded: its last known state (storage/live_sessions.py) is no longer needed.
FORGET_LIVE_SESSION = "DELETE FROM playback_live WHERE session_id = ?"


async def record_playback(store: Store, ended: EndedPlayback) -> str:
    """Write ``ended`` as a PlayRecord, or merge it into the member's previous
    record of the same item on the same device when it started within
    ``MERGE_WINDOW_SECONDS`` of that record's end; return the record's id.

    Recording the same ``session_id`` again changes nothing and returns the
    record it went into.  Raises StoreError when the database fails.
    """
    statements = [*_lock(store, ended), _merge(ended), _insert(ended),
                  Statement(_REMEMBER_SESSION, (ended.session_id, ended.session_id)),
                  Statement(FORGET_LIVE_SESSION, (ended.session_id,))]
    try:
        results = await store.transaction(statements)
    except IntegrityError:
        record_id = await _recorded_record(store, ended.session_id)
        await store.execute(FORGET_LIVE_SESSION, (ended.session_id,))
        return record_id
    merged, inserted = results[-4], results[-3]
    return str((merged.rows or inserted.rows)[0]["id"])


def _lock(store: Store, ended: EndedPlayback) -> list[Statement]:
    if store.backend != "postgresql":
        return []
    key = json.dumps(["play_history", ended.member_id, ended.item_id, ended.device_id]).encode()
    lock_id = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big", signed=True)
    return [Statement("SELECT pg_advisory_xact_lock(?)", (lock_id,))]


def _merge(ended: EndedPlayback) -> Statement:
    percent = percent_watched(ended.furthest_sec, ended.duration_sec)
    start, end = int(ended.started_at_ms), int(ended.ended_at_ms)
    furthest = float(ended.furthest_sec)
    window = MERGE_WINDOW_SECONDS * 1000
    return Statement(_MERGE, (
        start, start,
        end, end,
        float(ended.duration_sec),
        float(ended.watched_sec),
        furthest, furthest,
        percent, percent,
        FINISHED_PERCENT, int(is_finished(percent)),
        ended.member_name, ended.device_name, ended.delivery, ended.ip, ended.end_reason, ended.session_id,
        ended.member_id, ended.item_id, ended.device_id, start - window, end + window,
    ))


def _insert(ended: EndedPlayback) -> Statement:
    percent = percent_watched(ended.furthest_sec, ended.duration_sec)
    return Statement(_INSERT, (
        ended.item_id, ended.member_id, ended.member_name, ended.device_id, ended.device_name,
        ended.player, ended.player.casefold(), ended.kind,
        ended.title, None if ended.title is None else ended.title.casefold(), ended.episode,
        ended.series_id, ended.season_id, int(ended.started_at_ms), int(ended.ended_at_ms),
        float(ended.duration_sec), float(ended.watched_sec), float(ended.furthest_sec), percent,
        int(is_finished(percent)), ended.delivery, ended.ip, ended.end_reason, ended.session_id,
    ))


async def _recorded_record(store: Store, session_id: str) -> str:
    record_id = await store.fetch_value(
        "SELECT record_id FROM play_history_sessions WHERE session_id = ?", (session_id,)
    )
    if record_id is None:  # the conflict was not this session's: a real failure
        raise StoreError(f"recording playback session {session_id!r} failed")
    return str(record_id)
