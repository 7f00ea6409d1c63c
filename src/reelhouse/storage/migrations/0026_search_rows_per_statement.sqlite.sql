-- 0026 changes only PostgreSQL's search triggers (see the .postgresql.sql
-- file): SQLite has no statement triggers, and its row triggers fold in
-- plain SQL already (0007).
SELECT 1;
