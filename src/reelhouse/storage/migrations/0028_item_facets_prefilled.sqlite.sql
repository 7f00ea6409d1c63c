-- 0028: a scan's new items skip the per-row facet triggers of 0027 (issue
-- #29).  The scanner writes a new item's facets and primary_image with its
-- row (storage/_facets.py); its values and images then each fired a trigger
-- that looked the item up only to find them there: 40,000 lookups in a
-- 10,000-movie first scan, a third of what 0027 added to the writer's CPU
-- (measured: item_values' insert 0.47 -> 0.72 CPU-s, images' 0.08 -> 0.12).
--
-- item_facets_prefilled holds a row only inside a scanner transaction,
-- around the insert of its new items' values and images (a statement before
-- and one after, in the same savepoint: a failed write takes the row with
-- it, and no other connection ever sees it).  While it does, the insert
-- triggers do nothing; every other insert, and every update and delete,
-- still keeps the columns exact.  Testing an empty one-row table costs a
-- fraction of the item lookup.
CREATE TABLE item_facets_prefilled (one INTEGER PRIMARY KEY CHECK (one = 1));

DROP TRIGGER item_facets_value_insert;
CREATE TRIGGER item_facets_value_insert AFTER INSERT ON item_values
WHEN NEW.kind IN ('genre', 'studio', 'tag') AND instr(NEW.value, char(31)) = 0
    AND NOT EXISTS (SELECT 1 FROM item_facets_prefilled)
    AND NOT EXISTS (SELECT 1 FROM items WHERE id = NEW.item_id
        AND instr(facets, char(31) || substr(NEW.kind, 1, 1) || lower(NEW.value) || char(31)) > 0) BEGIN
    UPDATE items SET facets = (CASE WHEN facets = '' THEN char(31) ELSE facets END)
        || substr(NEW.kind, 1, 1) || lower(NEW.value) || char(31)
    WHERE id = NEW.item_id;
END;

DROP TRIGGER item_primary_image_insert;
CREATE TRIGGER item_primary_image_insert AFTER INSERT ON images
WHEN NEW.kind = 'primary' AND NOT EXISTS (SELECT 1 FROM item_facets_prefilled) BEGIN
    UPDATE items SET primary_image = 1 WHERE id = NEW.item_id AND primary_image = 0;
END;
