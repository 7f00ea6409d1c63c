-- A scan that rewrites an item from its NFO replaces items.extra with the
-- NFO's; the scrape record (MetadataState provider, providerItemId,
-- scrapedAt, scrapeError) is the server's own and must survive it, e.g.
-- after writeBack wrote that NFO.  The item upsert (storage/_catalog_write)
-- merges it back with this function; SQLite's connections register a
-- Python function of the same name (storage/_scrape_record).
CREATE FUNCTION reelhouse_keep_scrape_record(new_extra text, old_extra text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (jsonb_strip_nulls(jsonb_build_object(
        'provider', o -> 'provider', 'providerItemId', o -> 'providerItemId',
        'scrapedAt', o -> 'scrapedAt', 'scrapeError', o -> 'scrapeError')) || n)::text
      FROM (SELECT coalesce(new_extra, '{}')::jsonb AS n, coalesce(old_extra, '{}')::jsonb AS o) AS extras $$;
