"""``metadata.search``: TMDB's search, each candidate with a confidence ``score`` (0..1).

The score weighs how close the title is (the better of the title in the
language asked and the original title), whether the year matches, and the
candidate's popularity relative to the best one:

- with a year: 0.6 title + 0.3 year + 0.1 popularity, so the exact title
  of the right year scores at least 0.9;
- without one: 0.85 title + 0.15 popularity;
- a candidate with a rival as close on title and year (two films of the
  same name, no year to tell them apart) is capped at 0.7: neither is
  confident (the scrape queue asks for 0.85 and a lead of 0.1).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Any

from tmdb_client import TmdbClient

MAX_CANDIDATES = 10
AMBIGUOUS_CAP = 0.7
RIVAL_MARGIN = 0.05
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalise(title: str) -> str:
    """Lower case, accents and punctuation dropped, ``&`` read as ``and``."""
    text = unicodedata.normalize("NFKD", title.casefold().replace("&", " and "))
    text = "".join(char for char in text if not unicodedata.combining(char))
    return " ".join(_NOT_WORD.sub(" ", text).split())


def similarity(query: str, *titles: str) -> float:
    wanted = normalise(query)
    ratios = [difflib.SequenceMatcher(None, wanted, normalise(title)).ratio() for title in titles if title]
    return max(ratios, default=0.0)


def year_match(wanted: int | None, found: int | None) -> float:
    if wanted is None:
        return 0.0
    if found is None:
        return 0.3
    return {0: 1.0, 1: 0.6}.get(abs(wanted - found), 0.0)


def scores(query: str, year: int | None, rows: list[dict[str, Any]], kind: str) -> list[float]:
    """One score per search row (same order)."""
    title_key, original_key = ("title", "original_title") if kind == "movie" else ("name", "original_name")
    titles = [similarity(query, str(row.get(title_key) or ""), str(row.get(original_key) or "")) for row in rows]
    years = [year_match(year, _year(row, kind)) for row in rows]
    popularity = [float(row.get("popularity") or 0.0) for row in rows]
    top = max(popularity, default=0.0) or 1.0
    result = []
    for index, (title, when) in enumerate(zip(titles, years, strict=True)):
        relative = popularity[index] / top
        score = 0.6 * title + 0.3 * when + 0.1 * relative if year is not None else 0.85 * title + 0.15 * relative
        rivals = [other for other in range(len(rows)) if other != index
                  and titles[other] >= title - RIVAL_MARGIN and abs(years[other] - when) <= RIVAL_MARGIN]
        if rivals:
            score = min(score, AMBIGUOUS_CAP)
        result.append(round(min(max(score, 0.0), 1.0), 4))
    return result


def _year(row: dict[str, Any], kind: str) -> int | None:
    date = row.get("release_date" if kind == "movie" else "first_air_date")
    if isinstance(date, str) and len(date) >= 4 and date[:4].isdigit():
        return int(date[:4])
    return None


def search(client: TmdbClient, params: dict[str, Any]) -> dict[str, Any]:
    """The ``metadata.search`` answer for ``{kind, name, year?, language}``."""
    kind = params.get("kind")
    name = params.get("name")
    if kind not in ("movie", "series") or not isinstance(name, str) or not name.strip():
        raise ValueError("search needs kind (movie or series) and a name")
    year = params.get("year") if isinstance(params.get("year"), int) else None
    language = params.get("language") or "en"
    path = "/search/movie" if kind == "movie" else "/search/tv"
    year_key = "year" if kind == "movie" else "first_air_date_year"
    query = {"query": name.strip(), "language": language, "include_adult": "false"}
    rows = _results(client.get(path, {**query, year_key: year})) if year is not None else []
    if not rows:  # no year, or the file's year is off: every year, the score weighs it
        rows = _results(client.get(path, query))
    rows = rows[:MAX_CANDIDATES]
    image_base = client.image_base() if any(row.get("poster_path") for row in rows) else ""
    candidates = []
    for row, score in zip(rows, scores(name, year, rows, "movie" if kind == "movie" else "tv"), strict=True):
        title = row.get("title" if kind == "movie" else "name") or row.get("original_title") or row.get("original_name")
        if not title:
            continue  # nothing to show the user
        candidate: dict[str, Any] = {
            "providerItemId": str(row["id"]),
            "name": title,
            "score": score,
            "year": _year(row, "movie" if kind == "movie" else "tv"),
            "overview": row.get("overview") or None,
        }
        if row.get("poster_path"):
            candidate["imageUrl"] = f"{image_base}w500{row['poster_path']}"
        candidates.append({key: value for key, value in candidate.items() if value is not None})
    candidates.sort(key=lambda candidate: -candidate["score"])
    return {"candidates": candidates}


def _results(body: dict[str, Any]) -> list[dict[str, Any]]:
    rows = body.get("results")
    return [row for row in rows if isinstance(row, dict) and "id" in row] if isinstance(rows, list) else []
