"""The nodes of a cluster: one row per running server (PostgreSQL only).

Every time here is the database's clock (:data:`DB_NOW_MS`), so the nodes'
own clocks never have to agree.  A node writes its own row (register,
heartbeat, remove on a clean stop); any node deletes the rows of nodes
whose heartbeat is older than the expiry (a node killed with -9).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._store import Statement, Store

# The database's wall clock in milliseconds (clock_timestamp: the time of
# the statement, not of the transaction's start).
DB_NOW_MS = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
LIBRARY_LEASE_PREFIX = "library:"


@dataclass(frozen=True, slots=True)
class NodeRow:
    id: str
    address: str
    started_at_ms: int
    heartbeat_at_ms: int
    libraries_led: tuple[str, ...]


async def heartbeat(store: Store, node_id: str, address: str) -> None:
    """Register the node or renew its heartbeat (a node expired while paused registers again)."""
    await store.execute(
        f"INSERT INTO cluster_nodes (id, address, started_at, heartbeat_at) VALUES (?, ?, {DB_NOW_MS}, {DB_NOW_MS}) "
        f"ON CONFLICT (id) DO UPDATE SET address = excluded.address, heartbeat_at = {DB_NOW_MS}",
        (node_id, address),
    )


async def expire_dead_nodes(store: Store, expiry_ms: int) -> list[str]:
    """Delete the nodes silent for longer than ``expiry_ms``; their ids."""
    (result,) = await store.transaction([Statement(
        f"DELETE FROM cluster_nodes WHERE heartbeat_at < {DB_NOW_MS} - ? RETURNING id", (expiry_ms,)
    )])  # fmt: skip
    return sorted(str(row["id"]) for row in result.rows)


async def remove_node(store: Store, node_id: str) -> None:
    """A clean stop: the row goes, and so do the node's leases (others take them at once)."""
    await store.transaction([
        Statement("DELETE FROM cluster_leases WHERE node_id = ?", (node_id,)),
        Statement("DELETE FROM cluster_nodes WHERE id = ?", (node_id,)),
    ])  # fmt: skip


async def live_nodes(store: Store, expiry_ms: int) -> list[NodeRow]:
    """The nodes heard from within ``expiry_ms``, with the libraries each leads now, by start."""
    rows = await store.fetch_all(
        f"SELECT id, address, started_at, heartbeat_at FROM cluster_nodes "
        f"WHERE heartbeat_at >= {DB_NOW_MS} - ? ORDER BY started_at, id",
        (expiry_ms,),
    )
    leases = await store.fetch_all(
        f"SELECT name, node_id FROM cluster_leases WHERE expires_at >= {DB_NOW_MS} AND name LIKE ? ORDER BY name",
        (LIBRARY_LEASE_PREFIX + "%",),
    )
    led: dict[str, list[str]] = {}
    for lease in leases:
        led.setdefault(lease["node_id"], []).append(str(lease["name"]).removeprefix(LIBRARY_LEASE_PREFIX))
    return [
        NodeRow(
            id=row["id"], address=row["address"], started_at_ms=int(row["started_at"]),
            heartbeat_at_ms=int(row["heartbeat_at"]), libraries_led=tuple(led.get(row["id"], ())),
        )
        for row in rows
    ]  # fmt: skip


async def shared_setting(store: Store, name: str, proposed: str) -> str:
    """The cluster's value of ``name``: ``proposed`` if this node is the first to ask, else the first's."""
    (_inserted, found) = await store.transaction([
        Statement("INSERT INTO cluster_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                  (name, proposed)),
        Statement("SELECT value FROM cluster_settings WHERE name = ?", (name,)),
    ])  # fmt: skip
    return str(found.rows[0]["value"])
