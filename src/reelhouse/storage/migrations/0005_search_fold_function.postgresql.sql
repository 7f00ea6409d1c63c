-- Nothing changes on PostgreSQL: its fold is already one SQL function
-- (0003); this version exists so both backends share the numbering.
SELECT 1;
