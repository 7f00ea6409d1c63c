-- Nothing to create on SQLite: reelhouse_keep_scrape_record() is a Python
-- function registered on every connection (storage/_sqlite.py); this file
-- keeps both backends on one numbering.
SELECT 1;
