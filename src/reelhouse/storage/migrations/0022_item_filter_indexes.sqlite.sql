-- 0022: filtered item pages read indexes, not table rows (issue #29).
-- A page sorted by name walks items_library_parent_by_name (the top level)
-- or items_library_by_name_key (recursive) in order and tests each row
-- until the page is full: with a rare filter (a year, a studio, an
-- attention state) that is thousands of rows, and each row was a table
-- read for owner_id, missing and the filtered column (measured on 20,000
-- items: a year page 57 ms against 1.8 ms for the plain page).  The two
-- walks now carry the columns the scope and the common filters test, so a
-- walk reads the index alone.  A genre tested along such a walk is one
-- probe of item_values_by_item (the item's values of a kind, folded),
-- instead of the list of every item with that genre built first (studios
-- and tags, rare values, keep the list: storage/_item_query_filters.py).
DROP INDEX items_library_parent_by_name;
CREATE INDEX items_library_parent_by_name ON items
    (library_id, parent_id, name_key, id, owner_id, missing, type, production_year, scrape_state, probe_pending);
DROP INDEX items_library_by_name_key;
CREATE INDEX items_library_by_name_key ON items
    (library_id, name_key, id, owner_id, missing, type, production_year, scrape_state, probe_pending);
CREATE INDEX item_values_by_item ON item_values (item_id, kind, lower(value));
