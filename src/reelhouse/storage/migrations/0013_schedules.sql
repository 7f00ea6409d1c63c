-- 0012: schedules survive a restart (jobs are stored in 0001's jobs table).

-- One row per task the scheduler ever knew (core and plugin).  ``rules``
-- NULL = the built-in default.  ``due_from`` is when the task last started
-- or was skipped, or its rules last changed: the next scheduled time is
-- computed after it, so a time missed while the server was down runs once.
CREATE TABLE schedules (
    task TEXT PRIMARY KEY,
    owner TEXT,
    allows_after_scan INTEGER NOT NULL DEFAULT 0,
    rules TEXT,
    paused INTEGER NOT NULL DEFAULT 0,
    due_from BIGINT,
    running_since BIGINT,
    last_started_at BIGINT,
    last_finished_at BIGINT,
    last_result TEXT,
    last_error_code TEXT,
    last_error_libraries TEXT,
    last_message TEXT,
    updated_at BIGINT NOT NULL
);

-- Bumped by every rule change from outside the server (the command line):
-- the running scheduler polls this one row and reloads on a change.
CREATE TABLE schedule_revision (
    id INTEGER PRIMARY KEY,
    revision BIGINT NOT NULL
);
INSERT INTO schedule_revision (id, revision) VALUES (1, 0);
