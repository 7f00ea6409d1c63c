"""``/web/admin/api/<path>``: the administrative API, for an administrator signed in to the console.

The administrative routes of ``/api/v1`` take an API key only; a cookie is
refused there (403), as the reference wants.  The console's administrator
pages reach the very same routes through this one door instead: the path
after ``/web/admin/api`` is matched against the API's routes and that
route's own function runs (its validation, actors, rules and error bodies),
as the signed-in administrator (who is named in the activity log).  Only
the administrative blueprints below are open here; the player routes are
reached at ``/api/v1`` with the cookie as before.
"""

from __future__ import annotations

from typing import Any

from quart import current_app, request
from quart_schema import hide
from werkzeug.exceptions import MethodNotAllowed, NotFound

from reelhouse import errors

from .admin_gate import require_admin
from .blueprint import blueprint

API_PREFIX = "/api/v1/"
# The API's administrative blueprints (what a key may do and the reference leaves to the console).
ADMIN_BLUEPRINTS = frozenset({
    "system", "libraries", "scans", "events", "jobs", "item_actions", "plugins", "users", "devices",
    "activity_log", "schedules", "playback_sessions", "playback_history", "upkeep", "metadata_jobs", "people",
})  # fmt: skip
METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE"]


@blueprint.route("/admin/api/<path:rest>", methods=METHODS)
@hide  # the console, not the API: kept out of the OpenAPI document
async def admin_api(rest: str) -> Any:
    """Run the administrative API route at ``/api/v1/<rest>`` as the signed-in administrator."""
    require_admin()
    adapter = current_app.url_map.bind(request.host)
    try:
        endpoint, args = adapter.match(API_PREFIX + rest, method=request.method)
    except (NotFound, MethodNotAllowed):
        endpoint, args = "", {}
    if endpoint.partition(".")[0] not in ADMIN_BLUEPRINTS:
        raise errors.NotFound(f"No administrative route {request.method} {API_PREFIX}{rest}.")
    return await current_app.ensure_async(current_app.view_functions[endpoint])(**args)
