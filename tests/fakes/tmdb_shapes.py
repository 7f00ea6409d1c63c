"""The fake TMDB's answers: catalogue records rendered in the v3 API's JSON shapes.

One language per answer, as TMDB does: ``language`` picks the texts
(the whole tag, then its base: ``en-US`` -> ``en``); an untranslated
title is the original title, an untranslated overview or tagline is
empty, a genre without a name in the language has its English name.
``include_image_language`` filters images (``null`` = images without
text); without it only the language's own images are listed.
"""

from __future__ import annotations

import re
from typing import Any

from .tmdb_catalogue import Catalogue, Collection, Credit, Episode, Image, Movie, Person, Season, Series

PAGE_SIZE = 20
_WORDS = re.compile(r"[\W_]+", re.UNICODE)


def texts_for(texts: dict[str, dict[str, str]], language: str) -> dict[str, str]:
    if language in texts:
        return texts[language]
    return texts.get(language.split("-")[0], {})


def _year(date: str) -> int | None:
    return int(date[:4]) if date else None


def _normal(text: str) -> str:
    return " ".join(_WORDS.sub(" ", text.casefold()).split())


def _names(record: Movie | Series) -> list[str]:
    key = "title" if isinstance(record, Movie) else "name"
    original = record.original_title if isinstance(record, Movie) else record.original_name
    return [original, *(texts.get(key, "") for texts in record.texts.values())]


def _index(catalogue: Catalogue, kind: str) -> list[tuple[Movie | Series, str]]:
    """Each record with its titles normalised, joined by a separator no query holds (built once)."""
    if kind not in catalogue.search_index:
        records: list[Movie | Series] = list(catalogue.movies.values() if kind == "movie" else catalogue.series.values())
        catalogue.search_index[kind] = [(record, "\n".join(map(_normal, _names(record)))) for record in records]
    return catalogue.search_index[kind]


def search(catalogue: Catalogue, kind: str, query: str, year: int | None, language: str) -> dict[str, Any]:
    """``/search/movie`` or ``/search/tv``: records whose any title contains the query, most popular first."""
    wanted = _normal(query)
    found = []
    for record, names in _index(catalogue, kind):
        date = record.release_date if isinstance(record, Movie) else record.first_air_date
        if year is not None and _year(date) != year:
            continue
        if wanted and wanted in names:
            found.append(record)
    found.sort(key=lambda record: -record.popularity)
    rows = [_search_row(catalogue, record, language) for record in found[:PAGE_SIZE]]
    pages = max(1, -(-len(found) // PAGE_SIZE))
    return {"page": 1, "results": rows, "total_pages": pages, "total_results": len(found)}


def _search_row(catalogue: Catalogue, record: Movie | Series, language: str) -> dict[str, Any]:
    texts = texts_for(record.texts, language)
    row: dict[str, Any] = {
        "id": record.id, "overview": texts.get("overview", ""), "popularity": record.popularity,
        "vote_average": record.vote_average, "vote_count": record.vote_count, "genre_ids": list(record.genre_ids),
        "original_language": record.original_language, "adult": False,
        "poster_path": _best_path(record.posters, language),
        "backdrop_path": _best_path(record.backdrops, language),
    }
    if isinstance(record, Movie):
        row |= {"title": texts.get("title") or record.original_title, "original_title": record.original_title,
                "release_date": record.release_date, "video": False}
    else:
        row |= {"name": texts.get("name") or record.original_name, "original_name": record.original_name,
                "first_air_date": record.first_air_date, "origin_country": ["US"]}
    return row


def _best_path(images: tuple[Image, ...], language: str) -> str | None:
    base = language.split("-")[0]
    ranked = sorted(images, key=lambda image: (image.language not in (base, None), image.language is None))
    return ranked[0].file_path if ranked else None


def _genres(catalogue: Catalogue, ids: tuple[int, ...], language: str) -> list[dict[str, Any]]:
    rows = []
    for genre_id in ids:
        names = catalogue.genres.get(genre_id, {})
        rows.append({"id": genre_id, "name": texts_for({k: {"n": v} for k, v in names.items()}, language).get("n")
                     or names.get("en", "")})
    return rows


def _images(images: tuple[Image, ...], languages: list[str | None]) -> list[dict[str, Any]]:
    return [{"aspect_ratio": round(image.width / image.height, 3), "file_path": image.file_path,
             "height": image.height, "width": image.width, "iso_639_1": image.language,
             "vote_average": image.vote_average, "vote_count": 3}
            for image in images if image.language in languages]


def image_languages(language: str, include: str | None) -> list[str | None]:
    if include is None:
        return [language.split("-")[0]]
    return [None if code.strip() == "null" else code.strip() for code in include.split(",")]


def _cast(catalogue: Catalogue, credits: tuple[Credit, ...]) -> list[dict[str, Any]]:
    rows = []
    for order, credit in enumerate(credits):
        person = catalogue.people[credit.person_id]
        rows.append({"id": person.id, "name": person.name, "original_name": person.name, "character": credit.character,
                     "order": order, "profile_path": person.profile_path, "credit_id": f"c{person.id}-{order}",
                     "known_for_department": person.department, "gender": 0, "adult": False})
    return rows


def _crew(catalogue: Catalogue, credits: tuple[Credit, ...]) -> list[dict[str, Any]]:
    rows = []
    for index, credit in enumerate(credits):
        person = catalogue.people[credit.person_id]
        rows.append({"id": person.id, "name": person.name, "original_name": person.name, "job": credit.job,
                     "department": credit.department, "profile_path": person.profile_path,
                     "credit_id": f"k{person.id}-{index}", "known_for_department": person.department})
    return rows


def _appended(catalogue: Catalogue, record: Movie | Series, append: set[str], languages: list[str | None]
              ) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if "credits" in append:
        extra["credits"] = {"id": record.id, "cast": _cast(catalogue, record.cast), "crew": _crew(catalogue, record.crew)}
    if "images" in append:
        extra["images"] = {"id": record.id, "posters": _images(record.posters, languages),
                           "backdrops": _images(record.backdrops, languages), "logos": _images(record.logos, languages)}
    if "external_ids" in append:
        ids: dict[str, Any] = {"id": record.id, "imdb_id": record.imdb_id, "wikidata_id": None, "facebook_id": None}
        if isinstance(record, Series):
            ids["tvdb_id"] = record.tvdb_id
        extra["external_ids"] = ids
    if "release_dates" in append and isinstance(record, Movie):
        extra["release_dates"] = {"id": record.id, "results": [
            {"iso_3166_1": region, "release_dates": [
                {"certification": rating, "iso_639_1": "", "note": "", "type": 3,
                 "release_date": f"{record.release_date}T00:00:00.000Z", "descriptors": []}]}
            for region, rating in record.certifications.items()]}
    if "content_ratings" in append and isinstance(record, Series):
        extra["content_ratings"] = {"id": record.id, "results": [
            {"iso_3166_1": region, "rating": rating, "descriptors": []}
            for region, rating in record.certifications.items()]}
    return extra


def movie(catalogue: Catalogue, record: Movie, language: str, append: set[str], include_images: str | None
          ) -> dict[str, Any]:
    """``/movie/{id}``."""
    texts = texts_for(record.texts, language)
    body: dict[str, Any] = {
        "id": record.id, "imdb_id": record.imdb_id, "title": texts.get("title") or record.original_title,
        "original_title": record.original_title, "original_language": record.original_language,
        "overview": texts.get("overview", ""), "tagline": texts.get("tagline", ""),
        "release_date": record.release_date, "runtime": record.runtime, "status": "Released",
        "popularity": record.popularity, "vote_average": record.vote_average, "vote_count": record.vote_count,
        "genres": _genres(catalogue, record.genre_ids, language), "adult": False, "budget": 0, "revenue": 0,
        "production_companies": [{"id": 1000 + i, "name": name, "logo_path": None, "origin_country": "US"}
                                 for i, name in enumerate(record.companies)],
        "poster_path": _best_path(record.posters, language), "backdrop_path": _best_path(record.backdrops, language),
        "homepage": "", "video": False, "belongs_to_collection": _belongs(catalogue, record, language),
    }
    return body | _appended(catalogue, record, append, image_languages(language, include_images))


def tv(catalogue: Catalogue, record: Series, language: str, append: set[str], include_images: str | None
       ) -> dict[str, Any]:
    """``/tv/{id}``."""
    texts = texts_for(record.texts, language)
    body: dict[str, Any] = {
        "id": record.id, "name": texts.get("name") or record.original_name, "original_name": record.original_name,
        "original_language": record.original_language, "overview": texts.get("overview", ""),
        "tagline": texts.get("tagline", ""), "first_air_date": record.first_air_date,
        "last_air_date": record.last_air_date, "episode_run_time": [record.episode_run_time], "status": "Ended",
        "popularity": record.popularity, "vote_average": record.vote_average, "vote_count": record.vote_count,
        "genres": _genres(catalogue, record.genre_ids, language), "in_production": False,
        "networks": [{"id": 170 + i, "name": name, "logo_path": None, "origin_country": "US"}
                     for i, name in enumerate(record.networks)],
        "production_companies": [], "number_of_seasons": len(record.seasons),
        "number_of_episodes": sum(len(s.episodes) for s in record.seasons),
        "seasons": [_season_summary(season, language) for season in record.seasons],
        "created_by": [], "poster_path": _best_path(record.posters, language),
        "backdrop_path": _best_path(record.backdrops, language),
    }
    return body | _appended(catalogue, record, append, image_languages(language, include_images))


def _season_summary(season: Season, language: str) -> dict[str, Any]:
    texts = texts_for(season.texts, language)
    return {"id": 3000 + season.number, "season_number": season.number, "air_date": season.air_date,
            "episode_count": len(season.episodes), "name": texts.get("name") or f"Season {season.number}",
            "overview": texts.get("overview", ""), "poster_path": season.poster_path, "vote_average": 0}


def season(catalogue: Catalogue, show: Series, record: Season, language: str) -> dict[str, Any]:
    """``/tv/{id}/season/{n}``."""
    return _season_summary(record, language) | {
        "_id": f"s{show.id}-{record.number}",
        "episodes": [_episode(catalogue, show, record, episode, language) for episode in record.episodes],
    }


def _episode(catalogue: Catalogue, show: Series, record: Season, episode: Episode, language: str) -> dict[str, Any]:
    texts = texts_for(episode.texts, language)
    return {"id": show.id * 1000 + record.number * 100 + episode.number, "show_id": show.id,
            "season_number": record.number, "episode_number": episode.number, "episode_type": "standard",
            "name": texts.get("name", ""), "overview": texts.get("overview", ""), "air_date": episode.air_date,
            "runtime": episode.runtime, "still_path": episode.still_path, "vote_average": episode.vote_average,
            "vote_count": 40, "production_code": "", "crew": _crew(catalogue, episode.crew),
            "guest_stars": _cast(catalogue, episode.guest_stars)}


def configuration(image_base: str) -> dict[str, Any]:
    """``/configuration``: image URLs point back at the fake."""
    return {"images": {"base_url": image_base, "secure_base_url": image_base,
                       "backdrop_sizes": ["w300", "w780", "w1280", "original"],
                       "logo_sizes": ["w45", "w92", "w154", "w185", "w300", "w500", "original"],
                       "poster_sizes": ["w92", "w154", "w185", "w342", "w500", "w780", "original"],
                       "profile_sizes": ["w45", "w185", "h632", "original"],
                       "still_sizes": ["w92", "w185", "w300", "original"]},
            "change_keys": ["adult", "images", "overview", "title"]}


def error(status_code: int, message: str) -> dict[str, Any]:
    return {"success": False, "status_code": status_code, "status_message": message}


def _belongs(catalogue: Catalogue, record: Movie, language: str) -> dict[str, Any] | None:
    found = catalogue.collections.get(record.collection_id) if record.collection_id is not None else None
    if found is None:
        return None
    return {"id": found.id, "name": texts_for(found.texts, language).get("name", ""),
            "poster_path": found.poster_path, "backdrop_path": found.backdrop_path}


def person(record: Person, language: str) -> dict[str, Any]:
    """``/person/{id}``: an untranslated biography is empty, as on TMDB."""
    return {
        "id": record.id, "name": record.name, "known_for_department": record.department,
        "biography": texts_for(record.biography, language).get("biography", "") if record.biography else "",
        "birthday": record.birthday, "deathday": None, "place_of_birth": record.place_of_birth,
        "profile_path": record.profile_path, "imdb_id": None, "homepage": None, "adult": False,
    }


def collection(catalogue: Catalogue, record: Collection, language: str) -> dict[str, Any]:
    """``/collection/{id}`` with its parts."""
    texts = texts_for(record.texts, language)
    parts = [{"id": m.id, "title": texts_for(m.texts, language).get("title") or m.original_title,
              "release_date": m.release_date} for m in catalogue.movies.values() if m.collection_id == record.id]
    return {"id": record.id, "name": texts.get("name", ""), "overview": texts.get("overview", ""),
            "poster_path": record.poster_path, "backdrop_path": record.backdrop_path, "parts": parts}
