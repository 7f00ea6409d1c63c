-- 0018: an entry that repeats is one row with a count (issue 25, item 9).
-- Refused sign-ins came 150-230 a second from one client, a row each.  Such
-- entries are written with repeat_key, a hash of what makes them the same
-- (action, actor, target, address, details) and of their time window: the
-- same entry again in its window adds one to `repeats` of that row instead.
-- NULL for entries that never repeat (several NULLs pass a unique index).
ALTER TABLE activity ADD COLUMN repeats INTEGER;
ALTER TABLE activity ADD COLUMN repeat_key TEXT;
CREATE UNIQUE INDEX activity_by_repeat_key ON activity (repeat_key);
