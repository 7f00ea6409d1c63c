-- Search folding without the GIL for printable-ASCII names.
-- The triggers of 0005 called reelhouse_fold(), a Python function, three
-- times per inserted item.  The scan's writer runs in a worker thread while
-- other threads run Python (parsing, the event loop), and every such call
-- waits for the GIL: measured, a batch insert of items went from about
-- 120 us to over 1 ms per row under a busy second thread.  These triggers
-- fold printable-ASCII text in SQL (storage/_search_fold.sqlite_search_key,
-- equal to search_key()) and call the Python function only for the rest.

DROP TRIGGER IF EXISTS search_items_insert;
DROP TRIGGER IF EXISTS search_items_update;
DROP TRIGGER IF EXISTS search_people_insert;
DROP TRIGGER IF EXISTS search_people_update;

CREATE TRIGGER search_items_insert AFTER INSERT ON items
WHEN NEW.missing = 0 AND NEW.owner_id IS NULL AND NEW.extra_type IS NULL
BEGIN
    INSERT INTO search_items (item_id, name_f, title_f, sort_f)
    VALUES (NEW.id,
        CASE WHEN NEW.name GLOB '*[^ -~]*' OR instr(NEW.name, char(0)) > 0 THEN reelhouse_fold(NEW.name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END,
        CASE WHEN coalesce(NEW.original_title, '') GLOB '*[^ -~]*' OR instr(coalesce(NEW.original_title, ''), char(0)) > 0 THEN reelhouse_fold(coalesce(NEW.original_title, ''))
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(coalesce(NEW.original_title, '')), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END,
        CASE WHEN NEW.sort_name GLOB '*[^ -~]*' OR instr(NEW.sort_name, char(0)) > 0 THEN reelhouse_fold(NEW.sort_name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.sort_name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END);
END;

CREATE TRIGGER search_items_update AFTER UPDATE OF name, original_title, sort_name, missing, owner_id, extra_type ON items
WHEN OLD.name IS NOT NEW.name OR OLD.original_title IS NOT NEW.original_title
    OR OLD.sort_name IS NOT NEW.sort_name OR OLD.missing IS NOT NEW.missing
    OR OLD.owner_id IS NOT NEW.owner_id OR OLD.extra_type IS NOT NEW.extra_type
BEGIN
    DELETE FROM search_items WHERE item_id = OLD.id;
    INSERT INTO search_items (item_id, name_f, title_f, sort_f)
    SELECT NEW.id,
        CASE WHEN NEW.name GLOB '*[^ -~]*' OR instr(NEW.name, char(0)) > 0 THEN reelhouse_fold(NEW.name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END,
        CASE WHEN coalesce(NEW.original_title, '') GLOB '*[^ -~]*' OR instr(coalesce(NEW.original_title, ''), char(0)) > 0 THEN reelhouse_fold(coalesce(NEW.original_title, ''))
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(coalesce(NEW.original_title, '')), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END,
        CASE WHEN NEW.sort_name GLOB '*[^ -~]*' OR instr(NEW.sort_name, char(0)) > 0 THEN reelhouse_fold(NEW.sort_name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.sort_name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END
    WHERE NEW.missing = 0 AND NEW.owner_id IS NULL AND NEW.extra_type IS NULL;
END;

CREATE TRIGGER search_people_insert AFTER INSERT ON people BEGIN
    INSERT INTO search_people (person_id, name_f, sort_f)
    VALUES (NEW.id,
        CASE WHEN NEW.name GLOB '*[^ -~]*' OR instr(NEW.name, char(0)) > 0 THEN reelhouse_fold(NEW.name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END,
        CASE WHEN NEW.sort_name GLOB '*[^ -~]*' OR instr(NEW.sort_name, char(0)) > 0 THEN reelhouse_fold(NEW.sort_name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.sort_name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END);
END;

CREATE TRIGGER search_people_update AFTER UPDATE OF name, sort_name ON people
WHEN OLD.name IS NOT NEW.name OR OLD.sort_name IS NOT NEW.sort_name
BEGIN
    DELETE FROM search_people WHERE person_id = OLD.id;
    INSERT INTO search_people (person_id, name_f, sort_f)
    VALUES (NEW.id,
        CASE WHEN NEW.name GLOB '*[^ -~]*' OR instr(NEW.name, char(0)) > 0 THEN reelhouse_fold(NEW.name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END,
        CASE WHEN NEW.sort_name GLOB '*[^ -~]*' OR instr(NEW.sort_name, char(0)) > 0 THEN reelhouse_fold(NEW.sort_name)
        ELSE rtrim(substr(trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(NEW.sort_name), char(33), ' '), char(34), ' '), char(39), ' '), char(40), ' '), char(41), ' '), char(44), ' '), char(45), ' '), char(46), ' '), char(47), ' '), char(58), ' '), char(59), ' '), char(63), ' '), char(91), ' '), char(92), ' '), char(93), ' '), char(95), ' '), char(123), ' '), char(125), ' '), '  ', ' '), '  ', ' '), ' '), 1, 200), ' ') END);
END;
