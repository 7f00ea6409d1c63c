-- 0014: the watch history (issue 14): what merging and the history filters need.
--
-- series_id / season_id are copied from an episode when it is played, so the
-- history filter `itemId` of a series or a season still finds its episodes
-- after the items are gone.  furthest_sec keeps the furthest position of the
-- merged sessions.  title_key and player_key are the casefolded title and
-- player (Python's casefold, written by the application): `title` contains
-- and `client` match without case on both backends, beyond ASCII.
-- last_session_id is the session merged in last: recording a session runs
-- "merge into a candidate, else insert" as two statements of one
-- transaction, and the insert is skipped when the merge set it.

ALTER TABLE play_history ADD COLUMN series_id TEXT;
ALTER TABLE play_history ADD COLUMN season_id TEXT;
ALTER TABLE play_history ADD COLUMN furthest_sec DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE play_history ADD COLUMN title_key TEXT;
ALTER TABLE play_history ADD COLUMN player_key TEXT NOT NULL DEFAULT '';
ALTER TABLE play_history ADD COLUMN last_session_id TEXT;

UPDATE play_history SET
    series_id = (SELECT i.series_id FROM items i WHERE i.id = play_history.item_id),
    season_id = (SELECT i.season_id FROM items i WHERE i.id = play_history.item_id),
    title_key = lower(title),
    player_key = lower(player);

-- Every session ever recorded, and the record it went into: a session
-- recorded twice (a stopped report racing the idle end) is refused by the
-- primary key, its transaction rolled back whole, so it never counts twice.
CREATE TABLE play_history_sessions (
    session_id TEXT PRIMARY KEY,
    record_id BIGINT NOT NULL REFERENCES play_history (id) ON DELETE CASCADE
);
CREATE INDEX play_history_sessions_by_record ON play_history_sessions (record_id);

CREATE UNIQUE INDEX play_history_by_last_session ON play_history (last_session_id);
-- The merge candidate: this member's latest record of the item on the device.
CREATE INDEX play_history_merge ON play_history (user_id, item_id, device_id, ended_at);
-- The filters, each with the order of the list (newest first).
CREATE INDEX play_history_by_device ON play_history (device_id, started_at);
CREATE INDEX play_history_by_series ON play_history (series_id, started_at);
CREATE INDEX play_history_by_season ON play_history (season_id, started_at);
CREATE INDEX play_history_by_player ON play_history (player_key, started_at);
