"""RFC 3339 timestamps in UTC with ``Z`` and millisecond precision."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def rfc3339(value: datetime) -> str:
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def rfc3339_ms(epoch_ms: int) -> str:
    """``epoch_ms`` (milliseconds since the epoch, UTC) as RFC 3339.

    Lists render one per item, so this formats the fields itself instead of
    building a datetime and calling strftime (about four times the work).
    """
    seconds, millis = divmod(int(epoch_ms), 1000)
    t = time.gmtime(seconds)
    return (
        f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"
        f"T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}.{millis:03d}Z"
    )
