"""RFC 3339 timestamps in UTC with ``Z`` and millisecond precision."""

from __future__ import annotations

from datetime import UTC, datetime


def rfc3339(value: datetime) -> str:
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def rfc3339_ms(epoch_ms: int) -> str:
    return rfc3339(datetime.fromtimestamp(epoch_ms / 1000, UTC))
