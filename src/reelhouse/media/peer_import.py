"""Importing from another server (Jellyfin or Emby): its answers read, matched to our items, and planned.

Pure. :func:`parse_user` and :func:`parse_item` read the peer's UserDto
and BaseItemDto (Jellyfin's and Emby's shapes are the same for these
fields: ``Id``, ``Name``, ``Type``, ``Path``, ``MediaSources[].Path``,
``ProviderIds``, ``UserData`` {``Played``, ``PlayCount``,
``PlaybackPositionTicks``, ``IsFavorite``, ``LastPlayedDate``}).
:class:`ItemMatcher` finds our item for one of theirs: by provider id
first (same type; ``tmdb``, ``imdb``, ``tvdb``, then any other, the first
that names exactly one of ours), else by path (the same path, else the
same file in a folder of the same name: another server mounts the same
files elsewhere), else none. :func:`plan_watch` and :func:`plan_ids` say
what an import would change, never our newer data:

- watch state: theirs is taken (played, position, last played; the play
  count only grows) when it was played later than ours, or ours was never
  played, started or marked; a favourite is only added, never removed;
- provider ids: only for our works that found no match of their own
  (scrape state ``none``, ``failed``, ``needsIdentify``) and not locked,
  and only ids we lack. Jellyfin's API does not say which ids a person
  chose by hand, so every id the peer holds counts.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

TICKS_PER_MS: Final = 10_000
KINDS: Final = ("jellyfin", "emby")
ITEM_TYPES: Final = ("Movie", "Series", "Episode")
PREFERRED_PROVIDERS: Final = ("tmdb", "imdb", "tvdb")
UNMATCHED_SCRAPE_STATES: Final = frozenset({"none", "failed", "needsIdentify"})
WORK_TYPES: Final = frozenset({"Movie", "Series"})
_FRACTION = re.compile(r"(\.\d{6})\d+")


@dataclass(frozen=True, slots=True)
class PeerUser:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class PeerUserData:
    played: bool = False
    play_count: int = 0
    position_ms: int = 0
    favorite: bool = False
    last_played_ms: int | None = None


@dataclass(frozen=True, slots=True)
class PeerItem:
    id: str
    name: str
    type: str
    path: str | None
    provider_ids: Mapping[str, str] = field(default_factory=dict)  # lower-case provider names
    user_data: PeerUserData | None = None


@dataclass(frozen=True, slots=True)
class OurItem:
    id: str
    type: str
    name: str
    path: str | None
    provider_ids: Mapping[str, str] = field(default_factory=dict)
    scrape_state: str = "none"
    locked: bool = False


@dataclass(frozen=True, slots=True)
class OurWatch:
    """Our member's state of an item, as far as the plan needs it."""

    played: bool = False
    play_count: int = 0
    position_ms: int = 0
    favorite: bool = False
    last_played_ms: int | None = None


@dataclass(frozen=True, slots=True)
class WatchChange:
    """What to write: the watch fields (when ``take_watch``) and whether to add the favourite."""

    item_id: str
    take_watch: bool
    played: bool
    play_count: int
    position_ms: int
    last_played_ms: int | None
    add_favorite: bool


def parse_user(dto: Mapping[str, Any]) -> PeerUser | None:
    user_id, name = dto.get("Id"), dto.get("Name")
    if not isinstance(user_id, str) or not isinstance(name, str) or not user_id or not name:
        return None
    return PeerUser(user_id, name)


def parse_item(dto: Mapping[str, Any]) -> PeerItem | None:
    """One of the peer's items; None for a type we do not import or a malformed one."""
    item_id, kind = dto.get("Id"), dto.get("Type")
    if not isinstance(item_id, str) or kind not in ITEM_TYPES:
        return None
    providers = dto.get("ProviderIds")
    provider_ids = {
        str(k).lower(): str(v) for k, v in (providers.items() if isinstance(providers, Mapping) else ())
        if isinstance(v, (str, int)) and str(v)
    }  # fmt: skip
    data = dto.get("UserData")
    return PeerItem(item_id, str(dto.get("Name") or ""), str(kind), _path(dto), provider_ids,
                    _user_data(data) if isinstance(data, Mapping) else None)


def _path(dto: Mapping[str, Any]) -> str | None:
    path = dto.get("Path")
    if not isinstance(path, str) or not path:
        sources = dto.get("MediaSources")
        first = sources[0] if isinstance(sources, list) and sources and isinstance(sources[0], Mapping) else {}
        path = first.get("Path")
    if not isinstance(path, str) or not path or path.startswith(("http://", "https://")):
        return None
    return path.replace("\\", "/")


def _user_data(data: Mapping[str, Any]) -> PeerUserData:
    ticks = data.get("PlaybackPositionTicks")
    count = data.get("PlayCount")
    return PeerUserData(
        played=data.get("Played") is True,
        play_count=count if isinstance(count, int) and count > 0 else 0,
        position_ms=int(ticks) // TICKS_PER_MS if isinstance(ticks, (int, float)) and ticks > 0 else 0,
        favorite=data.get("IsFavorite") is True,
        last_played_ms=_epoch_ms(data.get("LastPlayedDate")),
    )


def _epoch_ms(text: object) -> int | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        # Jellyfin writes seven fractional digits; fromisoformat takes at most six.
        moment = datetime.fromisoformat(_FRACTION.sub(r"\1", text))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


class ItemMatcher:
    """Our items indexed by provider id, path and folder-and-file."""

    def __init__(self, ours: Iterable[OurItem]) -> None:
        self._by_id: dict[tuple[str, str, str], list[OurItem]] = {}
        self._by_path: dict[str, OurItem] = {}
        self._by_tail: dict[tuple[str, str], list[OurItem]] = {}
        for item in ours:
            for provider, value in item.provider_ids.items():
                self._by_id.setdefault((item.type, provider.lower(), str(value)), []).append(item)
            if item.path:
                path = item.path.replace("\\", "/")
                self._by_path[path] = item
                self._by_tail.setdefault((item.type, _tail(path)), []).append(item)

    def match(self, theirs: PeerItem) -> OurItem | None:
        others = sorted(p for p in theirs.provider_ids if p not in PREFERRED_PROVIDERS)
        for provider in (*PREFERRED_PROVIDERS, *others):
            value = theirs.provider_ids.get(provider)
            found = self._by_id.get((theirs.type, provider, value or ""), []) if value else []
            if len(found) == 1:
                return found[0]
        if not theirs.path:
            return None
        same = self._by_path.get(theirs.path)
        if same is not None and same.type == theirs.type:
            return same
        found = self._by_tail.get((theirs.type, _tail(theirs.path)), [])
        return found[0] if len(found) == 1 else None


def _tail(path: str) -> str:
    """The file and its folder: ``Heat (1995)/Heat (1995).mkv``."""
    folder, name = posixpath.split(path.rstrip("/"))
    return f"{posixpath.basename(folder)}/{name}"


def plan_watch(item: OurItem, ours: OurWatch, theirs: PeerUserData) -> WatchChange | None:
    """What importing ``theirs`` changes of our member's state of ``item``; None: nothing."""
    add_favorite = theirs.favorite and not ours.favorite
    watch = item.type != "Series" and takes_watch(ours, theirs)
    differs = (theirs.played, theirs.position_ms, theirs.last_played_ms) != (
        ours.played, ours.position_ms, ours.last_played_ms)
    take = watch and differs and (theirs.played or theirs.position_ms > 0)
    if not take and not add_favorite:
        return None
    return WatchChange(item.id, take, theirs.played, max(ours.play_count, theirs.play_count),
                       0 if theirs.played else theirs.position_ms, theirs.last_played_ms, add_favorite)


def takes_watch(ours: OurWatch, theirs: PeerUserData) -> bool:
    """Theirs is newer: played later than ours, or ours was never played, started or marked."""
    untouched = not ours.played and ours.position_ms == 0 and ours.last_played_ms is None
    if untouched:
        return True
    return theirs.last_played_ms is not None and (
        ours.last_played_ms is None or theirs.last_played_ms > ours.last_played_ms)


def plan_ids(item: OurItem, theirs: PeerItem) -> dict[str, str] | None:
    """The provider ids to give our work: only where it found no match itself, only ids it lacks."""
    if item.type not in WORK_TYPES or item.locked or item.scrape_state not in UNMATCHED_SCRAPE_STATES:
        return None
    new = {k: v for k, v in theirs.provider_ids.items() if k not in item.provider_ids}
    return new or None
