-- 0010: items.name_key, the key listings order and compare names by.
-- lower() folds only ASCII in SQLite (and follows the database's collation
-- in PostgreSQL), so the backends disagreed and "Emile" with an accent
-- sorted after "Zorro".  The scanner writes name_key with each row
-- (storage/_name_key.name_key: letters to their lower-case base letter,
-- the rest kept); here existing rows get theirs, and the name indexes of
-- 0004 move from lower(sort_name) to the column, under the same names.
-- A writer that leaves the column out gets '' (sorts first): every writer
-- of items must set it.  The function stays: the q filter keys names with
-- it (SQLite's connections register a Python function of the same name).

ALTER TABLE items ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
UPDATE items SET name_key = reelhouse_name_key(sort_name);

DROP INDEX items_library_parent_by_name;
DROP INDEX items_parent_by_added;
DROP INDEX items_parent_by_name;
DROP INDEX items_type_by_name;
DROP INDEX items_library_type_by_name;
DROP INDEX items_type_by_added;
DROP INDEX items_by_name_key;
DROP INDEX items_library_by_name_key;
DROP INDEX items_by_added;
DROP INDEX items_missing_by_name;

CREATE INDEX items_library_parent_by_name ON items (library_id, parent_id, name_key, id);
CREATE INDEX items_parent_by_added ON items (parent_id, date_created, name_key, id);
CREATE INDEX items_parent_by_name ON items (parent_id, name_key, id);
CREATE INDEX items_type_by_name ON items (type, name_key, id);
CREATE INDEX items_library_type_by_name ON items (library_id, type, name_key, id);
CREATE INDEX items_type_by_added ON items (type, date_created, name_key, id);
CREATE INDEX items_by_name_key ON items (name_key, id);
CREATE INDEX items_library_by_name_key ON items (library_id, name_key, id);
CREATE INDEX items_by_added ON items (date_created, name_key, id);
CREATE INDEX items_missing_by_name ON items (name_key, id) WHERE missing = 1;
