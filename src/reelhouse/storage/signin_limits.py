"""Failed sign-ins, kept in the database: the reference's limits and the PIN lock.

Limits (reference, Limits): 5 failures per minute for one name from one
address, 30 per 10 minutes for one address; past a limit every attempt,
right or wrong, is refused with the seconds until the oldest failure that
keeps the limit reached leaves its window.  A PIN lock: 20 PIN failures
within 24 hours, cleared by a password sign-in or a PIN reset.

The failures are rows, not counters in memory, so a restart is no way
around a limit, and neither are parallel guesses nor guesses spread over
the nodes of a cluster: an attempt is first *claimed* (:func:`claim_attempt`:
counted as a failure, in one transaction that checks the limits, one
address at a time: PostgreSQL's advisory lock, SQLite's one writer), then
settled once verified (:func:`settle_failure` keeps it as the failure it
was, :func:`release_attempt` drops it).  Only the sign-in route calls this module: an API-key
request never touches it.  Every function takes ``now`` (epoch ms) so the
windows are tested with a fake clock.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ._store import Statement, Store

NAME_LIMIT = 5
NAME_WINDOW_MS = 60_000
ADDRESS_LIMIT = 30
ADDRESS_WINDOW_MS = 600_000
PIN_LOCK_FAILURES = 20
PIN_WINDOW_MS = 86_400_000
KEEP_MS = PIN_WINDOW_MS  # the longest window: older rows mean nothing

PIN = "pin"
PASSWORD = "password"
NAME = "name"
_PIN_CLEARED = "pinCleared"  # a PIN failure that no longer counts toward the lock

# Failures per member in the PIN window (parameter: the window's start, exclusive).
PIN_FAILURES_BY_USER_SQL = (
    "SELECT user_id, COUNT(*) AS failures FROM signin_failures"
    f" WHERE kind = '{PIN}' AND at > ? AND user_id IS NOT NULL GROUP BY user_id"
)


@dataclass(frozen=True, slots=True)
class Failure:
    name: str  # as typed; only its hash is kept
    remote_addr: str
    kind: str  # PIN, PASSWORD or NAME
    user_id: str | None = None


async def retry_after_seconds(store: Store, name: str, remote_addr: str, now: int) -> int | None:
    """Whole seconds until a sign-in for ``name`` from ``remote_addr`` may be tried again; None = now."""
    by_name, by_address = await store.fetch_each(
        [
            (
                "SELECT at FROM signin_failures WHERE name_key = ? AND remote_addr = ? AND at > ?"
                " ORDER BY at DESC LIMIT ?",
                (name_key(name), remote_addr, now - NAME_WINDOW_MS, NAME_LIMIT),
            ),
            (
                "SELECT at FROM signin_failures WHERE remote_addr = ? AND at > ? ORDER BY at DESC LIMIT ?",
                (remote_addr, now - ADDRESS_WINDOW_MS, ADDRESS_LIMIT),
            ),
        ]
    )
    waits = [
        _wait(rows, limit, window, now)
        for rows, limit, window in (
            (by_name, NAME_LIMIT, NAME_WINDOW_MS), (by_address, ADDRESS_LIMIT, ADDRESS_WINDOW_MS)
        )
    ]
    longest = max((w for w in waits if w is not None), default=None)
    return longest


def _wait(newest_first: list, limit: int, window_ms: int, now: int) -> int | None:
    if len(newest_first) < limit:
        return None
    # The limit-th newest failure is the one whose expiry brings the count below the limit.
    expires = int(newest_first[limit - 1]["at"]) + window_ms
    return max(1, -(-(expires - now) // 1000))


PENDING = "pending"  # a claimed attempt not yet verified: it counts toward the rate limits

_CLAIM = (
    "INSERT INTO signin_failures (at, name_key, remote_addr, kind, user_id) SELECT ?, ?, ?, ?, NULL"
    " WHERE (SELECT COUNT(*) FROM signin_failures WHERE name_key = ? AND remote_addr = ? AND at > ?) < ?"
    " AND (SELECT COUNT(*) FROM signin_failures WHERE remote_addr = ? AND at > ?) < ?"
    " RETURNING id"
)


async def claim_attempt(store: Store, name: str, remote_addr: str, now: int) -> int | None:
    """Count an attempt as a failure before it is verified, if the limits allow one more; its row
    id, None when past a limit.  Attempts from one address are claimed one after another, on
    every node, so parallel or spread guesses get no more tries than the same guesses in a row."""
    key = name_key(name)
    claim = Statement(_CLAIM, (now, key, remote_addr, PENDING, key, remote_addr, now - NAME_WINDOW_MS, NAME_LIMIT,
                               remote_addr, now - ADDRESS_WINDOW_MS, ADDRESS_LIMIT))  # fmt: skip
    statements = [Statement("DELETE FROM signin_failures WHERE at <= ?", (now - KEEP_MS,)), claim]
    if store.backend == "postgresql":  # SQLite's one writer already runs transactions one at a time
        statements.insert(0, Statement("SELECT pg_advisory_xact_lock(hashtext(?))", (f"signin:{remote_addr}",)))
    results = await store.transaction(statements)
    rows = results[-1].rows
    return int(rows[0]["id"]) if rows else None


async def settle_failure(store: Store, attempt_id: int, kind: str, user_id: str | None) -> None:
    """The claimed attempt failed: it stays, as a failure of ``kind`` (PIN failures count toward the lock)."""
    await store.execute("UPDATE signin_failures SET kind = ?, user_id = ? WHERE id = ?", (kind, user_id, attempt_id))


async def release_attempt(store: Store, attempt_id: int) -> None:
    """The claimed attempt succeeded, or failed in a way that does not count: it goes."""
    await store.execute("DELETE FROM signin_failures WHERE id = ?", (attempt_id,))


async def record_failure(store: Store, failure: Failure, now: int) -> None:
    """Keep ``failure``; rows past the longest window are dropped in the same transaction."""
    await store.transaction(
        [
            Statement("DELETE FROM signin_failures WHERE at <= ?", (now - KEEP_MS,)),
            Statement(
                "INSERT INTO signin_failures (at, name_key, remote_addr, kind, user_id) VALUES (?, ?, ?, ?, ?)",
                (now, name_key(failure.name), failure.remote_addr, failure.kind, failure.user_id),
            ),
        ]
    )


async def pin_failures(store: Store, user_id: str, now: int) -> int:
    value = await store.fetch_value(
        "SELECT COUNT(*) FROM signin_failures WHERE user_id = ? AND kind = ? AND at > ?",
        (user_id, PIN, now - PIN_WINDOW_MS),
    )
    return int(value or 0)


async def pin_locked(store: Store, user_id: str, now: int) -> bool:
    return await pin_failures(store, user_id, now) >= PIN_LOCK_FAILURES


def clear_pin_lock_statement(user_id: str) -> Statement:
    """Past PIN failures stop counting toward the lock; they still count toward the rate limits."""
    return Statement(
        "UPDATE signin_failures SET kind = ? WHERE user_id = ? AND kind = ?", (_PIN_CLEARED, user_id, PIN)
    )


async def clear_pin_lock(store: Store, user_id: str) -> None:
    statement = clear_pin_lock_statement(user_id)
    await store.execute(statement.sql, statement.params)


def name_key(name: str) -> str:
    """The name as kept: a hash of its casefolded form, since people type passwords into name fields."""
    return hashlib.sha256(name.strip().casefold().encode("utf-8")).hexdigest()
