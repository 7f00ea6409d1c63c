-- 0027: genre, studio, tag and poster filters tested on the name walk's own
-- index entries (issue #29; the SQLite file says more).  facets: the item's
-- genres, studios and tags, chr(31) + (first letter of the kind +
-- lower(value) + chr(31)) for each in (kind, position) order, '' for none
-- (values holding chr(31) left out), found with strpos() of
-- chr(31) || 'g' || lower(name) || chr(31): lower() on both sides, as the
-- item_values filter compares.  primary_image: 1 when the item has a
-- primary image row.  Both ride in the two name walks' INCLUDE lists, and
-- statement-level triggers keep them exact whoever writes item_values or
-- images: one UPDATE per statement, recomputing the items it touched (the
-- trigger functions keep the schema they were created in, as 0003's do).
ALTER TABLE items ADD COLUMN facets TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN primary_image INTEGER NOT NULL DEFAULT 0;

-- The item's facets from item_values (called by the triggers below, whose
-- search_path, the schema they were created in, it resolves tables with).
CREATE FUNCTION reelhouse_item_facets(item text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT COALESCE(chr(31) || string_agg(left(v.kind, 1) || lower(v.value), chr(31) ORDER BY v.kind, v.position) || chr(31), '')
      FROM item_values v
      WHERE v.item_id = item AND v.kind IN ('genre', 'studio', 'tag') AND strpos(v.value, chr(31)) = 0 $$;

UPDATE items SET facets = f.facets FROM (
    SELECT v.item_id, chr(31) || string_agg(left(v.kind, 1) || lower(v.value), chr(31) ORDER BY v.kind, v.position) || chr(31) AS facets
    FROM item_values v WHERE v.kind IN ('genre', 'studio', 'tag') AND strpos(v.value, chr(31)) = 0
    GROUP BY v.item_id) f
WHERE items.id = f.item_id;
UPDATE items SET primary_image = 1 WHERE id IN (SELECT item_id FROM images WHERE kind = 'primary');

DROP INDEX items_library_top_by_name;
CREATE INDEX items_library_top_by_name ON items (library_id, name_key, id)
    INCLUDE (owner_id, missing, type, production_year, scrape_state, probe_pending, primary_image, facets)
    WHERE parent_id IS NULL;
DROP INDEX items_library_by_name_key;
CREATE INDEX items_library_by_name_key ON items (library_id, name_key, id)
    INCLUDE (owner_id, missing, type, production_year, scrape_state, probe_pending, primary_image, facets);

-- A year's first page by name seeks the year and walks its names; a year
-- range sorted otherwise (premiere date, rating) reads the range only.
CREATE INDEX items_library_top_by_year ON items (library_id, production_year, name_key, id)
    INCLUDE (owner_id, missing, type, premiere_date, primary_image, facets) WHERE parent_id IS NULL;

-- Each item a statement touched gets its facets recomputed, written only
-- when they differ: the scanner fills a new item's facets as it inserts it
-- (storage/_facets.py), and an item row rewritten would be a new version
-- in every index of items.
CREATE FUNCTION reelhouse_item_facets_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE items i SET facets = f.facets
        FROM (SELECT item_id, reelhouse_item_facets(item_id) AS facets FROM (
            SELECT DISTINCT item_id FROM old_rows WHERE kind IN ('genre', 'studio', 'tag')) AS touched) AS f
        WHERE i.id = f.item_id AND i.facets <> f.facets;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        UPDATE items i SET facets = f.facets
        FROM (SELECT item_id, reelhouse_item_facets(item_id) AS facets FROM (
            SELECT DISTINCT item_id FROM new_rows WHERE kind IN ('genre', 'studio', 'tag')) AS touched) AS f
        WHERE i.id = f.item_id AND i.facets <> f.facets;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER item_facets_values_insert AFTER INSERT ON item_values
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reelhouse_item_facets_changed();
CREATE TRIGGER item_facets_values_update AFTER UPDATE ON item_values
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reelhouse_item_facets_changed();
CREATE TRIGGER item_facets_values_delete AFTER DELETE ON item_values
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reelhouse_item_facets_changed();

CREATE FUNCTION reelhouse_item_primary_image_changed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE items i SET primary_image = 0
        WHERE i.id IN (SELECT item_id FROM old_rows WHERE kind = 'primary') AND i.primary_image = 1
          AND NOT EXISTS (SELECT 1 FROM images im WHERE im.item_id = i.id AND im.kind = 'primary');
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        UPDATE items i SET primary_image = 1
        WHERE i.id IN (SELECT item_id FROM new_rows WHERE kind = 'primary') AND i.primary_image = 0;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER item_primary_image_insert AFTER INSERT ON images
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reelhouse_item_primary_image_changed();
CREATE TRIGGER item_primary_image_update AFTER UPDATE ON images
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reelhouse_item_primary_image_changed();
CREATE TRIGGER item_primary_image_delete AFTER DELETE ON images
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reelhouse_item_primary_image_changed();
