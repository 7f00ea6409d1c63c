-- 0023: a full rescan skips a directory whose listing is unchanged (issue 29,
-- item 5).  `signature` is a hash of what the walk listed in the directory
-- (the files the scanner reads, with their sizes and mtimes) and of the rules
-- that parsed it (actors/scan/walk.py); NULL until a scan lists the directory.
ALTER TABLE scan_dirs ADD COLUMN signature TEXT;
