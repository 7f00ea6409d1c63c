"""Values out of NFO elements: text, lists, numbers, dates and flags, read leniently.

Real-world NFO files hold "Action / Comedy" in one element, "7,5" for a
rating, "Rated PG-13", "1,234" votes and dates with trailing times: each
reader returns None (or empty) rather than raise on what it cannot read.
Pure; used by :mod:`reelhouse.media.nfo`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Iterable
from datetime import date
from typing import TypeVar
from xml.etree.ElementTree import Element

_T = TypeVar("_T")

# Separator inside one element holding several values ("Action / Comedy").
LIST_SEPARATOR = " / "


def own_text(element: Element) -> str | None:
    text = (element.text or "").strip()
    return text or None


def child_text(parent: Element, name: str) -> str | None:
    element = parent.find(name)
    return own_text(element) if element is not None else None


def texts(root: Element, name: str) -> tuple[str, ...]:
    raw = [own_text(e) for e in root.findall(name)]
    return tuple(unique(split_list(raw), key=str.casefold))


def split_list(values: Iterable[str | None]) -> list[str]:
    parts = (p.strip() for v in values if v for p in v.split(LIST_SEPARATOR))
    return [p for p in parts if p]


def unique(items: Iterable[_T], *, key: Callable[[_T], Hashable]) -> list[_T]:
    seen: set[Hashable] = set()
    kept: list[_T] = []
    for item in items:
        marker = key(item)
        if marker not in seen:
            seen.add(marker)
            kept.append(item)
    return kept


def official_rating(raw: str | None) -> str | None:
    # Kodi's scrapers wrote "Rated PG-13"; the label is "PG-13".
    if raw and raw.lower().startswith("rated "):
        return raw[6:].strip() or None
    return raw


def to_int(raw: str | None) -> int | None:
    match = re.match(r"\s*(-?\d{1,9})", raw or "")
    return int(match.group(1)) if match else None


def to_year(raw: str | None) -> int | None:
    return int(raw) if raw and re.fullmatch(r"\d{4}", raw) else None


def to_float(raw: str | None) -> float | None:
    if not raw:
        return None
    try:
        number = float(raw.strip().replace(",", "."))
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def to_votes(raw: str | None) -> int | None:
    digits = re.sub(r"[\s,.'\u00a0]", "", raw or "")
    return int(digits) if re.fullmatch(r"[0-9]{1,18}", digits) else None


def to_date(raw: str | None) -> date | None:
    match = re.match(r"(\d{4})-(\d{1,2})-(\d{1,2})", raw or "")
    if match is None:
        return None
    try:
        return date(*(int(part) for part in match.groups()))
    except ValueError:
        return None


def to_flag(raw: str | None) -> bool:
    return (raw or "").strip().lower() in ("true", "1", "yes")
