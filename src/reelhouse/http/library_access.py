"""A signed-in member sees only the libraries their policy lists (reference, UserPolicy).

An unlisted library's items, images and streams are 404 exactly as if they
did not exist.  Requests with an API key (no member) pass every check here
without touching the store.
"""

from __future__ import annotations

from dataclasses import replace

from reelhouse import errors
from reelhouse.storage.item_query import ItemQuery
from reelhouse.storage.libraries import library_of_item

from .context import app_context
from .device_auth import library_scope_of_request, signed_in_member


async def require_item_visible(item_id: str) -> None:
    """404 when the request's member may not see this item's library."""
    scope = library_scope_of_request()
    if scope is None or scope.library_ids is None:
        return
    library_id = await library_of_item(app_context().store, item_id)
    if library_id is None or not scope.allows(library_id):
        raise errors.NotFound(f"No item {item_id}.")


async def scoped_item_query(query: ItemQuery) -> ItemQuery:
    """``query`` limited to the member's libraries and read with their watch state;
    404 for a libraryId or parentId outside them."""
    member = signed_in_member()
    if member is not None:
        query = replace(query, member_id=member.user_id)
    scope = library_scope_of_request()
    if scope is None or scope.library_ids is None:
        return query
    if query.library_id is not None and not scope.allows(query.library_id):
        raise errors.NotFound(f"No library {query.library_id}.", params={"libraryId": query.library_id})
    if query.parent_id is not None and not await _parent_visible(query.parent_id, scope.library_ids):
        raise errors.NotFound(f"No item or library {query.parent_id}.")
    return replace(query, visible_library_ids=tuple(sorted(scope.library_ids)))


def visible(library_id: str) -> bool:
    scope = library_scope_of_request()
    return scope is None or scope.allows(library_id)


async def _parent_visible(parent_id: str, library_ids: frozenset[str]) -> bool:
    if parent_id in library_ids:
        return True
    library_id = await library_of_item(app_context().store, parent_id)
    return library_id is not None and library_id in library_ids
