-- 0002: what the scanner keeps between scans.

-- A fingerprint of everything a scan wrote for the item (its files' names,
-- sizes and times, its structure): equal on the next scan = nothing to do.
ALTER TABLE items ADD COLUMN scan_hash TEXT;
CREATE INDEX items_by_probe_pending ON items (library_id, probe_pending);

-- Directory modification times seen by the last completed scan, for quick
-- scans: a directory whose mtime is unchanged is not listed again, and its
-- subdirectories are taken from here.  mtime_ns -1 = list it next time.
CREATE TABLE scan_dirs (
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    parent TEXT,
    mtime_ns BIGINT NOT NULL,
    PRIMARY KEY (library_id, path)
);

-- A scan replaces a path's earlier errors, and clears them once the file reads.
CREATE INDEX scan_errors_by_path ON scan_errors (library_id, path);
