"""GET /search: items and people whose names match a query.

The ranking, folding and scope are the storage layer's
(:mod:`reelhouse.storage.search`); this module checks the query string and
renders SearchResult ``{items: ItemSummary[], people: SearchPerson[]}``.
Hits are rendered with the item lists' ItemSummary model;
``versionMemberCount`` is not computed for search hits.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from quart import Blueprint, request
from quart_schema import document_querystring, document_response

from reelhouse.errors import Invalid
from reelhouse.storage.search import ItemHit, PersonHit, search
from reelhouse.timefmt import rfc3339_ms

from .context import app_context
from .items import ItemSummary
from .schema import ApiModel

blueprint = Blueprint("search", __name__)

DEFAULT_LIMIT = 20
MAX_LIMIT = 200


class SearchQuery(ApiModel):
    q: str = Field(description="Required; case-, accent- and punctuation-insensitive.")
    limit: int | None = Field(None, description=f"Caps each list: 1 to {MAX_LIMIT}, default {DEFAULT_LIMIT}.")


class SearchPerson(ApiModel):
    id: str
    name: str
    image_tag: str | None = None
    role: str | None = Field(None, description="The credit kind the person holds most often.")


class SearchResult(ApiModel):
    items: list[ItemSummary]
    people: list[SearchPerson]


@blueprint.get("/search")
@document_querystring(SearchQuery)
@document_response(SearchResult)
async def search_catalogue() -> dict[str, Any]:
    """Items and people whose names contain the query, best matches first.

    A name matches when it contains q, ignoring case, accents and
    punctuation (amelie finds Amélie, spider man finds Spider-Man); items
    also match on their original title. Order: the whole name equal to q,
    then names starting with q, then names with a later word starting with
    q, then q anywhere else; ties by sort name, then id. A q of one or two
    characters matches name starts only. Missing items, extras and
    additional parts are not searched. A person's role is the credit kind
    they hold most often.

    q missing or blank: 400 field_required (field q). limit caps each list,
    1 to 200 (default 20); anything else is 400 field_invalid (field limit).
    """
    q = request.args.get("q", "")
    if not q.strip():
        raise Invalid("q is required.", field="q", code="field_required")
    limit = _limit(request.args.get("limit"))
    hits = await search(app_context().store, q, limit)
    result = SearchResult(
        items=[_item_summary(hit) for hit in hits.items],
        people=[_search_person(hit) for hit in hits.people],
    )
    return result.to_json()


def _limit(raw: str | None) -> int:
    if raw is None:
        return DEFAULT_LIMIT
    try:
        value = int(raw.strip())
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_LIMIT:
        raise Invalid(f"limit must be an integer from 1 to {MAX_LIMIT}.", field="limit")
    return value


def _item_summary(hit: ItemHit) -> ItemSummary:
    episode = hit.type == "Episode"
    return ItemSummary(
        id=hit.id,
        name=hit.name,
        sort_name=hit.sort_name,
        library_id=hit.library_id,
        type=hit.type,
        date_created=rfc3339_ms(hit.date_created),
        has_poster=hit.poster_tag is not None,
        locked=hit.locked,
        missing=False,  # missing items are never searched
        scrape_state=hit.scrape_state,
        image_tag=hit.poster_tag,
        community_rating=hit.community_rating,
        extra_type=hit.extra_type,
        index_number=hit.index_number,
        parent_index_number=hit.parent_index_number if episode else None,
        merged_into=hit.merged_into,
        original_language=hit.original_language or None,
        original_title=hit.original_title or None,
        product_code=hit.product_code or None,
        production_year=hit.production_year,
        runtime_ticks=hit.runtime_ticks,
        season_id=hit.season_id if episode else None,
        series_id=hit.series_id if hit.type in ("Episode", "Season") else None,
        version_of=hit.version_of,
    )


def _search_person(hit: PersonHit) -> SearchPerson:
    return SearchPerson(id=hit.id, name=hit.name, image_tag=hit.image_tag, role=hit.role)
