"""A provider's person and collection records: the optional methods, parsed.

Two methods a metadata provider plugin may answer besides those of
:mod:`reelhouse.media.provider_metadata` (docs/plugins.md, "Metadata
providers"); a plugin that does not (JSON-RPC "unknown method") simply has
nothing to give:

- ``metadata.person`` ``{providerItemId, language}`` -> ``{person:
  ProviderPersonDetails}``: the person's ``name``, ``overview`` (a
  biography), ``birthDate``, ``deathDate`` (YYYY-MM-DD), ``birthPlace``,
  ``homepage``, ``imageUrl`` (a picture) and ``providerIds``;
- ``metadata.collection`` ``{providerItemId, language}`` -> ``{item:
  ProviderItem}``: the collection's ``name``, ``overview`` and ``images``.

Pure: the plugin's JSON in, frozen dataclasses out, or
:class:`~reelhouse.media.provider_metadata.ProviderAnswerError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final

from .provider_metadata import (
    ProviderItem,
    _date,
    _ids,
    _object,
    _text,
    _url,
    parse_item,
)

PERSON_METHOD: Final = "metadata.person"
COLLECTION_METHOD: Final = "metadata.collection"
MAX_OVERVIEW = 20_000  # characters kept of a biography


@dataclass(frozen=True, slots=True)
class ProviderPersonDetails:
    name: str | None = None
    overview: str | None = None
    birth_date: date | None = None
    death_date: date | None = None
    birth_place: str | None = None
    homepage: str | None = None
    image_url: str | None = None
    provider_ids: Mapping[str, str] = field(default_factory=dict)

    def details_json(self) -> dict[str, str]:
        """The ``people.details`` column: what is known, by the Person JSON's names."""
        found = {
            "birthDate": self.birth_date.isoformat() if self.birth_date else None,
            "deathDate": self.death_date.isoformat() if self.death_date else None,
            "birthPlace": self.birth_place,
            "homepage": self.homepage,
        }
        return {key: value for key, value in found.items() if value}

    @property
    def empty(self) -> bool:
        return not (self.overview or self.image_url or self.details_json())


def parse_person(answer: Any) -> ProviderPersonDetails:
    """``metadata.person``'s answer."""
    row = _object(_object(answer, "answer").get("person"), "person")
    overview = _text(row.get("overview"), "overview")
    return ProviderPersonDetails(
        name=_text(row.get("name"), "name"),
        overview=overview[:MAX_OVERVIEW] if overview else None,
        birth_date=_date(row.get("birthDate"), "birthDate"),
        death_date=_date(row.get("deathDate"), "deathDate"),
        birth_place=_text(row.get("birthPlace"), "birthPlace"),
        homepage=_url(row.get("homepage"), "homepage"),
        image_url=_url(row.get("imageUrl"), "imageUrl"),
        provider_ids=_ids(row.get("providerIds"), "providerIds"),
    )


def parse_collection(answer: Any) -> ProviderItem:
    """``metadata.collection``'s answer (a ProviderItem: name, overview, images)."""
    return parse_item(answer)
