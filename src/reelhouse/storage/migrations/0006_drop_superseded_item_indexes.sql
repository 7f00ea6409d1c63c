-- 0004 indexed the item listings by lower(sort_name), which is what the
-- queries sort and page by; these 0001 indexes on the raw sort_name serve
-- no query any more, and every index costs each scanned item an insert.
DROP INDEX IF EXISTS items_by_library_type;
DROP INDEX IF EXISTS items_by_type;
DROP INDEX IF EXISTS items_by_sort_name;
DROP INDEX IF EXISTS items_by_date_created;
