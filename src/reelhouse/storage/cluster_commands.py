"""Commands for whatever node leads a target, and their answers, as rows (PostgreSQL only).

A sender inserts a command (its ``target``: ``library:<id>``, ``scrape:<id>``)
and announces it with ``NOTIFY`` in the same transaction; the node leading
the target claims it (``FOR UPDATE SKIP LOCKED``: one claimant however many
look), runs it and writes the answer, announced the same way; the sender
reads the answer and deletes the row.  Bodies are JSON text made by the
actors' codec.  Notifications only wake: both sides also look every
[cluster] command_poll_seconds, so a notification lost with a connection
delays a command, never loses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._store import Statement, Store
from .cluster_nodes import DB_NOW_MS

COMMAND_WAKE = "c"  # notification payloads: "c:<target>" for a new command, "r:<id>" for an answer
REPLY_WAKE = "r"
STALE_COMMAND_MS = 60_000  # a command past its deadline by this much is deleted by anyone


@dataclass(frozen=True, slots=True)
class Command:
    id: int
    target: str
    body: str
    remaining_ms: int  # until the sender's deadline


def notify_statement(channel: str, payload: str) -> Statement:
    return Statement("SELECT pg_notify(?, ?)", (channel, payload))


async def send_command(store: Store, channel: str, target: str, body: str, timeout_ms: int) -> int:
    """Queue ``body`` for ``target``'s leader, answerable within ``timeout_ms``; its id."""
    inserted, _notified = await store.transaction([
        Statement(
            f"INSERT INTO cluster_commands (target, body, deadline_at) VALUES (?, ?, {DB_NOW_MS} + ?) RETURNING id",
            (target, body, timeout_ms),
        ),
        notify_statement(channel, f"{COMMAND_WAKE}:{target}"),
    ])  # fmt: skip
    return int(inserted.rows[0]["id"])


async def claim_commands(store: Store, node_id: str, targets: Sequence[str], limit: int) -> list[Command]:
    """Claim up to ``limit`` unanswered commands for ``targets`` (this node leads them), oldest first."""
    if not targets:
        return []
    (claimed,) = await store.transaction([Statement(
        f"UPDATE cluster_commands SET claimed_by = ? WHERE id IN ("
        f"SELECT id FROM cluster_commands WHERE claimed_by IS NULL AND target = ANY(?) "
        f"AND deadline_at > {DB_NOW_MS} ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED) "
        f"RETURNING id, target, body, deadline_at - {DB_NOW_MS} AS remaining_ms",
        (node_id, list(targets), limit),
    )])  # fmt: skip
    commands = [Command(int(r["id"]), str(r["target"]), str(r["body"]), int(r["remaining_ms"])) for r in claimed.rows]
    return sorted(commands, key=lambda command: command.id)


async def answer_command(store: Store, channel: str, command_id: int, reply: str) -> None:
    await store.transaction([
        Statement("UPDATE cluster_commands SET reply = ? WHERE id = ?", (reply, command_id)),
        notify_statement(channel, f"{REPLY_WAKE}:{command_id}"),
    ])  # fmt: skip


async def command_reply(store: Store, command_id: int) -> str | None:
    """The answer, None while there is none."""
    value = await store.fetch_value("SELECT reply FROM cluster_commands WHERE id = ?", (command_id,))
    return None if value is None else str(value)


async def forget_command(store: Store, command_id: int) -> None:
    await store.execute("DELETE FROM cluster_commands WHERE id = ?", (command_id,))


async def purge_stale_commands(store: Store) -> int:
    """Delete commands nobody waits for any more (a sender that died, a tell)."""
    result = await store.execute(
        f"DELETE FROM cluster_commands WHERE deadline_at < {DB_NOW_MS} - ?", (STALE_COMMAND_MS,)
    )
    return result.rowcount
