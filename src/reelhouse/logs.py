"""The server's log: plain text or one JSON object per line, every line naming its origin.

``log_format = "text"``::

    2026-11-28 18:40:01,123 INFO reelhouse.access [request:3f2a...]: GET /api/v1/items/<item_id> 200 4.1 ms 1834 B

``log_format = "json"`` (what Loki/Promtail, Vector or Fluent Bit parse
without a pattern)::

    {"time": "2026-11-28T18:40:01.123Z", "level": "info", "logger": "reelhouse.access",
     "origin": "request:3f2a...", "message": "GET ...", "http": {"method": "GET", ...}}

``origin`` is :mod:`reelhouse.log_origin`'s: the actor or request the line
comes from, else ``server``. A record may carry structured fields in
``extra={"http": {...}}`` (the access log does); the JSON format keeps them
as an object, the text format shows the message only.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal

from reelhouse.log_origin import current_origin

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(origin)s]: %(message)s"
STRUCTURED_FIELDS = ("http",)  # extra= fields the JSON format keeps
# Libraries that log every request at INFO: httpx names each image a scrape
# fetches (two an item). Those lines are formatted and written on the event
# loop's thread; at level info they are left out, at debug they are kept.
PER_REQUEST_LOGGERS = ("httpx",)


class OriginFilter(logging.Filter):
    """Stamps each record with the origin of the task that logged it (unless it names one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "origin"):
            record.origin = current_origin()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace(
                "+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "origin": getattr(record, "origin", current_origin()),
            "message": record.getMessage(),
        }
        for name in STRUCTURED_FIELDS:
            if (value := getattr(record, name, None)) is not None:
                line[name] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure_logging(level: str, log_format: Literal["text", "json"] = "text") -> None:
    """Send every record at ``level`` and above to stderr in ``log_format``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(OriginFilter())
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    quiet = logging.getLogger().getEffectiveLevel() > logging.DEBUG
    for name in PER_REQUEST_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING if quiet else logging.NOTSET)
