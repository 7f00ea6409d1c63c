"""The scrape record in ``items.extra``: what a scan rewriting the item from its NFO keeps.

The record (MetadataState ``provider``, ``providerItemId``, ``scrapedAt``,
``scrapeError``, and ``identified``: the match is one a user chose, see
:data:`IDENTIFIED_KEY`) is the server's, not the NFO's: a scan that
replaces ``extra`` with the NFO's values merges it back (SQL function
``reelhouse_keep_scrape_record``, migrations 0015 and 0016 on PostgreSQL,
this on SQLite).  Values the NFO itself carries win.
"""

from __future__ import annotations

import orjson

# True while the item's match (``provider``, ``providerItemId``) is the one a
# user identified: a later scrape that finds that same match by its id keeps
# ``scrapeState: identified``.  Internal: MetadataState does not show it.
IDENTIFIED_KEY = "identified"
SCRAPE_RECORD_KEYS = ("provider", "providerItemId", "scrapedAt", "scrapeError", IDENTIFIED_KEY)


def keep_scrape_record(new_extra: str | None, old_extra: str | None) -> str:
    """``new_extra`` with the scrape record of ``old_extra`` where it has none (JSON text)."""
    new = _object(new_extra)
    old = _object(old_extra)
    kept = {key: old[key] for key in SCRAPE_RECORD_KEYS if old.get(key) is not None}
    return orjson.dumps({**kept, **new}).decode()


def _object(text: str | None) -> dict[str, object]:
    try:
        value = orjson.loads(text or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
