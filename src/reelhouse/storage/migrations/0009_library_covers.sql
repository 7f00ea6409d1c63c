-- A library's covers as its last completed scan chose them (JSON, see
-- storage/covers.py): per kind (primary, thumb) the tag, the source
-- (scanned, auto) and, for an automatic collage, the posters it used,
-- whether it is final and when it was generated.
ALTER TABLE libraries ADD COLUMN covers TEXT NOT NULL DEFAULT '{}';
