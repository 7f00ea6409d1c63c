-- 0025: people's details and pictures from providers, provider collections
-- as BoxSet items (issue 33, items 2 and 3).
--
-- people: `overview` and `details` (JSON: birthDate, deathDate, birthPlace,
-- homepage) come from the provider's person record; `image_url` is the
-- picture the provider named (kept so personSourceRefetch can fetch it
-- again); `details_state` is `pending` (never asked), `filled`, `skipped`
-- (no provider id or the provider knows nothing) or `failed`;
-- `details_at` when it was last asked.
ALTER TABLE people ADD COLUMN overview TEXT;
ALTER TABLE people ADD COLUMN details TEXT NOT NULL DEFAULT '{}';
ALTER TABLE people ADD COLUMN image_url TEXT;
ALTER TABLE people ADD COLUMN details_state TEXT NOT NULL DEFAULT 'pending';
ALTER TABLE people ADD COLUMN details_at BIGINT;
CREATE INDEX people_by_details_state ON people (details_state, id);

-- The members of a BoxSet item (a row of `items` with type BoxSet, no path),
-- with the time each was added (a BoxSet's dateAdded is its newest member's).
CREATE TABLE collection_items (
    collection_id TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    added_at BIGINT NOT NULL,
    PRIMARY KEY (collection_id, item_id)
);
CREATE INDEX collection_items_by_item ON collection_items (item_id);
