-- 0026 (PostgreSQL): the search tables take a statement's inserted items
-- and people in one INSERT ... SELECT (issue #29, first scan).
-- The row triggers of 0003 ran their PL/pgSQL function once per inserted
-- row: three calls of reelhouse_search_key (not inlined from PL/pgSQL) and
-- a one-row INSERT into search_items (four B-trees, two GIN trigram
-- indexes) each time.  A statement trigger reads the inserted rows from
-- its transition table, so the fold is inlined into one set-based INSERT.
-- Measured (3,000 movies of a first scan's batches, the two triggers
-- alternated six times on one schema, load 18-26 on 2 cores): the items
-- statements took 504-985 us a row against 757-1,114 (row trigger), 6-33 %
-- less in each pair; most of what is left is the search tables' own
-- indexes (B-trees and trigram GIN).  Same rows, same keys:
-- only inserts change; updates and deletes keep their row triggers (a
-- transition-table trigger cannot have their WHEN condition), and rows an
-- INSERT ... ON CONFLICT updates fire the update trigger as before.

CREATE FUNCTION search_items_insert_rows() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO search_items (item_id, name_f, title_f, sort_f)
    SELECT id, reelhouse_search_key(name), coalesce(reelhouse_search_key(original_title), ''),
           reelhouse_search_key(sort_name)
    FROM inserted_items
    WHERE missing = 0 AND owner_id IS NULL AND extra_type IS NULL;
    RETURN NULL;
END
$$;
DROP TRIGGER search_items_insert ON items;
CREATE TRIGGER search_items_insert AFTER INSERT ON items
    REFERENCING NEW TABLE AS inserted_items
    FOR EACH STATEMENT EXECUTE FUNCTION search_items_insert_rows();

CREATE FUNCTION search_people_insert_rows() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO search_people (person_id, name_f, sort_f)
    SELECT id, reelhouse_search_key(name), reelhouse_search_key(sort_name) FROM inserted_people;
    RETURN NULL;
END
$$;
DROP TRIGGER search_people_insert ON people;
CREATE TRIGGER search_people_insert AFTER INSERT ON people
    REFERENCING NEW TABLE AS inserted_people
    FOR EACH STATEMENT EXECUTE FUNCTION search_people_insert_rows();
