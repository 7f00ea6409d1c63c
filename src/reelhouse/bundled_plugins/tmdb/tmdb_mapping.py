"""TMDB's JSON to the provider contract's pieces: people, images, ratings, certifications.

Pure functions (no I/O). Image URLs are absolute: the ``/configuration``
base URL, the size ``original`` (the server makes its own sizes), the
file path. Images are listed best first: for posters and logos the
language asked, then English, then text-free ones; for backdrops the
text-free ones first.
"""

from __future__ import annotations

from typing import Any

MAX_CAST = 50
MAX_IMAGES_PER_KIND = 10
# TMDB crew jobs -> PersonKind; other jobs are left out.
CREW_KINDS = {
    "Director": "Director",
    "Screenplay": "Writer", "Writer": "Writer", "Story": "Writer", "Teleplay": "Writer", "Novel": "Writer",
    "Author": "Writer", "Characters": "Writer",
    "Producer": "Producer", "Executive Producer": "Producer",
    "Original Music Composer": "Composer", "Music": "Composer", "Composer": "Composer",
}
# The region whose certification a language reads when its tag names none.
DEFAULT_REGION = {"en": "US", "zh": "CN", "fr": "FR", "de": "DE", "ja": "JP", "ko": "KR", "es": "ES", "it": "IT",
                  "ru": "RU", "pt": "BR", "nl": "NL", "sv": "SE"}
FALLBACK_REGION = "US"


def image_url(base: str, path: Any, size: str = "original") -> str | None:
    return f"{base}{size}{path}" if isinstance(path, str) and path.startswith("/") else None


def year_of(date: Any) -> int | None:
    if isinstance(date, str) and len(date) >= 4 and date[:4].isdigit():
        return int(date[:4])
    return None


def date_or_none(date: Any) -> str | None:
    return date[:10] if isinstance(date, str) and len(date) >= 10 else None


def names(rows: Any) -> list[str]:
    return [row["name"] for row in rows or [] if isinstance(row, dict) and isinstance(row.get("name"), str)]


def people(credits: Any, base: str, *, guests: Any = None) -> list[dict[str, Any]]:
    """Cast (``Actor``, with role and order), guest stars (``GuestStar``) and the crew that maps."""
    credits = credits if isinstance(credits, dict) else {}
    found: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()

    def add(row: Any, kind: str, role: str | None, order: int | None) -> None:
        if not isinstance(row, dict) or not row.get("name"):
            return
        key = (str(row.get("id")), kind, role or "")
        if key in seen:
            return  # TMDB lists a person once per credit; one line per role and kind is enough
        seen.add(key)
        person: dict[str, Any] = {"name": row["name"], "kind": kind}
        if role:
            person["role"] = role
        if order is not None:
            person["order"] = order
        if row.get("id") is not None:
            person["providerIds"] = {"tmdb": str(row["id"])}
        if (url := image_url(base, row.get("profile_path"))) is not None:
            person["imageUrl"] = url
        found.append(person)

    for index, row in enumerate((credits.get("cast") or [])[:MAX_CAST]):
        add(row, "Actor", row.get("character") if isinstance(row, dict) else None, _order(row, index))
    for index, row in enumerate((guests or [])[:MAX_CAST]):
        add(row, "GuestStar", row.get("character") if isinstance(row, dict) else None, _order(row, index))
    for row in credits.get("crew") or []:
        kind = CREW_KINDS.get(row.get("job")) if isinstance(row, dict) else None
        if kind is not None:
            add(row, kind, None, None)
    return found


def _order(row: Any, index: int) -> int:
    order = row.get("order") if isinstance(row, dict) else None
    return order if isinstance(order, int) and not isinstance(order, bool) else index


def images(block: Any, base: str, language: str) -> list[dict[str, Any]]:
    """Posters -> ``primary``, backdrops -> ``backdrop``, logos -> ``logo``, best first per kind."""
    block = block if isinstance(block, dict) else {}
    wanted = language.split("-")[0].lower()
    found: list[dict[str, Any]] = []
    for key, kind, text_free_first in (("posters", "primary", False), ("backdrops", "backdrop", True),
                                       ("logos", "logo", False)):
        rows = [row for row in block.get(key) or [] if isinstance(row, dict) and row.get("file_path")]
        rows.sort(key=lambda row: (_language_rank(row.get("iso_639_1"), wanted, text_free_first),
                                   -float(row.get("vote_average") or 0)))
        found.extend(image(kind, row, base) for row in rows[:MAX_IMAGES_PER_KIND])
    return found


def _language_rank(code: Any, wanted: str, text_free_first: bool) -> int:
    if text_free_first:
        return {None: 0, wanted: 1, "en": 2}.get(code, 3)
    return {wanted: 0, "en": 1, None: 2}.get(code, 3)


def image(kind: str, row: dict[str, Any], base: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": kind, "url": image_url(base, row["file_path"])}
    for key in ("width", "height"):
        if isinstance(row.get(key), int):
            entry[key] = row[key]
    if isinstance(row.get("iso_639_1"), str):
        entry["language"] = row["iso_639_1"]
    return entry


def single_image(kind: str, path: Any, base: str) -> list[dict[str, Any]]:
    url = image_url(base, path)
    return [{"kind": kind, "url": url}] if url else []


def rating(body: dict[str, Any]) -> tuple[float | None, list[dict[str, Any]]]:
    """The community rating (0..10) and the ``ratings`` entry; none without votes."""
    value, votes = body.get("vote_average"), body.get("vote_count")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not votes:
        return None, []
    value = round(min(max(float(value), 0.0), 10.0), 1)
    entry: dict[str, Any] = {"source": "tmdb", "value": value}
    if isinstance(votes, int):
        entry["votes"] = votes
    return value, [entry]


def region_of(language: str) -> str:
    parts = language.replace("_", "-").split("-")
    for part in parts[1:]:
        if len(part) == 2 and part.isalpha():
            return part.upper()
    return DEFAULT_REGION.get(parts[0].lower(), FALLBACK_REGION)


def movie_certification(release_dates: Any, language: str) -> str | None:
    """The language's region's certification (theatrical first), else the US one."""
    by_region: dict[str, list[dict[str, Any]]] = {}
    for entry in (release_dates or {}).get("results") or []:
        if isinstance(entry, dict) and isinstance(entry.get("release_dates"), list):
            by_region[entry.get("iso_3166_1")] = [row for row in entry["release_dates"] if isinstance(row, dict)]
    for region in dict.fromkeys((region_of(language), FALLBACK_REGION)):
        rows = sorted(by_region.get(region, []), key=lambda row: _RELEASE_TYPE_RANK.get(row.get("type"), 9))
        for row in rows:
            if isinstance(row.get("certification"), str) and row["certification"].strip():
                return row["certification"].strip()
    return None


_RELEASE_TYPE_RANK = {3: 0, 4: 1, 2: 2, 1: 3, 5: 4, 6: 5}  # theatrical, digital, limited, premiere, physical, TV


def series_certification(content_ratings: Any, language: str) -> str | None:
    by_region = {entry.get("iso_3166_1"): entry.get("rating")
                 for entry in (content_ratings or {}).get("results") or [] if isinstance(entry, dict)}
    for region in dict.fromkeys((region_of(language), FALLBACK_REGION)):
        value = by_region.get(region)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def compact(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` without empty values (absent reads as unknown in the contract)."""
    return {key: value for key, value in item.items() if value not in (None, "", [], {})}
