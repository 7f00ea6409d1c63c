-- 0021: several nodes on one PostgreSQL database (issue 28, item 2).
-- The tables exist on both backends so the schema is one; a SQLite server
-- is a cluster of one and never writes them.
-- cluster_nodes: one row per running server, heartbeat by the node itself;
-- a row whose heartbeat is older than [cluster] node_expiry_seconds is a
-- dead node and is deleted by any live one.  Times are the database's
-- clock (milliseconds), so nodes' clocks never have to agree.
CREATE TABLE cluster_nodes (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);
-- cluster_leases: who leads what ("library:<id>", "scheduler") until when.
-- epoch is the fencing token: it grows each time the lease changes hands,
-- and a leader's writes check it in their own transaction.
CREATE TABLE cluster_leases (
    name TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
-- cluster_commands: an ask for a library sent to whichever node leads it,
-- claimed by that leader, answered in reply (JSON), read by the sender.
CREATE TABLE cluster_commands (
    id {{id_pk}},
    target TEXT NOT NULL,
    body TEXT NOT NULL,
    deadline_at BIGINT NOT NULL,
    claimed_by TEXT,
    reply TEXT
);
CREATE INDEX cluster_commands_unclaimed ON cluster_commands (target, id);
-- cluster_settings: what every node must agree on, set by the first node
-- to start (the server id clients see, the key that signs paging cursors).
CREATE TABLE cluster_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
