-- Genre, studio, tag and country filters look values up by (kind, folded
-- value) and need only the item id: with the id in the index they read the
-- index alone instead of one table row per match (measured on 100,000
-- items: the 3,484 ids of one genre in 1.6 ms instead of 4.1 ms).
DROP INDEX item_values_by_value;
CREATE INDEX item_values_by_value ON item_values (kind, lower(value), item_id);
