-- Nothing to change on SQLite: reelhouse_keep_scrape_record() is a Python
-- function registered on every connection (storage/_scrape_record.py); this
-- file keeps both backends on one numbering.
SELECT 1;
