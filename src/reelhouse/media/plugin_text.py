"""Which language a plugin's texts are shown in: the ``lang`` chain, pure.

GET /plugins/installed takes ``lang``: one BCP 47 tag, or a comma-separated
list of at most :data:`MAX_LANGS` (the reference's subtitle form). The chain
is that list, then the request's Accept-Language, then English. A text is
taken from the first language of the chain the manifest has, matching the
whole tag first and then its base language (``zh-TW`` -> ``zh``), each
case-insensitively; English is the last fallback.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from reelhouse.errors import Invalid

MAX_LANGS: Final = 8
_TAG: Final = re.compile(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*")


def parse_lang(raw: str | None) -> list[str]:
    """The tags of a ``lang`` query value; 400 ``field_invalid`` (field ``lang``) when malformed or too many."""
    if raw is None or not raw.strip():
        return []
    tags = [tag.strip() for tag in raw.split(",")]
    if len(tags) > MAX_LANGS:
        raise Invalid(f"lang lists at most {MAX_LANGS} languages.", field="lang", params={"limit": MAX_LANGS})
    for tag in tags:
        if not _TAG.fullmatch(tag):
            raise Invalid(f"lang: {tag!r} is not a BCP 47 language tag.", field="lang")
    return tags


def accept_language(header: str | None) -> list[str]:
    """The tags of an Accept-Language header by preference (q=0 and ``*`` dropped)."""
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate((header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and tag != "*" and quality > 0 and _TAG.fullmatch(tag):
            ranked.append((-quality, index, tag))
    return [tag for _, _, tag in sorted(ranked)]


def localized(texts: Mapping[str, str], chain: Sequence[str]) -> str | None:
    """The text for the first language of ``chain`` present, else English, else None."""
    by_tag = {tag.lower(): text for tag, text in texts.items()}
    for tag in chain:
        lowered = tag.lower()
        if lowered in by_tag:
            return by_tag[lowered]
        base = lowered.split("-")[0]
        if base in by_tag:
            return by_tag[base]
    return by_tag.get("en")
