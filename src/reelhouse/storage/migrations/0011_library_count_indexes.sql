-- 0011: the counts a library's JSON carries (itemCount, hasStrmSources)
-- read indexes alone instead of table rows. Measured on 100,000 items:
-- itemCount took 12 ms (one table row per item to check its type and
-- owner) and hasStrmSources 54 ms (every item's sources joined), on each
-- GET /libraries and /libraries/{id}.
-- items_by_missing grows the columns itemCount tests, so the table keeps
-- the same number of indexes to update on every write; remote sources are
-- few, so their index is partial.
DROP INDEX items_by_missing;
CREATE INDEX items_by_missing ON items (library_id, missing, type, owner_id);
CREATE INDEX media_sources_remote ON media_sources (item_id) WHERE remote = 1 AND missing = 0;
