-- 0019: live playback sessions survive a kill (issue 25, item 10).
-- playback_live holds each live session's last known state (an
-- EndedPlayback as JSON, as it would end at its last report), saved by the
-- session at its start and then at most every [playback]
-- save_interval_seconds; the transaction that records the session deletes
-- the row.  A row found at start-up was left by a process that died: it is
-- recorded then, with end_reason 'crash'.
-- end_reason: how the session merged in last ended: stopped, idle,
-- remoteStop, shutdown or crash (NULL for records made before).
ALTER TABLE play_history ADD COLUMN end_reason TEXT;
CREATE TABLE playback_live (
    session_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    saved_at BIGINT NOT NULL
);
