"""``metadata.details`` and ``metadata.season``: TMDB's records as ProviderItems.

Text comes in the language asked (``language``; empty reads as English).
TMDB leaves an untranslated overview or tagline empty (an untranslated
title is the original one): those fields are filled from the original
language, then from English, asking again only when something is missing.
"""

from __future__ import annotations

import threading
from typing import Any

import tmdb_mapping as mapping
from tmdb_client import ProviderError, TmdbClient

MOVIE_APPEND = "credits,images,external_ids,release_dates"
TV_APPEND = "credits,images,external_ids,content_ratings"
_ORIGINAL_LANGUAGES: dict[str, str] = {}  # series id -> original language, for seasons' fallback
_ORIGINAL_LOCK = threading.Lock()


def language_of(params: dict[str, Any]) -> str:
    language = params.get("language")
    return language.strip() if isinstance(language, str) and language.strip() else "en"


def _tmdb_id(value: Any, name: str) -> str:
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    if not text.isdigit():
        raise ValueError(f"{name} must be a TMDB id (digits)")
    return text


def fallback_languages(language: str, original: Any) -> list[str]:
    """Where missing text is looked for: the original language, then English, minus the one asked."""
    asked = language.lower()
    chain = [code for code in (original, "en") if isinstance(code, str) and code]
    return [code for code in dict.fromkeys(chain) if code.lower() != asked and not asked.startswith(code.lower() + "-")]


def _image_languages(language: str) -> str:
    return ",".join(dict.fromkeys((language.split("-")[0].lower(), "en", "null")))


def _fill(client: TmdbClient, path: str, body: dict[str, Any], language: str, fields: tuple[str, ...]) -> None:
    missing = [name for name in fields if not body.get(name)]
    for other_language in fallback_languages(language, body.get("original_language")):
        if not missing:
            return
        other = client.get(path, {"language": other_language})
        for name in list(missing):
            if other.get(name):
                body[name] = other[name]
                missing.remove(name)


def details(client: TmdbClient, params: dict[str, Any]) -> dict[str, Any]:
    """The ``metadata.details`` answer for ``{kind, providerItemId, language}``."""
    kind = params.get("kind")
    if kind not in ("movie", "series"):
        raise ValueError("details needs kind movie or series")
    tmdb_id = _tmdb_id(params.get("providerItemId"), "providerItemId")
    language = language_of(params)
    base = client.image_base()
    path = f"/movie/{tmdb_id}" if kind == "movie" else f"/tv/{tmdb_id}"
    body = client.get(path, {"language": language, "append_to_response": MOVIE_APPEND if kind == "movie" else TV_APPEND,
                             "include_image_language": _image_languages(language)})
    if kind == "movie":
        _fill(client, path, body, language, ("title", "overview", "tagline"))
        return {"item": movie_item(body, base, language)}
    with _ORIGINAL_LOCK:
        _ORIGINAL_LANGUAGES[tmdb_id] = str(body.get("original_language") or "")
    _fill(client, path, body, language, ("name", "overview", "tagline"))
    return {"item": series_item(body, base, language)}


def _provider_ids(body: dict[str, Any]) -> dict[str, str]:
    external = body.get("external_ids") if isinstance(body.get("external_ids"), dict) else {}
    ids = {"tmdb": str(body["id"])}
    imdb = external.get("imdb_id") or body.get("imdb_id")
    if isinstance(imdb, str) and imdb:
        ids["imdb"] = imdb
    if external.get("tvdb_id"):
        ids["tvdb"] = str(external["tvdb_id"])
    return ids


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def movie_item(body: dict[str, Any], base: str, language: str) -> dict[str, Any]:
    community, ratings = mapping.rating(body)
    return mapping.compact({
        "providerItemId": str(body["id"]),
        "name": body.get("title"), "originalTitle": body.get("original_title"),
        "overview": body.get("overview"), "tagline": body.get("tagline"),
        "productionYear": mapping.year_of(body.get("release_date")),
        "premiereDate": mapping.date_or_none(body.get("release_date")),
        "communityRating": community, "ratings": ratings,
        "officialRating": mapping.movie_certification(body.get("release_dates"), language),
        "runtimeMinutes": _positive(body.get("runtime")),
        "genres": mapping.names(body.get("genres")), "studios": mapping.names(body.get("production_companies")),
        "providerIds": _provider_ids(body),
        "people": mapping.people(body.get("credits"), base),
        "images": mapping.images(body.get("images"), base, language),
        "collection": _collection(body.get("belongs_to_collection")),
    })


def _collection(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict) or value.get("id") is None:
        return None
    return mapping.compact({"providerItemId": str(value["id"]), "name": value.get("name")})


def series_item(body: dict[str, Any], base: str, language: str) -> dict[str, Any]:
    community, ratings = mapping.rating(body)
    runtimes = [value for value in body.get("episode_run_time") or [] if _positive(value)]
    creators = [{"id": row.get("id"), "name": row.get("name"), "profile_path": row.get("profile_path"),
                 "job": "Writer"} for row in body.get("created_by") or [] if isinstance(row, dict)]
    credits = dict(body.get("credits") or {})
    credits["crew"] = [*creators, *(credits.get("crew") or [])]
    ended = body.get("status") in ("Ended", "Canceled")
    seasons = [row.get("season_number") for row in body.get("seasons") or [] if isinstance(row, dict)]
    return mapping.compact({
        "providerItemId": str(body["id"]),
        "name": body.get("name"), "originalTitle": body.get("original_name"),
        "overview": body.get("overview"), "tagline": body.get("tagline"),
        "productionYear": mapping.year_of(body.get("first_air_date")),
        "premiereDate": mapping.date_or_none(body.get("first_air_date")),
        "endDate": mapping.date_or_none(body.get("last_air_date")) if ended else None,
        "communityRating": community, "ratings": ratings,
        "officialRating": mapping.series_certification(body.get("content_ratings"), language),
        "runtimeMinutes": runtimes[0] if runtimes else None,
        "genres": mapping.names(body.get("genres")),
        "studios": list(dict.fromkeys(mapping.names(body.get("networks"))
                                      + mapping.names(body.get("production_companies")))),
        "providerIds": _provider_ids(body),
        "people": mapping.people(credits, base),
        "images": mapping.images(body.get("images"), base, language),
        "seasons": [number for number in seasons if isinstance(number, int) and not isinstance(number, bool)],
    })


def _series_original_language(client: TmdbClient, series_id: str) -> str:
    with _ORIGINAL_LOCK:
        known = _ORIGINAL_LANGUAGES.get(series_id)
    if known is None:
        known = str(client.get(f"/tv/{series_id}", {"language": "en"}).get("original_language") or "")
        with _ORIGINAL_LOCK:
            _ORIGINAL_LANGUAGES[series_id] = known
    return known


def season(client: TmdbClient, params: dict[str, Any]) -> dict[str, Any]:
    """The ``metadata.season`` answer for ``{seriesProviderItemId, seasonNumber, language}``."""
    series_id = _tmdb_id(params.get("seriesProviderItemId"), "seriesProviderItemId")
    number = params.get("seasonNumber")
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        raise ValueError("seasonNumber must be a whole number")
    language = language_of(params)
    base = client.image_base()
    path = f"/tv/{series_id}/season/{number}"
    body = client.get(path, {"language": language})
    episodes = [row for row in body.get("episodes") or [] if isinstance(row, dict) and "id" in row]
    if _season_missing_text(body, episodes):
        original = _series_original_language(client, series_id)
        for other_language in fallback_languages(language, original):
            other = client.get(path, {"language": other_language})
            _fill_season(body, episodes, other)
            if not _season_missing_text(body, episodes):
                break
    return {"item": season_item(body, base), "episodes": [episode_item(row, base) for row in episodes]}


def _season_missing_text(body: dict[str, Any], episodes: list[dict[str, Any]]) -> bool:
    return not body.get("overview") or any(not row.get("name") or not row.get("overview") for row in episodes)


def _fill_season(body: dict[str, Any], episodes: list[dict[str, Any]], other: dict[str, Any]) -> None:
    if not body.get("overview") and other.get("overview"):
        body["overview"] = other["overview"]
    by_number = {row.get("episode_number"): row for row in other.get("episodes") or [] if isinstance(row, dict)}
    for row in episodes:
        match = by_number.get(row.get("episode_number")) or {}
        for name in ("name", "overview"):
            if not row.get(name) and match.get(name):
                row[name] = match[name]


def season_item(body: dict[str, Any], base: str) -> dict[str, Any]:
    if "id" not in body:
        raise ProviderError("unknown", "TMDB's season has no id")
    return mapping.compact({
        "providerItemId": str(body["id"]), "name": body.get("name"), "overview": body.get("overview"),
        "indexNumber": body.get("season_number"),
        "productionYear": mapping.year_of(body.get("air_date")),
        "premiereDate": mapping.date_or_none(body.get("air_date")),
        "images": mapping.single_image("primary", body.get("poster_path"), base),
    })


def episode_item(row: dict[str, Any], base: str) -> dict[str, Any]:
    community, ratings = mapping.rating(row)
    return mapping.compact({
        "providerItemId": str(row["id"]), "name": row.get("name"), "overview": row.get("overview"),
        "indexNumber": row.get("episode_number"),
        "productionYear": mapping.year_of(row.get("air_date")),
        "premiereDate": mapping.date_or_none(row.get("air_date")),
        "runtimeMinutes": _positive(row.get("runtime")),
        "communityRating": community, "ratings": ratings,
        "providerIds": {"tmdb": str(row["id"])},
        "people": mapping.people({"crew": row.get("crew")}, base, guests=row.get("guest_stars")),
        "images": mapping.single_image("still", row.get("still_path"), base),
    })
