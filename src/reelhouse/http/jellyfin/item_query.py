"""Jellyfin's item query (``GET /Items``) as the native one (``GET /items``): a translation.

Parameter names are case-insensitive (as Jellyfin's); ``args`` here are
keyed in lower case (:func:`lowered_args`).  What maps:

- ``ParentId``: a library's GUID is that library, any other an item's;
  ``Recursive``; ``Ids`` (comma-separated GUIDs); ``PersonIds``;
- ``IncludeItemTypes`` / ``ExcludeItemTypes``: our item types are
  Jellyfin's names; a type we never hold (``Audio``, ``Playlist``...) is
  dropped, and a query for only such types matches nothing;
- ``SortBy`` (comma-separated; the first we know decides) and
  ``SortOrder``; ``StartIndex`` and ``Limit`` (at most the native
  :data:`MAX_LIMIT` a page, also without a ``Limit``);
- ``SearchTerm``, ``Genres`` (``|``-separated), ``Years``, ``IsPlayed``,
  ``IsFavorite``, ``Filters`` (``IsPlayed``, ``IsUnplayed``,
  ``IsFavorite``; ``IsResumable`` is answered from the watch state);
- ``EnableTotalRecordCount`` (default true) asks for the native total.

A value Jellyfin itself would refuse is 400 here too, naming the
parameter: a ``StartIndex`` or ``Limit`` that is not a whole number 0 or
more, a boolean other than true/false, and what the native query refuses
(``Years`` that are not years, ``Ids`` that are not ids), in the client's
own parameter names.  Names in the comma-separated lists (types, sorts,
sort orders, filters) that mean nothing here are skipped, as Jellyfin's
own binder skips the ones it cannot read (an Emby app's sort name, a typo:
the list's other names still apply).  Other parameters are ignored, as
Jellyfin ignores what it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reelhouse import errors
from reelhouse.storage.item_query import ItemQuery, parse_item_query

from . import ids

MAX_LIMIT = 200
KNOWN_TYPES = frozenset({"Movie", "Series", "Season", "Episode", "Folder", "BoxSet", "Video"})
_TYPE_BY_LOWER = {name.lower(): name for name in KNOWN_TYPES}
# The native query's parameters -> Jellyfin's, for the native query's 400s.
JELLYFIN_NAMES = {"year": "Years", "ids": "Ids", "personId": "PersonIds", "genreId": "Genres", "q": "SearchTerm",
                  "parentId": "ParentId", "limit": "Limit", "offset": "StartIndex"}  # fmt: skip
SORTS = {
    "sortname": "name", "name": "name", "datecreated": "dateAdded", "premieredate": "premiereDate",
    "productionyear": "year", "communityrating": "rating", "criticrating": "criticRating",
    "runtime": "runtime", "dateplayed": "datePlayed", "playcount": "playCount", "isplayed": "played",
    "isfavoriteorliked": "favorite", "random": "random", "officialrating": "officialRating",
    "datelastcontentadded": "lastContentAdded", "seriessortname": "seriesName",
    "seriesdateplayed": "seriesDatePlayed", "indexnumber": "index", "parentindexnumber": "index",
    "airedepisodeorder": "index", "path": "path",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Translated:
    """The native query, or ``empty`` when the Jellyfin query can match nothing here."""

    query: ItemQuery | None
    start_index: int
    resumable_only: bool = False

    @property
    def empty(self) -> bool:
        return self.query is None


def lowered_args(args: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """Query parameters keyed in lower case; of a name sent twice, the last value."""
    pairs = args.items() if isinstance(args, Mapping) else args
    return {name.lower(): value for name, value in pairs}


def split(value: str | None, separator: str = ",") -> list[str]:
    return [part.strip() for part in (value or "").split(separator) if part.strip()]


def translate(
    args: Mapping[str, str], library_ids: Iterable[str], defaults: Mapping[str, str] | None = None
) -> Translated:
    """The native query for Jellyfin's ``args`` (lower-case keys); ``defaults`` fill absent ones."""
    merged = {**(defaults or {}), **args}
    params: dict[str, list[str]] = {}
    start = count(merged, "startindex", "StartIndex", 0)
    limit = min(count(merged, "limit", "Limit", MAX_LIMIT), MAX_LIMIT)
    total = flag(merged, "enabletotalrecordcount", "EnableTotalRecordCount", default=True)
    if not item_types(merged, params):
        return Translated(None, start)
    _scope(merged, params, frozenset(library_ids))
    _sorting(merged, params)
    resumable = _filters(merged, params)
    if limit == 0:
        return Translated(None, start)
    params["limit"] = [str(limit)]
    if start:
        params["offset"] = [str(start)]
    if total:
        params["includeTotal"] = ["true"]
    return Translated(native_query(params), start, resumable)


def native_query(params: Mapping[str, list[str]]) -> ItemQuery:
    """``parse_item_query``, its 400s naming the client's parameter rather than ours."""
    try:
        return parse_item_query(params)
    except errors.Invalid as error:
        field = error.params.get("field")
        theirs = JELLYFIN_NAMES.get(field, field) if isinstance(field, str) else None
        if theirs is None or theirs == field:
            raise
        raise errors.Invalid(f"{theirs}: {error.message}", field=theirs) from None


def count(args: Mapping[str, str], key: str, name: str, default: int) -> int:
    """A whole number 0 or more (``StartIndex``, ``Limit``); ``default`` when absent or empty; else 400."""
    value = args.get(key, "").strip()
    if not value:
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 10:
        raise errors.Invalid(f"{name} must be a whole number, 0 or more (got {value[:40]!r}).", field=name)
    return int(value)


def flag(args: Mapping[str, str], key: str, name: str, default: bool | None = None) -> bool | None:
    """``true`` / ``false`` in any case; ``default`` when absent or empty; else 400."""
    value = args.get(key, "").strip().lower()
    if not value:
        return default
    if value not in ("true", "false"):
        raise errors.Invalid(f"{name} must be true or false (got {value[:40]!r}).", field=name)
    return value == "true"


def item_types(args: Mapping[str, str], params: dict[str, list[str]]) -> bool:
    """``IncludeItemTypes`` and ``ExcludeItemTypes`` as the native ``type`` and ``excludeType`` in ``params``;
    False when only types we never hold are asked for."""
    asked = split(args.get("includeitemtypes"))
    known = [_TYPE_BY_LOWER[t.lower()] for t in asked if t.lower() in _TYPE_BY_LOWER]
    if asked and not known:
        return False
    if known:
        params["type"] = known
    avoided = split(args.get("excludeitemtypes"))
    excluded = [_TYPE_BY_LOWER[t.lower()] for t in avoided if t.lower() in _TYPE_BY_LOWER]
    if excluded:
        params["excludeType"] = excluded
    return True


def _scope(args: Mapping[str, str], params: dict[str, list[str]], library_ids: frozenset[str]) -> None:
    parent = args.get("parentid")
    if parent:
        params["parentId"] = [parent_id(parent, library_ids)]
    if flag(args, "recursive", "Recursive"):
        params["recursive"] = ["true"]
    if wanted := split(args.get("ids")):
        params["ids"] = [",".join(ids.item_id(value) for value in wanted)]
    if people := split(args.get("personids")):
        params["personId"] = [ids.item_id(value) for value in people]
    if term := args.get("searchterm", "").strip():
        params["q"] = [term]
    if genres := split(args.get("genres"), "|"):
        params["genreId"] = genres
    if years := split(args.get("years")):
        params["year"] = years


def parent_id(value: str, library_ids: frozenset[str]) -> str:
    """Our id of a ParentId: a library's GUID is the library's id, any other an item's."""
    plain = ids.plain_guid(value)
    return plain if plain in library_ids else ids.item_id(value)


def _sorting(args: Mapping[str, str], params: dict[str, list[str]]) -> None:
    sort = next((SORTS[s.lower()] for s in split(args.get("sortby")) if s.lower() in SORTS), None)
    if sort is not None:
        params["sort"] = [sort]
    order = [o.lower() for o in split(args.get("sortorder")) if o.lower() in ("ascending", "descending")]
    if order:
        params["order"] = ["desc" if order[0] == "descending" else "asc"]


def _filters(args: Mapping[str, str], params: dict[str, list[str]]) -> bool:
    """Played and favourite filters; True when only resumable items are wanted."""
    filters = {f.lower() for f in split(args.get("filters"))}
    played = flag(args, "isplayed", "IsPlayed")
    if "isplayed" in filters or played is True:
        params["isPlayed"] = ["true"]
    elif "isunplayed" in filters or played is False:
        params["isPlayed"] = ["false"]
    favorite = flag(args, "isfavorite", "IsFavorite")
    if filters & {"isfavorite", "isfavoriteorlikes"} or favorite is True:
        params["isFavorite"] = ["true"]
    elif favorite is False:
        params["isFavorite"] = ["false"]
    return "isresumable" in filters
