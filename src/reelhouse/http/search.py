"""GET /search: items and people whose names match a query.

The ranking, folding and scope are the storage layer's
(:mod:`reelhouse.storage.search`); this module checks the query string and
renders SearchResult ``{items: ItemSummary[], people: SearchPerson[]}``.
Item hits are the storage layer's ItemSummary, rendered exactly as item
lists render them (poster tag and versionMemberCount included).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from quart import Blueprint, request
from quart_schema import document_querystring, document_response

from reelhouse.errors import Invalid
from reelhouse.jsonfields import put_present
from reelhouse.storage.search import PersonHit, search

from .context import app_context
from .items import ItemSummary
from .library_access import parental_visible_ids, visible
from .list_query import MAX_LIMIT, page_limit
from .schema import ApiModel

blueprint = Blueprint("search", __name__)

DEFAULT_LIMIT = 20


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
    limit = page_limit(request.args.get("limit"), DEFAULT_LIMIT)
    hits = await search(app_context().store, q, limit)
    allowed = await parental_visible_ids([item.id for item in hits.items])
    return {
        "items": [
            item.to_json()
            for item in hits.items
            if visible(item.library_id) and (allowed is None or item.id in allowed)
        ],
        "people": [_search_person(hit) for hit in hits.people],
    }


def _search_person(hit: PersonHit) -> dict[str, Any]:
    person: dict[str, Any] = {"id": hit.id, "name": hit.name}
    put_present(person, (('imageTag', hit.image_tag), ('role', hit.role)))
    return person
