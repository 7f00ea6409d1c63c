"""``metadata.person`` and ``metadata.collection``: TMDB's people and collections.

A person's biography in the language asked, else in English (TMDB leaves
an untranslated biography empty); a collection's name and overview the
same way, with its poster and backdrop.
"""

from __future__ import annotations

from typing import Any

import tmdb_mapping as mapping
from tmdb_client import TmdbClient
from tmdb_items import language_of


def _tmdb_id(value: Any) -> str:
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    if not text.isdigit():
        raise ValueError("providerItemId must be a TMDB id (digits)")
    return text


def _english_fallback(client: TmdbClient, path: str, body: dict[str, Any], language: str,
                      fields: tuple[str, ...]) -> None:
    if language.lower().startswith("en") or all(body.get(name) for name in fields):
        return
    other = client.get(path, {"language": "en"})
    for name in fields:
        if not body.get(name) and other.get(name):
            body[name] = other[name]


def person(client: TmdbClient, params: dict[str, Any]) -> dict[str, Any]:
    """The ``metadata.person`` answer for ``{providerItemId, language}``."""
    tmdb_id = _tmdb_id(params.get("providerItemId"))
    language = language_of(params)
    path = f"/person/{tmdb_id}"
    body = client.get(path, {"language": language})
    _english_fallback(client, path, body, language, ("biography",))
    ids = {"tmdb": tmdb_id}
    if isinstance(body.get("imdb_id"), str) and body["imdb_id"]:
        ids["imdb"] = body["imdb_id"]
    homepage = body.get("homepage")
    return {"person": mapping.compact({
        "name": body.get("name"), "overview": body.get("biography"),
        "birthDate": mapping.date_or_none(body.get("birthday")),
        "deathDate": mapping.date_or_none(body.get("deathday")),
        "birthPlace": body.get("place_of_birth"),
        "homepage": homepage if isinstance(homepage, str) and homepage.startswith(("http://", "https://")) else None,
        "imageUrl": mapping.image_url(client.image_base(), body.get("profile_path")),
        "providerIds": ids,
    })}


def collection(client: TmdbClient, params: dict[str, Any]) -> dict[str, Any]:
    """The ``metadata.collection`` answer for ``{providerItemId, language}``."""
    tmdb_id = _tmdb_id(params.get("providerItemId"))
    language = language_of(params)
    path = f"/collection/{tmdb_id}"
    body = client.get(path, {"language": language})
    _english_fallback(client, path, body, language, ("name", "overview"))
    base = client.image_base()
    images = [*mapping.single_image("primary", body.get("poster_path"), base),
              *mapping.single_image("backdrop", body.get("backdrop_path"), base)]
    return {"item": mapping.compact({
        "providerItemId": tmdb_id, "name": body.get("name"), "overview": body.get("overview"),
        "providerIds": {"tmdb": tmdb_id}, "images": images,
    })}
