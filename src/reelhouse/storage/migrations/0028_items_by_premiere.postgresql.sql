-- 0028: a year range's first page by premiere date walks the premiere dates
-- (issue #29 item 4; the SQLite file says more).  The walk starts at the
-- earliest premiere date of the range's items (one seek per year in
-- items_library_top_by_year_premiere) and stops once the page is full; its
-- key is the sort value, COALESCE(premiere_date, HIGH), as
-- item_query/_sorts.py writes it.
CREATE INDEX items_library_top_by_premiere ON items
    (library_id, COALESCE(premiere_date, 9000000000000000000), name_key, id)
    INCLUDE (owner_id, missing, type, production_year, premiere_date, primary_image, facets)
    WHERE parent_id IS NULL;
CREATE INDEX items_library_top_by_year_premiere ON items (library_id, production_year, premiere_date)
    WHERE parent_id IS NULL;
