-- 0022: filtered item pages read indexes, not table rows (issue #29).
-- A page sorted by name walks items_library_top_by_name (the top level) or
-- items_library_by_name_key (recursive) in order and tests each row until
-- the page is full, or, for a filter it takes for selective, reads every
-- row of the library in a bitmap heap scan and sorts them: with a year, a
-- genre or an attention state that was one heap row per item of the
-- library (measured on 20,000 items: a year page 20-28 ms against 6 ms for
-- the plain page).  The two walks now carry the columns the scope and the
-- common filters test (INCLUDE), so both plans read the index alone once
-- the visibility map is set.  A genre tested along a walk is one probe of
-- item_values_by_item.
DROP INDEX items_library_top_by_name;
CREATE INDEX items_library_top_by_name ON items (library_id, name_key, id)
    INCLUDE (owner_id, missing, type, production_year, scrape_state, probe_pending) WHERE parent_id IS NULL;
DROP INDEX items_library_by_name_key;
CREATE INDEX items_library_by_name_key ON items (library_id, name_key, id)
    INCLUDE (owner_id, missing, type, production_year, scrape_state, probe_pending);
CREATE INDEX item_values_by_item ON item_values (item_id, kind, lower(value));
