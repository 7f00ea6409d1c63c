-- 0020: each member's watch state (issue 27, item 1).
--
-- One row per member and item the member has played, started or marked:
-- played (with play_count and last_played_at), the resume position and the
-- favourite mark.  It replaces user_item_data of 0001, which nothing ever
-- wrote, and keeps the position in milliseconds as the rest of the schema
-- keeps time.  A row goes with its member and with its item (ON DELETE
-- CASCADE).  last_played_at: the last report of a playback or the mark as
-- played (epoch milliseconds); it orders the resume list and datePlayed.
-- A series or season has no played row of its own: it is played when all
-- its episodes are (computed at read time), its favourite mark is its own.
DROP TABLE user_item_data;
CREATE TABLE watch_state (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    played INTEGER NOT NULL DEFAULT 0,
    play_count INTEGER NOT NULL DEFAULT 0,
    last_played_at BIGINT,
    position_ms BIGINT NOT NULL DEFAULT 0,
    favorite INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, item_id)
);
-- Deleting an item (a scan's missing items, a library) finds its rows.
CREATE INDEX watch_state_by_item ON watch_state (item_id);
-- The resume list: in progress, newest first, keyset on (last played, item).
CREATE INDEX watch_state_resume ON watch_state (user_id, last_played_at, item_id) WHERE position_ms > 0;
-- Next up starts from the member's played episodes.
CREATE INDEX watch_state_played ON watch_state (user_id, item_id) WHERE played = 1;
