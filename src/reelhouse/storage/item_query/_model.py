"""The parsed GET /items query and the value sets its parameters accept.

Private to :mod:`reelhouse.storage.item_query`, which re-exports
:class:`ItemQuery`. Every field holds a validated, canonical value
(enum values in the reference's spelling, languages as ISO 639-2/B,
subtitle codec aliases resolved), so two queries that mean the same thing
compare equal and get the same cursor fingerprint.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .._parental_sql import ParentalFilter
from ..cursor import fingerprint

ITEM_TYPES = ("Movie", "Series", "Season", "Episode", "Folder", "BoxSet", "Video")
IMAGE_KINDS = ("primary", "backdrop", "logo", "thumb", "banner", "art", "disc", "photo", "still")
PERSON_KINDS = ("Actor", "Director", "Writer", "Producer", "GuestStar", "Composer")
SCRAPE_STATES = ("none", "pending", "scraped", "failed", "needsIdentify", "identified")
ITEM_ATTENTIONS = (
    "needsIdentify", "scrapeFailed", "scrapePending", "noPoster", "unprobed", "missing", "scrapeNotQueued",
)  # fmt: skip
RESOLUTIONS = ("sd", "hd", "4k")
DYNAMIC_RANGES = ("sdr", "hdr10", "hlg", "dolbyVision")
ITEM_SORTS = (
    "name", "dateAdded", "premiereDate", "year", "rating", "runtime", "datePlayed", "playCount",
    "index", "random", "criticRating", "officialRating", "dateModified", "lastContentAdded",
    "seriesName", "path", "played", "favorite", "seriesDatePlayed", "size", "container",
    "resolution", "studio", "productCode", "childCount",
)  # fmt: skip
ORDERS = ("asc", "desc")
PERSON_MATCHES = ("any", "all")

DEFAULT_LIMIT = 40
MAX_LIMIT = 200
MAX_IDS = 200
MIN_YEAR, MAX_YEAR = 1, 3000
LOW = -9_000_000_000_000_000_000  # a missing sort value that sorts lowest
HIGH = 9_000_000_000_000_000_000  # a missing date ascending: last
MAX_YEAR_SPAN = 300  # yearTo - yearFrom
MAX_RATING = 10.0

# Fields that say how much of the list to return, not which rows or in
# which order: they stay out of the cursor's fingerprint.
PAGING_FIELDS = frozenset({"limit", "offset", "cursor", "include_total", "random_seed"})


@dataclass(frozen=True, slots=True)
class ItemQuery:
    """One GET /items request, validated (see ``parse_item_query``).

    Empty tuples and None mean "no such filter". ``min_official_level`` /
    ``max_official_level`` are rating levels (:func:`reelhouse.media.ratings.rating_level`).
    ``random_seed`` only matters for ``sort="random"`` without a cursor
    (tests pin it; the listing otherwise picks one and carries it in the cursor).
    """

    library_id: str | None = None
    parent_id: str | None = None
    # The libraries a signed-in member may see; None = every library (API keys, administrators).
    visible_library_ids: tuple[str, ...] | None = None
    # The signed-in member whose watch state the user-state filters and sorts read; None = a key (no user).
    member_id: str | None = None
    # The signed-in member's parental controls (the SQL beside the library scope); None = none.
    parental: ParentalFilter | None = None
    recursive: bool = False
    types: tuple[str, ...] = ()
    exclude_types: tuple[str, ...] = ()
    genres: tuple[str, ...] = ()
    studios: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    years: tuple[int, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    min_rating: float | None = None
    official_ratings: tuple[str, ...] = ()
    min_official_level: int | None = None
    max_official_level: int | None = None
    has_subtitles: bool | None = None
    resolutions: tuple[str, ...] = ()
    dynamic_ranges: tuple[str, ...] = ()
    containers: tuple[str, ...] = ()
    video_codecs: tuple[str, ...] = ()
    audio_codecs: tuple[str, ...] = ()
    subtitle_codecs: tuple[str, ...] = ()
    subtitle_languages: tuple[str, ...] = ()
    has_special_feature: bool | None = None
    name_from: str | None = None
    name_before: str | None = None
    initial: str | None = None
    name_starts_with: str | None = None
    person_ids: tuple[str, ...] = ()
    person_match: str = "any"
    person_roles: tuple[str, ...] = ()
    favorite_people: bool | None = None
    ids: tuple[str, ...] | None = None
    is_played: bool | None = None
    is_favorite: bool | None = None
    never_played: bool | None = None
    has_overview: bool | None = None
    q: str | None = None
    missing: bool | None = None
    has_primary_image: bool | None = None
    has_remote_source: bool | None = None
    probe_pending: bool | None = None
    image_kinds: tuple[str, ...] = ()
    attention: tuple[str, ...] = ()
    scrape_states: tuple[str, ...] = ()
    card: str | None = None
    sort: str = "name"
    order: str = "asc"
    limit: int = DEFAULT_LIMIT
    offset: int = 0
    cursor: str | None = None
    include_total: bool = False
    random_seed: int | None = None

    @property
    def descending(self) -> bool:
        return self.order == "desc"

    @property
    def attention_states(self) -> tuple[str, ...]:
        """The attention states asked for: ``card`` and ``attention`` together."""
        return tuple(dict.fromkeys((*self.attention, *((self.card,) if self.card else ()))))

    def fingerprint(self) -> str:
        """The cursor fingerprint: every field that chooses or orders rows."""
        return fingerprint(_canonical(self))


def _canonical(query: ItemQuery) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for field in dataclasses.fields(query):
        if field.name in PAGING_FIELDS:
            continue
        value = getattr(query, field.name)
        if value is None or value == () or value == field.default:
            continue
        values[field.name] = [_text(v) for v in value] if isinstance(value, tuple) else [_text(value)]
    return values


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)
