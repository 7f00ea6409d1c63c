-- 0027: genre, studio, tag and poster filters tested on the name walk's own
-- index entries (issue #29).  A filtered first page sorted by name walks
-- items_library_parent_by_name (or items_library_by_name_key) until the page
-- is full; a genre was one probe of item_values_by_item per row walked, a
-- studio or a tag a list of the value's items built first, noPoster one
-- probe of images per row (measured on 100,000 items: a genre page 5x, a
-- noPoster page 8x the plain page's SQL).  Two columns now carry what those
-- filters test, and the two walks carry the columns:
--
-- facets: the item's genres, studios and tags as the filters compare them,
--   char(31) + (first letter of the kind + lower(value) + char(31)) for
--   each, in (kind, position) order, '' for none (values holding char(31)
--   left out; a filter naming one falls back to item_values).  A filter
--   looks for char(31) || 'g' || lower(name) || char(31) with instr(): the
--   same lower() on both sides as the item_values filter compares.
-- primary_image: 1 when the item has a primary image row, else 0.
--
-- Triggers keep both exact whoever writes item_values or images (the scan,
-- provider matches, collections, tools): an insert appends one value, a
-- delete or an update recomputes the item's facets (storage/_facets.py).
-- Only presence counts: a value the item has twice may be there once or twice.
ALTER TABLE items ADD COLUMN facets TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN primary_image INTEGER NOT NULL DEFAULT 0;

UPDATE items SET
    facets = COALESCE((SELECT char(31) || group_concat(x, char(31)) || char(31) FROM (
        SELECT substr(v.kind, 1, 1) || lower(v.value) AS x FROM item_values v
        WHERE v.item_id = items.id AND v.kind IN ('genre', 'studio', 'tag') AND instr(v.value, char(31)) = 0
        ORDER BY v.kind, v.position)), ''),
    primary_image = EXISTS (SELECT 1 FROM images im WHERE im.item_id = items.id AND im.kind = 'primary');

DROP INDEX items_library_parent_by_name;
CREATE INDEX items_library_parent_by_name ON items
    (library_id, parent_id, name_key, id, owner_id, missing, type, production_year, scrape_state, probe_pending,
     primary_image, facets);
DROP INDEX items_library_by_name_key;
CREATE INDEX items_library_by_name_key ON items
    (library_id, name_key, id, owner_id, missing, type, production_year, scrape_state, probe_pending,
     primary_image, facets);

-- A year's first page by name seeks the year and walks its names; a year
-- range sorted otherwise (premiere date, rating) reads the range only.
CREATE INDEX items_library_parent_by_year ON items
    (library_id, parent_id, production_year, name_key, id, owner_id, missing, type, premiere_date,
     primary_image, facets);

-- An insert appends the value unless the item has it already (the scanner
-- fills a new item's facets as it inserts it: then the trigger only reads).
CREATE TRIGGER item_facets_value_insert AFTER INSERT ON item_values
WHEN NEW.kind IN ('genre', 'studio', 'tag') AND instr(NEW.value, char(31)) = 0
    AND NOT EXISTS (SELECT 1 FROM items WHERE id = NEW.item_id
        AND instr(facets, char(31) || substr(NEW.kind, 1, 1) || lower(NEW.value) || char(31)) > 0) BEGIN
    UPDATE items SET facets = (CASE WHEN facets = '' THEN char(31) ELSE facets END)
        || substr(NEW.kind, 1, 1) || lower(NEW.value) || char(31)
    WHERE id = NEW.item_id;
END;

CREATE TRIGGER item_facets_value_delete AFTER DELETE ON item_values
WHEN OLD.kind IN ('genre', 'studio', 'tag') BEGIN
    UPDATE items SET facets = COALESCE((SELECT char(31) || group_concat(x, char(31)) || char(31) FROM (
        SELECT substr(v.kind, 1, 1) || lower(v.value) AS x FROM item_values v
        WHERE v.item_id = OLD.item_id AND v.kind IN ('genre', 'studio', 'tag') AND instr(v.value, char(31)) = 0
        ORDER BY v.kind, v.position)), '')
    WHERE id = OLD.item_id;
END;

CREATE TRIGGER item_facets_value_update AFTER UPDATE ON item_values BEGIN
    UPDATE items SET facets = COALESCE((SELECT char(31) || group_concat(x, char(31)) || char(31) FROM (
        SELECT substr(v.kind, 1, 1) || lower(v.value) AS x FROM item_values v
        WHERE v.item_id = items.id AND v.kind IN ('genre', 'studio', 'tag') AND instr(v.value, char(31)) = 0
        ORDER BY v.kind, v.position)), '')
    WHERE id IN (OLD.item_id, NEW.item_id);
END;

CREATE TRIGGER item_primary_image_insert AFTER INSERT ON images WHEN NEW.kind = 'primary' BEGIN
    UPDATE items SET primary_image = 1 WHERE id = NEW.item_id AND primary_image = 0;
END;

CREATE TRIGGER item_primary_image_delete AFTER DELETE ON images WHEN OLD.kind = 'primary' BEGIN
    UPDATE items SET primary_image = EXISTS (SELECT 1 FROM images im WHERE im.item_id = OLD.item_id AND im.kind = 'primary')
    WHERE id = OLD.item_id;
END;

CREATE TRIGGER item_primary_image_update AFTER UPDATE OF item_id, kind ON images BEGIN
    UPDATE items SET primary_image = EXISTS (SELECT 1 FROM images im WHERE im.item_id = items.id AND im.kind = 'primary')
    WHERE id IN (OLD.item_id, NEW.item_id);
END;
