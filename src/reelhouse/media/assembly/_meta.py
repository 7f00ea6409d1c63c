"""Drafts -> records: NFO values, external streams, containers, fingerprints.

Private to ``reelhouse.media.assembly``. Pure: the caller reads the files
(NFO bytes, image bytes, ``.strm`` text) and hands over what it read.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from reelhouse.media.assembly._model import (
    FINGERPRINT_BYTES,
    ExternalStream,
    ImageRecord,
    ItemDraft,
    Metadata,
    PersonCredit,
    ScanRules,
    item_id,
    join_path,
)
from reelhouse.media.file_names import readable
from reelhouse.media.local_images import image_tag, read_image_size
from reelhouse.media.naming import STRM_EXTENSION, extension, sort_name
from reelhouse.media.nfo import NfoData, PersonKind

TICKS_PER_MINUTE = 60 * 10_000_000
MAX_STRM_BYTES = 64 * 1024
STRM_CONTAINER = "strm"
# Transport-stream extensions: the reference names their container mpegts.
MPEGTS_EXTENSIONS = frozenset({".ts", ".m2ts", ".mts", ".m2t", ".tp", ".trp"})
VALUE_KINDS = ("genre", "studio", "tag", "country")
PERSON_CACHE_SIZE = 8192  # the same actors appear in many NFO files


def fingerprint(draft: ItemDraft, rules: ScanRules) -> str:
    """A short hash of everything the scan would write for ``draft``.

    The draft names every file it depends on with its size and mtime, so an
    unchanged fingerprint means an unchanged item: nothing to read or write.
    """
    text = f"{rules.signature}|{draft!r}".encode("utf-8", "surrogateescape")
    return hashlib.blake2b(text, digest_size=FINGERPRINT_BYTES).hexdigest()


def container_of(file_name: str) -> str:
    """The container a file has until it is probed, from its extension."""
    ext = extension(file_name)
    if ext == STRM_EXTENSION:
        return STRM_CONTAINER
    if ext in MPEGTS_EXTENSIONS:
        return "mpegts"
    return ext[1:]


def strm_target(data: bytes) -> str:
    """The URL a ``.strm`` file points to: its first non-empty line.

    Raises ValueError (with a short reason) unless that line is an
    ``http`` or ``https`` URL with a host, or the file is too large.
    """
    if len(data) > MAX_STRM_BYTES:
        raise ValueError(".strm file is too large")
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not line:
        raise ValueError(".strm file is empty")
    try:
        parts = urlsplit(line)
    except ValueError as exc:
        raise ValueError(".strm file does not hold a valid URL") from exc
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(".strm file must point to an http or https URL")
    if any(ch.isspace() for ch in line):
        raise ValueError(".strm URL contains whitespace")
    return line


def external_streams(draft: ItemDraft) -> tuple[ExternalStream, ...]:
    """The draft's companion files as external streams, numbered from 0."""
    streams: list[ExternalStream] = []
    for index, found in enumerate(draft.companions):
        companion = found.companion
        streams.append(
            ExternalStream(
                index=index,
                type=companion.kind.value,
                codec=companion.codec or extension(found.file.name)[1:],
                language=companion.language,
                title=readable(companion.title) if companion.title else companion.title,
                is_default=companion.is_default,
                is_forced=companion.is_forced,
                path=join_path(draft.dir_path, found.file.name),
            )
        )
    return tuple(streams)


def image_record(path: str, kind: str, index: int, size: int, mtime_ms: int, data: bytes) -> ImageRecord:
    """An image's record from its bytes: content tag and header size."""
    dimensions = read_image_size(data)
    width, height = dimensions if dimensions else (None, None)
    return ImageRecord(path, kind, index, image_tag(data), width, height, size, mtime_ms)


@functools.lru_cache(maxsize=PERSON_CACHE_SIZE)
def person_id(name: str) -> str:
    """People are shared by all libraries: one id per casefolded name."""
    return item_id("", "person", name.casefold())


def metadata_from_nfo(draft: ItemDraft, nfo: NfoData) -> Metadata:
    """The item fields an NFO gives, falling back to the draft's parsed values.

    Episode and season numbers from the file name win; the NFO's fill in
    what the name lacks.
    """
    name = nfo.title or draft.name
    sortable = draft.type in ("Movie", "Series", "Video")
    return Metadata(
        name=name,
        sort_name=nfo.sort_title or (sort_name(name) if sortable else name),
        original_title=nfo.original_title,
        production_year=nfo.year or draft.production_year,
        premiere_date_ms=date_ms(nfo.premiered) or draft.premiere_date_ms,
        end_date_ms=date_ms(nfo.end_date),
        overview=nfo.plot or nfo.outline,
        tagline=nfo.tagline,
        runtime_ticks=(
            nfo.runtime_minutes * TICKS_PER_MINUTE if nfo.runtime_minutes and nfo.runtime_minutes > 0 else None
        ),
        official_rating=nfo.official_rating,
        community_rating=_float(nfo.community_rating),
        critic_rating=_float(nfo.critic_rating),
        lock_data=nfo.lock_data,
        provider_ids=json.dumps(dict(sorted(nfo.provider_ids.items())), ensure_ascii=False),
        extra=json.dumps(_extra(nfo), ensure_ascii=False, sort_keys=True),
        values=_values(nfo),
        credits=_credits(nfo),
        **_numbers(draft, nfo),
    )


def _numbers(draft: ItemDraft, nfo: NfoData) -> dict[str, int | None]:
    if draft.type == "Episode":
        return {
            "index_number": _first(draft.index_number, nfo.episode_number),
            "index_number_end": _first(draft.index_number_end, nfo.episode_number_end),
            "parent_index_number": _first(draft.parent_index_number, nfo.season_number),
        }
    if draft.type == "Season":
        return {"index_number": _first(draft.index_number, nfo.season_number)}
    return {"index_number": draft.index_number}


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)


def _extra(nfo: NfoData) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if nfo.ratings:
        extra["ratings"] = [
            {"source": r.source, "value": r.value, "max": r.max, **({"votes": r.votes} if r.votes is not None else {})}
            for r in nfo.ratings
        ]
    if nfo.trailers:
        extra["remoteTrailers"] = [{"url": url} for url in nfo.trailers]
    if nfo.collection:
        overview = {"overview": nfo.collection_overview} if nfo.collection_overview else {}
        extra["collection"] = {"name": nfo.collection, **overview}
    optional: Mapping[str, object | None] = {
        "status": nfo.status,
        "userRating": nfo.user_rating,
        "defaultProvider": nfo.default_provider,
        "communityVotes": nfo.community_votes,
    }
    extra.update({key: value for key, value in optional.items() if value is not None})
    return extra


def _values(nfo: NfoData) -> tuple[tuple[str, str], ...]:
    lists = (nfo.genres, nfo.studios, nfo.tags, nfo.countries)
    return tuple((kind, value) for kind, values in zip(VALUE_KINDS, lists, strict=True) for value in values)


def _credits(nfo: NfoData) -> tuple[PersonCredit, ...]:
    credits: list[PersonCredit] = []
    seen: set[tuple[str, str, str]] = set()
    for position, person in enumerate(nfo.people):
        pid = person_id(person.name)
        role = person.role or ""
        key = (pid, person.kind.value, role)
        if key in seen:
            continue
        seen.add(key)
        order = person.order if person.order is not None and person.kind is PersonKind.ACTOR else position
        credits.append(PersonCredit(pid, person.name, person.kind.value, role, order))
    return tuple(credits)


def date_ms(day: datetime.date | None) -> int | None:
    """Midnight UTC of ``day`` in epoch milliseconds."""
    if day is None:
        return None
    moment = datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
    return int(moment.timestamp()) * 1000


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)
