"""Building response JSON where an omitted field is absent, not null."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reelhouse.timefmt import rfc3339_ms


def put_present(data: dict[str, Any], pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Add each ``(key, value)`` whose value is not None; returns ``data``."""
    for key, value in pairs:
        if value is not None:
            data[key] = value
    return data


def put_time(data: dict[str, Any], key: str, epoch_ms: int | None) -> None:
    """Add ``key`` as an RFC 3339 timestamp when ``epoch_ms`` is known."""
    if epoch_ms is not None:
        data[key] = rfc3339_ms(epoch_ms)
