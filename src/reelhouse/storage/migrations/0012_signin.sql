-- 0012: sign-in for players.
-- Failed sign-ins are kept as rows (not counters in memory) so the limits
-- of the reference hold across a restart; rows older than the longest
-- window (24 hours, the PIN lock) are pruned by the sign-in path.
-- kind: password, pin, name (no secret sent).  user_id is NULL for an
-- unknown name.
CREATE TABLE signin_failures (
    id {{id_pk}},
    at BIGINT NOT NULL,
    name_key TEXT NOT NULL,
    remote_addr TEXT NOT NULL,
    kind TEXT NOT NULL,
    user_id TEXT
);
CREATE INDEX signin_failures_by_addr ON signin_failures (remote_addr, at);
CREATE INDEX signin_failures_by_name ON signin_failures (name_key, remote_addr, at);
CREATE INDEX signin_failures_by_user ON signin_failures (user_id, kind, at);
CREATE INDEX signin_failures_by_at ON signin_failures (at);
CREATE INDEX activity_by_actor ON activity (actor_kind, actor_id, at);
CREATE INDEX activity_by_target ON activity (target_kind, target_id, at);
