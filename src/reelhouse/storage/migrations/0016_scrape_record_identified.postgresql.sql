-- The scrape record also keeps `identified` (the match is one a user chose,
-- storage/_scrape_record.IDENTIFIED_KEY), so a scan re-reading an identified
-- item's NFO does not turn it back into an automatic match.
CREATE OR REPLACE FUNCTION reelhouse_keep_scrape_record(new_extra text, old_extra text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (jsonb_strip_nulls(jsonb_build_object(
        'provider', o -> 'provider', 'providerItemId', o -> 'providerItemId',
        'scrapedAt', o -> 'scrapedAt', 'scrapeError', o -> 'scrapeError',
        'identified', o -> 'identified')) || n)::text
      FROM (SELECT coalesce(new_extra, '{}')::jsonb AS n, coalesce(old_extra, '{}')::jsonb AS o) AS extras $$;
