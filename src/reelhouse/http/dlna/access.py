"""Who a DLNA client is: nobody, acting within the configured member's libraries.

A television has no credentials, so every DLNA route runs as the member
``[dlna] member`` names: only the libraries that member may see are shown
or streamed (the native checks of :mod:`..library_access` read the scope
set here).  An empty, unknown or disabled member sees no library.  With
``[dlna] enabled = false`` every DLNA path is 404, as if absent.
"""

from __future__ import annotations

from quart import g, request

from reelhouse import errors
from reelhouse.media.member_policy import LibraryScope, library_scope
from reelhouse.storage.members import find_user_by_name, get_member

from ..auth import RETRY_AFTER_SECONDS
from ..context import app_context
from ..edge import admit_anonymous

NOTHING = LibraryScope(frozenset())


async def admit_dlna_request() -> None:
    """``before_request`` of every DLNA route."""
    ctx = app_context()
    if not ctx.settings.dlna.enabled:
        raise errors.NotFound("No such path.")
    if not admit_anonymous(request.scope):
        raise errors.Unavailable(
            "The server has too many connections without credentials; retry shortly.",
            params={"retryAfterSeconds": RETRY_AFTER_SECONDS},
        )
    g.library_scope = await member_scope(ctx.settings.dlna.member)


async def member_scope(name: str) -> LibraryScope:
    """The libraries member ``name`` may see; none for an empty, unknown or disabled member."""
    if not name.strip():
        return NOTHING
    store = app_context().store
    user = await find_user_by_name(store, name)
    member = None if user is None else await get_member(store, user.id)
    if member is None or member.user.disabled:
        return NOTHING
    return library_scope(member.facts)
