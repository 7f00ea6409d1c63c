"""Query-string values the routes share the parsing of."""

from __future__ import annotations

from reelhouse.errors import Invalid


def bounded_int(raw: str | None, name: str, *, low: int, high: int, default: int) -> int:
    """A whole number from ``low`` to ``high``; ``default`` when absent; Invalid naming ``name`` otherwise."""
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise Invalid(f"{name} must be an integer from {low} to {high}.", field=name)
    return value
