"""Kodi NFO files: local metadata for movies, shows, seasons and episodes.

:func:`parse_nfo` reads the bytes of one NFO (the caller reads the file, in
a worker thread) with defusedxml: no DTD, no entities, no external
references. Element names are lowercase, as Kodi writes and reads them;
``<Title>`` is not ``<title>`` and is ignored. Real-world files are
tolerated: a byte order mark (UTF-8 or UTF-16), whitespace before the XML,
and anything after the root element (Kodi allows a provider URL there;
multi-episode files repeat ``<episodedetails>``: the first one is read). A
file holding only a provider URL gives the ids in it. ``<fileinfo>`` and
remote artwork (``<thumb>``, ``<fanart>``) are not read.

Pure and synchronous: no file access, nothing blocks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit
from xml.etree import ElementTree
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree

from ._nfo_values import (
    child_text,
    official_rating,
    own_text,
    split_list,
    texts,
    to_date,
    to_flag,
    to_float,
    to_int,
    to_votes,
    to_year,
    unique,
)

NfoKind = Literal["movie", "tvshow", "season", "episode"]

MAX_NFO_BYTES = 5 * 1024 * 1024
ROOT_ELEMENTS: Mapping[str, str] = {
    "movie": "movie", "tvshow": "tvshow", "season": "season", "episode": "episodedetails",
}  # fmt: skip
DEFAULT_RATING_MAX = 10.0
# Legacy provider id elements -> provider name.
LEGACY_ID_ELEMENTS: Mapping[str, str] = {
    "imdbid": "imdb", "imdb_id": "imdb", "tmdbid": "tmdb", "tvdbid": "tvdb",
    "tvmazeid": "tvmaze", "anidbid": "anidb",
}  # fmt: skip
YOUTUBE_WATCH_URL = "https://www.youtube.com/watch?v="


class NfoError(ValueError):
    """The bytes are not a usable NFO; ``message`` says why in a few words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PersonKind(StrEnum):
    """The reference's PersonKind."""

    ACTOR = "Actor"
    DIRECTOR = "Director"
    WRITER = "Writer"
    PRODUCER = "Producer"
    GUEST_STAR = "GuestStar"
    COMPOSER = "Composer"


@dataclass(frozen=True, slots=True)
class NfoPerson:
    name: str
    kind: PersonKind
    role: str | None = None
    order: int | None = None
    thumb: str | None = None


@dataclass(frozen=True, slots=True)
class NfoRating:
    """One ``<ratings><rating>``: ``source`` lowercase, ``max`` 10 if unset."""

    source: str
    value: float
    max: float = DEFAULT_RATING_MAX
    votes: int | None = None
    is_default: bool = False


@dataclass(frozen=True, slots=True)
class NfoData:
    """What an NFO says. Absent or empty elements are None or empty.

    ``runtime_minutes`` is as written (minutes). ``community_rating`` is on
    a 0-10 scale: the default ``<ratings>`` entry, else the legacy
    ``<rating>``, else the first ``<ratings>`` entry. ``provider_ids`` are
    keyed by lowercase provider name; ``<uniqueid>`` wins over legacy
    elements, which win over a provider URL. ``people`` keeps document order
    (actors, then directors, then writers, then producers). ``year`` falls
    back to the premiere's year. ``trailers`` holds http(s) URLs only; Kodi
    YouTube plugin links become YouTube watch URLs.
    """

    kind: NfoKind
    title: str | None = None
    original_title: str | None = None
    sort_title: str | None = None
    year: int | None = None
    premiered: date | None = None
    end_date: date | None = None
    plot: str | None = None
    outline: str | None = None
    tagline: str | None = None
    runtime_minutes: int | None = None
    official_rating: str | None = None
    status: str | None = None
    genres: tuple[str, ...] = ()
    studios: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()
    ratings: tuple[NfoRating, ...] = ()
    community_rating: float | None = None
    community_votes: int | None = None
    critic_rating: float | None = None
    user_rating: float | None = None
    provider_ids: Mapping[str, str] = field(default_factory=dict)
    default_provider: str | None = None
    people: tuple[NfoPerson, ...] = ()
    collection: str | None = None
    collection_overview: str | None = None
    trailers: tuple[str, ...] = ()
    lock_data: bool = False
    season_number: int | None = None
    episode_number: int | None = None
    episode_number_end: int | None = None
    display_season: int | None = None
    display_episode: int | None = None
    airs_before_season: int | None = None
    airs_before_episode: int | None = None
    airs_after_season: int | None = None


def nfo_candidates(video_stem: str, kind: NfoKind) -> list[str]:
    """NFO file names to look for, most specific first; the first that
    exists wins.

    A movie: ``<stem>.nfo`` then ``movie.nfo`` (a folder holding several
    movies has one ``movie.nfo`` at most, so the file named after the video
    is the surer one). A show: ``tvshow.nfo``; a season (its folder):
    ``season.nfo``; an episode: ``<stem>.nfo``. ``video_stem`` is ignored
    for shows and seasons. Names are as Kodi writes them; a caller on a
    case-insensitive library may compare them case-insensitively.
    """
    own = [f"{video_stem}.nfo"] if video_stem else []
    if kind == "movie":
        return [*own, "movie.nfo"]
    if kind == "tvshow":
        return ["tvshow.nfo"]
    if kind == "season":
        return ["season.nfo"]
    return own


def parse_nfo(data: bytes, kind: NfoKind) -> NfoData:
    """Parse one NFO of the given kind.

    Raises :class:`NfoError`, and nothing else, when the file is larger
    than :data:`MAX_NFO_BYTES`, is not well-formed XML, carries a DTD,
    entity declarations or external references, or its root element is not
    the one of ``kind`` (``movie``, ``tvshow``, ``season``,
    ``episodedetails``), unless it is a bare provider URL.
    """
    if len(data) > MAX_NFO_BYTES:
        raise NfoError(f"NFO is larger than {MAX_NFO_BYTES // (1024 * 1024)} MiB")
    text = _normalised(data)
    root_name = ROOT_ELEMENTS[kind]
    if not text.startswith(b"<"):
        return _from_url_only(text, kind)
    closing = re.search(rb"</" + root_name.encode() + rb"\s*>", text)
    head, tail = (text[: closing.end()], text[closing.end() :]) if closing else (text, b"")
    root = _parse_xml(head)
    if root.tag != root_name:
        raise NfoError(f"expected <{root_name}>, found <{root.tag}>")
    return _nfo_data(root, kind, _ids_in_urls(tail))


def _normalised(data: bytes) -> bytes:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            decoded = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise NfoError("NFO is not valid UTF-16") from exc
        # Now UTF-8: the declaration must stop saying otherwise.
        declared = re.sub(r"^(\s*<\?xml[^>]*?encoding=[\"'])[^\"']*", r"\1utf-8", decoded)
        data = declared.encode("utf-8")
    data = data.removeprefix(b"\xef\xbb\xbf").lstrip()
    return data if _declares_encoding(data) else _as_utf8(data)


def _declares_encoding(data: bytes) -> bool:
    return re.match(rb"<\?xml[^>]*?encoding=", data) is not None


def _as_utf8(data: bytes) -> bytes:
    # Undeclared non-UTF-8 text is, in practice, Windows-1252 from old tools.
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace").encode("utf-8")
    return data


def _parse_xml(head: bytes) -> Element:
    if _plainly_safe(head):
        try:
            return ElementTree.fromstring(head)
        except ParseError as exc:
            raise NfoError(f"NFO is not well-formed XML ({exc})") from exc
        except (ValueError, LookupError) as exc:
            raise NfoError("NFO has an unreadable encoding") from exc
    try:
        return defusedxml.ElementTree.fromstring(
            head, forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
    except defusedxml.DefusedXmlException as exc:
        raise NfoError("NFO declares a DTD, entities or external references") from exc
    except ParseError as exc:
        raise NfoError(f"NFO is not well-formed XML ({exc})") from exc
    except (ValueError, LookupError) as exc:
        raise NfoError("NFO has an unreadable encoding") from exc


def _plainly_safe(head: bytes) -> bool:
    """Whether the C parser may read ``head``: no DTD can be in it.

    Entity bombs and external entities need a DOCTYPE, which starts with
    ``<!``. Without NUL bytes the text is in a byte-per-ASCII-character
    encoding (UTF-8, Windows-1252), so searching the bytes for ``<!`` is
    exact. Anything else (comments, CDATA, UTF-16) takes defusedxml's
    pure-Python parser, which is about three times slower per file.
    """
    return b"<!" not in head and b"\x00" not in head


def _from_url_only(text: bytes, kind: NfoKind) -> NfoData:
    ids = _ids_in_urls(text)
    if not ids:
        raise NfoError("NFO is neither XML nor a provider URL")
    return NfoData(kind=kind, provider_ids=ids)


# NfoData field -> element, for plain texts, lists and episode numbers.
_TEXTS = {
    "title": "title", "original_title": "originaltitle", "sort_title": "sorttitle",
    "plot": "plot", "outline": "outline", "tagline": "tagline", "status": "status",
}  # fmt: skip
_LISTS = {"genres": "genre", "studios": "studio", "tags": "tag", "countries": "country"}
_EPISODE_NUMBERS = {
    "season_number": "season", "episode_number": "episode",
    "episode_number_end": "episodenumberend",
    "display_season": "displayseason", "display_episode": "displayepisode",
    "airs_before_season": "airsbefore_season",
    "airs_before_episode": "airsbefore_episode", "airs_after_season": "airsafter_season",
}  # fmt: skip


def _nfo_data(root: Element, kind: NfoKind, url_ids: dict[str, str]) -> NfoData:
    premiered = to_date(child_text(root, "aired" if kind == "episode" else "premiered"))
    if premiered is None and kind == "episode":
        premiered = to_date(child_text(root, "premiered"))
    ratings = _ratings(root)
    uniqueids, default_provider = _uniqueids(root)
    collection, collection_overview = _collection(root)
    community_rating, community_votes = _community_rating(root, ratings)
    fields: dict[str, Any] = {
        **{name: child_text(root, element) for name, element in _TEXTS.items()},
        **{name: texts(root, element) for name, element in _LISTS.items()},
        **_numbers(root, kind),
    }
    return NfoData(
        kind=kind,
        **fields,
        year=to_year(child_text(root, "year")) or (premiered.year if premiered else None),
        premiered=premiered,
        end_date=to_date(child_text(root, "enddate")),
        runtime_minutes=to_int(child_text(root, "runtime")),
        official_rating=official_rating(child_text(root, "mpaa")),
        ratings=ratings,
        community_rating=community_rating,
        community_votes=community_votes,
        critic_rating=to_float(child_text(root, "criticrating")),
        user_rating=to_float(child_text(root, "userrating")),
        provider_ids={**url_ids, **_legacy_ids(root, kind), **uniqueids},
        default_provider=default_provider,
        people=_people(root),
        collection=collection,
        collection_overview=collection_overview,
        trailers=_trailers(root),
        lock_data=to_flag(child_text(root, "lockdata")),
    )


def _numbers(root: Element, kind: NfoKind) -> dict[str, int | None]:
    if kind == "season":
        return {"season_number": to_int(child_text(root, "seasonnumber"))}
    if kind != "episode":
        return {}
    return {name: to_int(child_text(root, element)) for name, element in _EPISODE_NUMBERS.items()}


# -- ratings -------------------------------------------------------------


def _ratings(root: Element) -> tuple[NfoRating, ...]:
    found: list[NfoRating] = []
    for element in root.findall("ratings/rating"):
        value = to_float(child_text(element, "value"))
        maximum = to_float(element.get("max"))
        maximum = DEFAULT_RATING_MAX if maximum is None else maximum
        if value is None or not 0 <= value <= maximum or maximum <= 0:
            continue
        found.append(
            NfoRating(
                source=(element.get("name") or "").strip().lower() or "default",
                value=value,
                max=maximum,
                votes=to_votes(child_text(element, "votes")),
                is_default=to_flag(element.get("default")),
            )
        )
    return tuple(found)


def _community_rating(
    root: Element, ratings: tuple[NfoRating, ...]
) -> tuple[float | None, int | None]:
    default = next((r for r in ratings if r.is_default), None)
    legacy = to_float(child_text(root, "rating"))
    if default is None and legacy is not None and 0 <= legacy <= DEFAULT_RATING_MAX:
        return legacy, to_votes(child_text(root, "votes"))
    chosen = default or (ratings[0] if ratings else None)
    if chosen is None:
        return None, None
    return round(chosen.value * DEFAULT_RATING_MAX / chosen.max, 3), chosen.votes


# -- provider ids --------------------------------------------------------


def _uniqueids(root: Element) -> tuple[dict[str, str], str | None]:
    ids: dict[str, str] = {}
    default: str | None = None
    for element in root.findall("uniqueid"):
        provider = (element.get("type") or "").strip().lower()
        value = (element.text or "").strip()
        if not provider or not value:
            continue
        ids.setdefault(provider, value)
        if default is None and to_flag(element.get("default")):
            default = provider
    return ids, default


def _legacy_ids(root: Element, kind: NfoKind) -> dict[str, str]:
    ids: dict[str, str] = {}
    for element_name, provider in LEGACY_ID_ELEMENTS.items():
        value = child_text(root, element_name)
        if value:
            ids.setdefault(provider, value)
    plain = child_text(root, "id")
    if plain and re.fullmatch(r"tt\d+", plain):
        ids.setdefault("imdb", plain)
    elif plain and re.fullmatch(r"[0-9]+", plain):
        # Kodi's scrapers wrote TMDb ids for movies, TheTVDB ids for shows.
        ids.setdefault("tmdb" if kind == "movie" else "tvdb", plain)
    return ids


_URL_ID_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("imdb", re.compile(r"imdb\.com/(?:[a-z]{2}/)?title/(tt\d+)")),
    ("tmdb", re.compile(r"themoviedb\.org/(?:movie|tv)/(\d+)")),
    ("tvdb", re.compile(r"thetvdb\.com/\S*?[?&](?:series)?id=(\d+)")),
    ("tvdb", re.compile(r"thetvdb\.com/(?:dereferrer/)?series/(\d+)")),
)


def _ids_in_urls(text: bytes) -> dict[str, str]:
    decoded = text.decode("utf-8", errors="replace")
    ids: dict[str, str] = {}
    for provider, pattern in _URL_ID_PATTERNS:
        match = pattern.search(decoded)
        if match:
            ids.setdefault(provider, match.group(1))
    return ids


# -- people, collection, trailers -----------------------------------------

_CREDIT_ELEMENTS: tuple[tuple[str, PersonKind], ...] = (
    ("director", PersonKind.DIRECTOR), ("credits", PersonKind.WRITER),
    ("writer", PersonKind.WRITER), ("producer", PersonKind.PRODUCER),
)  # fmt: skip
_PERSON_KINDS = {kind.value.lower(): kind for kind in PersonKind}


def _people(root: Element) -> tuple[NfoPerson, ...]:
    people: list[NfoPerson] = []
    for element in root.findall("actor"):
        name = child_text(element, "name")
        if name:
            kind = _PERSON_KINDS.get((child_text(element, "type") or "").lower())
            role, order = child_text(element, "role"), to_int(child_text(element, "order"))
            thumb = child_text(element, "thumb")
            people.append(NfoPerson(name, kind or PersonKind.ACTOR, role, order, thumb))
    for element_name, kind in _CREDIT_ELEMENTS:
        for element in root.findall(element_name):
            named = child_text(element, "name") if len(element) else own_text(element)
            people.extend(NfoPerson(n, kind) for n in split_list([named]))
    return tuple(unique(people, key=lambda p: (p.kind, p.name.casefold())))


def _collection(root: Element) -> tuple[str | None, str | None]:
    element = root.find("set")
    if element is None:
        return None, None
    if len(element):
        return child_text(element, "name"), child_text(element, "overview")
    return own_text(element), None


def _trailers(root: Element) -> tuple[str, ...]:
    urls = (_trailer_url(own_text(e)) for e in root.findall("trailer"))
    return tuple(unique((u for u in urls if u), key=lambda u: u))


def _trailer_url(raw: str | None) -> str | None:
    if not raw:
        return None
    try:
        parts = urlsplit(raw)
    except ValueError:
        return None
    if parts.scheme == "plugin" and "youtube" in parts.netloc:
        query = parse_qs(parts.query)
        video = (query.get("videoid") or query.get("video_id") or [""])[0]
        return YOUTUBE_WATCH_URL + video if re.fullmatch(r"[\w-]+", video) else None
    if parts.scheme in ("http", "https") and parts.netloc:
        return raw
    return None
