-- 0024: live playback sessions on a cluster (issue 28, item 2, Playback).
-- node_id: the cluster node whose player reports keep the session (NULL on
-- a server of one).  A node records as ended by a crash only the rows of
-- nodes that are no longer alive, never another live node's sessions.
ALTER TABLE playback_live ADD COLUMN node_id TEXT;
