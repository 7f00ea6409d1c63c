-- Search folding moves from SQL to one Python function, reelhouse_fold(),
-- registered on every connection the Store opens (storage/_sqlite.py) and
-- equal to storage/_search_fold.search_key().  The SQL replace() chains of
-- 0003 cost about a millisecond per inserted item, which made a first scan
-- of 20,000 files spend most of its time indexing names; the function costs
-- microseconds.  The search tables and their FTS5 indexes stay as they are.

DROP TRIGGER IF EXISTS search_items_insert;
DROP TRIGGER IF EXISTS search_items_update;
DROP TRIGGER IF EXISTS search_people_insert;
DROP TRIGGER IF EXISTS search_people_update;
DROP TRIGGER IF EXISTS search_fold_wide;
DROP TRIGGER IF EXISTS search_fold_ascii;
DROP TABLE IF EXISTS search_fold;

CREATE TRIGGER search_items_insert AFTER INSERT ON items
WHEN NEW.missing = 0 AND NEW.owner_id IS NULL AND NEW.extra_type IS NULL
BEGIN
    INSERT INTO search_items (item_id, name_f, title_f, sort_f)
    VALUES (NEW.id, reelhouse_fold(NEW.name), reelhouse_fold(coalesce(NEW.original_title, '')),
            reelhouse_fold(NEW.sort_name));
END;

CREATE TRIGGER search_items_update AFTER UPDATE OF name, original_title, sort_name, missing, owner_id, extra_type ON items
WHEN OLD.name IS NOT NEW.name OR OLD.original_title IS NOT NEW.original_title
    OR OLD.sort_name IS NOT NEW.sort_name OR OLD.missing IS NOT NEW.missing
    OR OLD.owner_id IS NOT NEW.owner_id OR OLD.extra_type IS NOT NEW.extra_type
BEGIN
    DELETE FROM search_items WHERE item_id = OLD.id;
    INSERT INTO search_items (item_id, name_f, title_f, sort_f)
    SELECT NEW.id, reelhouse_fold(NEW.name), reelhouse_fold(coalesce(NEW.original_title, '')),
           reelhouse_fold(NEW.sort_name)
    WHERE NEW.missing = 0 AND NEW.owner_id IS NULL AND NEW.extra_type IS NULL;
END;

CREATE TRIGGER search_people_insert AFTER INSERT ON people BEGIN
    INSERT INTO search_people (person_id, name_f, sort_f)
    VALUES (NEW.id, reelhouse_fold(NEW.name), reelhouse_fold(NEW.sort_name));
END;

CREATE TRIGGER search_people_update AFTER UPDATE OF name, sort_name ON people
WHEN OLD.name IS NOT NEW.name OR OLD.sort_name IS NOT NEW.sort_name
BEGIN
    DELETE FROM search_people WHERE person_id = OLD.id;
    INSERT INTO search_people (person_id, name_f, sort_f)
    VALUES (NEW.id, reelhouse_fold(NEW.name), reelhouse_fold(NEW.sort_name));
END;
