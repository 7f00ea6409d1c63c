-- A queued refresh's apply mode survives a restart: NULL = a fill (the
-- mode `missing`, images kept); else the RefreshMetadataRequest's mode,
-- `missing` or `replaceAll`, with `+images` when it replaces images too
-- (storage/scrape_queue.Refresh).  Cleared when the item leaves `pending`.
ALTER TABLE items ADD COLUMN scrape_refresh TEXT;
