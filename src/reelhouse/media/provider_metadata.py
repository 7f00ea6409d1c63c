"""What a metadata provider plugin answers: the wire contract, parsed.

A provider plugin (capability ``metadata.movie`` and/or ``metadata.series``)
answers three methods over the plugin protocol (docs/plugins.md,
"Metadata providers"):

- ``metadata.search`` ``{kind, name, year?, language}`` ->
  ``{candidates: [Candidate...]}``, best first, each with a ``score``
  (0..1, the provider's confidence that it is the item);
- ``metadata.details`` ``{kind, providerItemId, language}`` ->
  ``{item: ProviderItem}`` for a movie or a series (a series lists its
  ``seasons`` by number);
- ``metadata.season`` ``{seriesProviderItemId, seasonNumber, language}`` ->
  ``{item: ProviderItem, episodes: [ProviderItem...]}`` (each episode with
  ``indexNumber``).

A movie's ProviderItem may name the provider's collection it belongs to
(``collection: {providerItemId, name?}``); ``metadata.person`` and
``metadata.collection`` (optional methods) are parsed in
:mod:`reelhouse.media.provider_people`.

``language`` is the library's ``metadataLanguage`` (BCP 47; empty = the
server default); the provider falls back to its original-language text
for fields it lacks in that language.  Everything here is pure: the
parsers turn the plugin's JSON into frozen dataclasses and reject what
does not fit with :class:`ProviderAnswerError`, so a buggy plugin fails
one item, never the queue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

SEARCH_METHOD = "metadata.search"
DETAILS_METHOD = "metadata.details"
SEASON_METHOD = "metadata.season"
KINDS = ("movie", "series")
IMAGE_KINDS = frozenset({"primary", "backdrop", "logo", "thumb", "banner", "art", "disc", "still"})
PERSON_KINDS = frozenset({"Actor", "Director", "Writer", "Producer", "GuestStar", "Composer"})
_MAX_LIST = 500  # more entries than any real answer holds: the rest are dropped


class ProviderAnswerError(ValueError):
    """The plugin's answer does not follow the contract."""


@dataclass(frozen=True, slots=True)
class Candidate:
    provider_item_id: str
    name: str
    score: float  # 0..1
    year: int | None = None
    overview: str | None = None
    image_url: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderPerson:
    name: str
    kind: str  # PersonKind
    role: str = ""
    order: int | None = None
    provider_ids: Mapping[str, str] = field(default_factory=dict)
    image_url: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderImage:
    kind: str  # ImageKind
    url: str
    width: int | None = None
    height: int | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderRating:
    source: str  # e.g. "tmdb"
    value: float  # on a 0..10 scale
    votes: int | None = None


@dataclass(frozen=True, slots=True)
class ProviderCollection:
    """The provider's collection (a film series) a movie belongs to."""

    provider_item_id: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderItem:
    provider_item_id: str
    name: str | None = None
    original_title: str | None = None
    overview: str | None = None
    tagline: str | None = None
    production_year: int | None = None
    premiere_date: date | None = None
    end_date: date | None = None
    community_rating: float | None = None  # 0..10
    critic_rating: float | None = None  # 0..100
    official_rating: str | None = None
    runtime_minutes: int | None = None
    genres: tuple[str, ...] = ()
    studios: tuple[str, ...] = ()
    provider_ids: Mapping[str, str] = field(default_factory=dict)
    people: tuple[ProviderPerson, ...] = ()
    images: tuple[ProviderImage, ...] = ()
    ratings: tuple[ProviderRating, ...] = ()
    index_number: int | None = None  # season or episode number
    seasons: tuple[int, ...] = ()  # a series' season numbers
    collection: ProviderCollection | None = None  # a movie's provider collection


def parse_candidates(answer: Any) -> list[Candidate]:
    """``metadata.search``'s answer, best first."""
    rows = _list(_object(answer, "answer").get("candidates"), "candidates")
    candidates = [_candidate(row) for row in rows]
    return sorted(candidates, key=lambda candidate: -candidate.score)


def parse_item(answer: Any) -> ProviderItem:
    """``metadata.details``'s answer."""
    return _item(_object(_object(answer, "answer").get("item"), "item"))


def parse_season(answer: Any) -> tuple[ProviderItem, list[ProviderItem]]:
    """``metadata.season``'s answer: the season and its episodes."""
    body = _object(answer, "answer")
    season = _item(_object(body.get("item"), "item"))
    episodes = [_item(_object(row, "episode")) for row in _list(body.get("episodes"), "episodes")]
    return season, episodes


def _candidate(row: Any) -> Candidate:
    row = _object(row, "candidate")
    score = _number(row.get("score"), "score")
    return Candidate(
        provider_item_id=_required_text(row.get("providerItemId"), "providerItemId"),
        name=_required_text(row.get("name"), "name"),
        score=min(max(score if score is not None else 0.0, 0.0), 1.0),
        year=_integer(row.get("year"), "year"),
        overview=_text(row.get("overview"), "overview"),
        image_url=_url(row.get("imageUrl"), "imageUrl"),
    )


def _item(row: Mapping[str, Any]) -> ProviderItem:
    return ProviderItem(
        provider_item_id=_required_text(row.get("providerItemId"), "providerItemId"),
        name=_text(row.get("name"), "name"),
        original_title=_text(row.get("originalTitle"), "originalTitle"),
        overview=_text(row.get("overview"), "overview"),
        tagline=_text(row.get("tagline"), "tagline"),
        production_year=_integer(row.get("productionYear"), "productionYear"),
        premiere_date=_date(row.get("premiereDate"), "premiereDate"),
        end_date=_date(row.get("endDate"), "endDate"),
        community_rating=_number(row.get("communityRating"), "communityRating"),
        critic_rating=_number(row.get("criticRating"), "criticRating"),
        official_rating=_text(row.get("officialRating"), "officialRating"),
        runtime_minutes=_integer(row.get("runtimeMinutes"), "runtimeMinutes"),
        genres=_texts(row.get("genres"), "genres"),
        studios=_texts(row.get("studios"), "studios"),
        provider_ids=_ids(row.get("providerIds"), "providerIds"),
        people=tuple(_person(person) for person in _list(row.get("people"), "people")),
        images=tuple(image for image in map(_image, _list(row.get("images"), "images")) if image is not None),
        ratings=tuple(_rating(rating) for rating in _list(row.get("ratings"), "ratings")),
        index_number=_integer(row.get("indexNumber"), "indexNumber"),
        seasons=tuple(_integer(n, "seasons") or 0 for n in _list(row.get("seasons"), "seasons")),
        collection=_collection(row.get("collection")),
    )


def _collection(value: Any) -> ProviderCollection | None:
    if value is None:
        return None
    row = _object(value, "collection")
    return ProviderCollection(_required_text(row.get("providerItemId"), "collection.providerItemId"),
                              _text(row.get("name"), "collection.name"))


def _person(row: Any) -> ProviderPerson:
    row = _object(row, "person")
    kind = _required_text(row.get("kind"), "kind")
    if kind not in PERSON_KINDS:
        raise ProviderAnswerError(f"person kind {kind!r} is not a PersonKind")
    return ProviderPerson(
        name=_required_text(row.get("name"), "name"),
        kind=kind,
        role=_text(row.get("role"), "role") or "",
        order=_integer(row.get("order"), "order"),
        provider_ids=_ids(row.get("providerIds"), "providerIds"),
        image_url=_url(row.get("imageUrl"), "imageUrl"),
    )


def _image(row: Any) -> ProviderImage | None:
    row = _object(row, "image")
    kind = _required_text(row.get("kind"), "kind")
    if kind not in IMAGE_KINDS:
        return None  # a kind we do not keep
    return ProviderImage(
        kind=kind,
        url=_url(row.get("url"), "url", required=True) or "",
        width=_integer(row.get("width"), "width"),
        height=_integer(row.get("height"), "height"),
        language=_text(row.get("language"), "language"),
    )


def _rating(row: Any) -> ProviderRating:
    row = _object(row, "rating")
    value = _number(row.get("value"), "value")
    if value is None:
        raise ProviderAnswerError("a rating needs a value")
    return ProviderRating(
        source=_required_text(row.get("source"), "source"), value=value, votes=_integer(row.get("votes"), "votes")
    )


def _object(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ProviderAnswerError(f"{name} must be an object")
    return value


def _list(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ProviderAnswerError(f"{name} must be a list")
    return value[:_MAX_LIST]


def _text(value: Any, name: str, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise ProviderAnswerError(f"{name} is required")
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # ids are often numbers upstream
    if not isinstance(value, str) or "\x00" in value:
        raise ProviderAnswerError(f"{name} must be a string")
    text = value.strip()
    if required and not text:
        raise ProviderAnswerError(f"{name} is required")
    return text or None


def _required_text(value: Any, name: str) -> str:
    text = _text(value, name, required=True)
    if text is None:  # _text has raised already; this tells the type checker
        raise ProviderAnswerError(f"{name} is required")
    return text


def _texts(value: Any, name: str) -> tuple[str, ...]:
    texts = (_text(entry, name) for entry in _list(value, name))
    return tuple(dict.fromkeys(text for text in texts if text))


def _ids(value: Any, name: str) -> Mapping[str, str]:
    if value is None:
        return {}
    pairs = _object(value, name).items()
    return {str(key): text for key, raw in pairs if (text := _text(raw, name))}


def _url(value: Any, name: str, *, required: bool = False) -> str | None:
    text = _text(value, name, required=required)
    if text is not None and not text.startswith(("http://", "https://")):
        raise ProviderAnswerError(f"{name} must be an http(s) URL")
    return text


def _number(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ProviderAnswerError(f"{name} must be a number")
    return float(value)


def _integer(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProviderAnswerError(f"{name} must be an integer")
    return value


def _date(value: Any, name: str) -> date | None:
    text = _text(value, name)
    if text is None:
        return None
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        raise ProviderAnswerError(f"{name} must be a date (YYYY-MM-DD)") from None
