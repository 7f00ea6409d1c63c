"""The web console's pages: a shell rendered here, filled by /web/static/console.js from the player API.

Each page is rendered by the server with what it knows without a query (the
member, the item or library id); the lists and details come from the same
player endpoints a third-party player calls, with the cookie, so a member
sees exactly the libraries the API shows them and nothing is decided twice.
"""

from __future__ import annotations

from typing import Any

from quart import redirect, render_template
from quart_schema import hide

from reelhouse.storage.libraries import list_libraries
from reelhouse.storage.watch_state import watch_states

from ..context import app_context
from ..device_auth import library_scope_of_request, signed_in_member
from ..watch_state import user_data_json
from . import admin_pages as _admin_pages  # noqa: F401  (registers /web/admin/...)
from . import login as _login  # noqa: F401  (registers /web/login and /web/logout)
from .blueprint import blueprint
from .login import SIGN_IN_PAGE


async def _page(template: str, **values: Any) -> Any:
    member = signed_in_member()
    if member is None:
        return redirect(SIGN_IN_PAGE)
    return await render_template(template, member_name=member.user_name, is_admin=member.is_admin, **values)


@blueprint.get("/")
@hide  # the console, not the API: kept out of the OpenAPI document
async def home() -> Any:
    """Continue watching, next up and the latest of each library."""
    return await _page("home.html", page="home", libraries=await _visible_libraries())


@blueprint.get("/library/<library_id>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def library(library_id: str) -> Any:
    """A library's items as a grid of posters, paged."""
    return await _page("library.html", page="library", library_id=library_id)


@blueprint.get("/item/<item_id>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def item(item_id: str) -> Any:
    """An item: overview, genres, seasons and episodes; play, mark played, favourite."""
    member = signed_in_member()
    states = {} if member is None else await watch_states(app_context().store, member.user_id, [item_id])
    state = states.get(item_id)
    user_data = {"played": False, "favorite": False, "positionSec": 0} if state is None else user_data_json(state)
    script = "admin_item.js" if member is not None and member.is_admin else None  # refresh, rescan, identify
    return await _page("item.html", page="item", item_id=item_id, user_data=user_data, script=script)


async def _visible_libraries() -> list[dict[str, str]]:
    """The libraries this member may see (the same scope the API applies), by name."""
    scope = library_scope_of_request()
    records = await list_libraries(app_context().store)
    return [{"id": r.id, "name": r.name} for r in records if scope is None or scope.allows(r.id)]
