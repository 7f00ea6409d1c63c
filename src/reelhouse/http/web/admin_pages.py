"""The administrator pages' shells, one per group; ``static/admin*.js`` fills them.

Each page asks the administrative API through ``/web/admin/api`` (the same
routes, actors and rules as with a key: ``admin_api.py``) or, for what the
reference leaves to the admin console alone (members, keys, plugins'
settings, schedules' rules, backups), the console's own routes beside this
module, which call what the command line calls.
"""

from __future__ import annotations

from typing import Any

from quart_schema import hide

from . import admin_api as _admin_api  # noqa: F401  (registers /web/admin/api)
from . import admin_backups as _admin_backups  # noqa: F401  (registers /web/admin/backups)
from . import admin_keys as _admin_keys  # noqa: F401  (registers /web/admin/keys)
from . import admin_libraries as _admin_libraries  # noqa: F401  (registers /web/admin/libraries/{id})
from . import admin_members as _admin_members  # noqa: F401  (registers /web/admin/members)
from . import admin_settings as _admin_settings  # noqa: F401  (schedules' rules, plugins)
from .admin_gate import admin_page
from .blueprint import blueprint

# (path, template, title): the administrator's pages, in the order of the menu.
ADMIN_PAGES: tuple[tuple[str, str, str], ...] = (
    ("", "admin_system.html", "System"),
    ("libraries", "admin_libraries.html", "Libraries"),
    ("tasks", "admin_tasks.html", "Jobs and schedules"),
    ("activity", "admin_activity.html", "Activity"),
    ("playback", "admin_playback.html", "Playback and devices"),
    ("members", "admin_members.html", "Members"),
    ("keys", "admin_keys.html", "API keys"),
    ("plugins", "admin_plugins.html", "Plugins and backups"),
)
# The pages with a script of their own besides static/admin.js.
SCRIPTS = {"libraries": "admin_libraries.js", "members": "admin_members.js"}
MENU = [{"href": f"/web/admin/{path}", "title": title, "page": path or "system"} for path, _t, title in ADMIN_PAGES]


def _register(path: str, template: str, title: str) -> None:
    page = path or "system"

    async def view() -> Any:
        return await admin_page(template, page="admin-" + page, title=title, menu=MENU, current=page,
                                script=SCRIPTS.get(path))  # fmt: skip

    view.__name__ = view.__qualname__ = f"admin_{page}"
    blueprint.get(f"/admin/{path}")(hide(view))  # the console, not the API: kept out of the OpenAPI document


for _path, _template, _title in ADMIN_PAGES:
    _register(_path, _template, _title)
