-- 0007 changes only SQLite's search triggers (see the .sqlite.sql file):
-- PostgreSQL folds in its own SQL function (0005) and has no GIL to wait for.
SELECT 1;
