-- 0028: a year range's first page by premiere date walks the premiere dates
-- (issue #29 item 4).  Before, it read every entry of the range from
-- items_library_parent_by_year (Movie of a genre, 1990-2010, 100,000
-- items: about 6,800 entries tested to keep 716, then sorted).  A
-- production year is not the premiere date's year (the NFO's <year> and
-- <premiered>, a provider's answer, an edit set each on its own), so the
-- range cannot become a premiere-date range; instead the walk starts at
-- the earliest premiere date of the items in the range, found by one seek
-- per year in items_library_parent_by_year_premiere (item_query/
-- _value_filters.py), and stops once the page is full.  The walk's key is
-- the sort value itself, COALESCE(premiere_date, HIGH) (a missing date
-- last), spelled exactly as item_query/_sorts.py writes it.
CREATE INDEX items_library_parent_by_premiere ON items
    (library_id, parent_id, COALESCE(premiere_date, 9000000000000000000), name_key, id, owner_id, missing, type,
     production_year, premiere_date, primary_image, facets);
CREATE INDEX items_library_parent_by_year_premiere ON items (library_id, parent_id, production_year, premiere_date);
