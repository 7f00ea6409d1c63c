-- 0004: indexes for item listings (reelhouse.storage.item_query).
-- Listings order by (sort value, lower(sort_name), id) and stop after one
-- page, so the common scopes get an index in exactly that order: the top
-- level of the libraries, a parent's children, one type, everything; by
-- name and by date added. Both orders scan the same index.
-- The two backends differ only in the top-level (parent_id IS NULL) ones.

-- The top level as partial indexes: PostgreSQL does not treat IS NULL on a
-- leading column as an equality that leaves the next columns in order.
CREATE INDEX items_top_by_name ON items (lower(sort_name), id) WHERE parent_id IS NULL;
CREATE INDEX items_library_top_by_name ON items (library_id, lower(sort_name), id) WHERE parent_id IS NULL;
CREATE INDEX items_top_by_added ON items (date_created, lower(sort_name), id) WHERE parent_id IS NULL;

CREATE INDEX items_parent_by_name ON items (parent_id, lower(sort_name), id);
CREATE INDEX items_type_by_name ON items (type, lower(sort_name), id);
CREATE INDEX items_library_type_by_name ON items (library_id, type, lower(sort_name), id);
CREATE INDEX items_type_by_added ON items (type, date_created, lower(sort_name), id);
CREATE INDEX items_by_name_key ON items (lower(sort_name), id);
CREATE INDEX items_library_by_name_key ON items (library_id, lower(sort_name), id);
CREATE INDEX items_by_added ON items (date_created, lower(sort_name), id);

-- Missing items (missing=true, the missing attention state): few rows.
CREATE INDEX items_missing_by_name ON items (lower(sort_name), id) WHERE missing = 1;

-- Distinct officialRating labels (a loose index scan) for rating bounds and sorts.
CREATE INDEX items_by_official_rating ON items (official_rating);
