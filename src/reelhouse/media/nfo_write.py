"""Rendering an NFO: the writer side of :mod:`reelhouse.media.nfo`.

:func:`render_nfo` turns an :class:`NfoData` into the bytes of a Kodi NFO
that :func:`reelhouse.media.nfo.parse_nfo` reads back to the same values
(UTF-8, with an XML declaration, elements lower case as Kodi writes them).
Values containing the list separator `` / `` are written as they are
(the parser would split them: a genre named ``Action / Comedy`` reads back
as two).  People: actors (and guest stars, composers) as ``<actor>`` with
their ``<type>``; directors, writers (``<credits>``) and producers as their
own elements, after the actors, so people in that order read back in it.

:func:`nfo_from_provider` makes the NfoData of a provider's answer, as
writeBack writes it.  Pure: no file access.
"""

from __future__ import annotations

from collections.abc import Mapping
from xml.etree import ElementTree
from xml.etree.ElementTree import Element, SubElement

from reelhouse.media.nfo import DEFAULT_RATING_MAX, ROOT_ELEMENTS, NfoData, NfoKind, NfoPerson, NfoRating, PersonKind
from reelhouse.media.provider_metadata import ProviderItem

_OWN_ELEMENTS: Mapping[PersonKind, str] = {
    PersonKind.DIRECTOR: "director", PersonKind.WRITER: "credits", PersonKind.PRODUCER: "producer",
}  # fmt: skip
_EPISODE_NUMBERS = (
    ("season_number", "season"), ("episode_number", "episode"), ("episode_number_end", "episodenumberend"),
)  # fmt: skip


def render_nfo(data: NfoData) -> bytes:
    """The NFO document of ``data`` (UTF-8 bytes)."""
    root = Element(ROOT_ELEMENTS[data.kind])
    _texts(root, data)
    _numbers(root, data)
    lists = (("genre", data.genres), ("studio", data.studios), ("tag", data.tags), ("country", data.countries))
    for name, values in lists:
        for value in values:
            _add(root, name, value)
    _ratings(root, data.ratings)
    if data.critic_rating is not None:
        _add(root, "criticrating", _number(data.critic_rating))
    for provider, value in sorted(data.provider_ids.items()):
        element = _add(root, "uniqueid", value)
        element.set("type", provider)
        if provider == data.default_provider:
            element.set("default", "true")
    _people(root, data.people)
    if data.collection:
        collection = SubElement(root, "set")
        _add(collection, "name", data.collection)
        if data.collection_overview:
            _add(collection, "overview", data.collection_overview)
    for url in data.trailers:
        _add(root, "trailer", url)
    if data.lock_data:
        _add(root, "lockdata", "true")
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def _texts(root: Element, data: NfoData) -> None:
    premiered = data.premiered.isoformat() if data.premiered else None
    for name, value in (
        ("title", data.title), ("originaltitle", data.original_title), ("sorttitle", data.sort_title),
        ("plot", data.plot), ("outline", data.outline), ("tagline", data.tagline),
        ("year", str(data.year) if data.year else None),
        ("aired" if data.kind == "episode" else "premiered", premiered),
        ("enddate", data.end_date.isoformat() if data.end_date else None),
        ("runtime", str(data.runtime_minutes) if data.runtime_minutes else None),
        ("mpaa", data.official_rating), ("status", data.status),
    ):  # fmt: skip
        if value:
            _add(root, name, value)


def _numbers(root: Element, data: NfoData) -> None:
    if data.kind == "season" and data.season_number is not None:
        _add(root, "seasonnumber", str(data.season_number))
    if data.kind == "episode":
        for attr, name in _EPISODE_NUMBERS:
            value = getattr(data, attr)
            if value is not None:
                _add(root, name, str(value))


def _ratings(root: Element, ratings: tuple[NfoRating, ...]) -> None:
    if not ratings:
        return
    container = SubElement(root, "ratings")
    for rating in ratings:
        element = SubElement(container, "rating")
        element.set("name", rating.source)
        element.set("max", _number(rating.max))
        if rating.is_default:
            element.set("default", "true")
        _add(element, "value", _number(rating.value))
        if rating.votes is not None:
            _add(element, "votes", str(rating.votes))


def _people(root: Element, people: tuple[NfoPerson, ...]) -> None:
    for person in people:
        if person.kind in _OWN_ELEMENTS:
            continue
        actor = SubElement(root, "actor")
        _add(actor, "name", person.name)
        if person.role:
            _add(actor, "role", person.role)
        if person.order is not None:
            _add(actor, "order", str(person.order))
        if person.kind is not PersonKind.ACTOR:
            _add(actor, "type", person.kind.value)
        if person.thumb:
            _add(actor, "thumb", person.thumb)
    for kind, element_name in _OWN_ELEMENTS.items():
        for person in people:
            if person.kind is kind:
                _add(root, element_name, person.name)


def _add(parent: Element, name: str, text: str) -> Element:
    element = SubElement(parent, name)
    element.text = text
    return element


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def nfo_from_provider(
    kind: NfoKind, answer: ProviderItem, *, title: str | None, season: int | None = None, episode: int | None = None,
    episode_end: int | None = None, default_provider: str | None = None,
) -> NfoData:  # fmt: skip
    """What writeBack writes for ``answer``: its fields, ids, people and ratings.

    ``title`` stands in when the answer has no name; ``season``/``episode``
    numbers are the item's (a season NFO takes ``season``).
    """
    ratings = tuple(
        NfoRating(r.source.lower(), r.value, DEFAULT_RATING_MAX, r.votes, is_default=n == 0)
        for n, r in enumerate(answer.ratings)
        if 0 <= r.value <= DEFAULT_RATING_MAX
    )
    if not ratings and answer.community_rating is not None and 0 <= answer.community_rating <= DEFAULT_RATING_MAX:
        ratings = (NfoRating("default", answer.community_rating, DEFAULT_RATING_MAX, is_default=True),)
    people = [NfoPerson(p.name, PersonKind(p.kind), p.role or None, p.order) for p in answer.people]
    people.sort(key=lambda p: p.kind in _OWN_ELEMENTS)  # stable: actors first, as they read back
    return NfoData(
        kind=kind,
        title=answer.name or title,
        original_title=answer.original_title,
        year=answer.production_year,
        premiered=answer.premiere_date,
        end_date=answer.end_date,
        plot=answer.overview,
        tagline=answer.tagline,
        runtime_minutes=answer.runtime_minutes,
        official_rating=answer.official_rating,
        genres=answer.genres,
        studios=answer.studios,
        ratings=ratings,
        critic_rating=answer.critic_rating,
        provider_ids={key.lower(): value for key, value in answer.provider_ids.items()},
        default_provider=default_provider,
        people=tuple(people),
        season_number=season if kind in ("season", "episode") else None,
        episode_number=episode if kind == "episode" else None,
        episode_number_end=episode_end if kind == "episode" else None,
    )
