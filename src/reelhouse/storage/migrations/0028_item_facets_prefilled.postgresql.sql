-- 0028: the marker SQLite's scanner sets around its new items' values and
-- images (see the SQLite file).  PostgreSQL's facet triggers run once per
-- statement and never read it; the table is here so that both schemas hold
-- the same tables.
CREATE TABLE item_facets_prefilled (one INTEGER PRIMARY KEY CHECK (one = 1));
