"""The Jellyfin-compatible player surface: a translation at the edge (issue 27).

Jellyfin's HTTP API, as its clients (Jellyfin's apps, Infuse, Kodi
add-ons, Finamp, Swiftfin, jellyfin-mpv-shim, Home Assistant, Jellystat,
download managers) speak it, served at the server root and under
``/emby/``, matched case-insensitively (:mod:`.paths`).  Nothing here
decides anything: sign-in, library access, device revocation, the served
files' confinement, playback sessions and scans are the native code's,
called as the native routes call them; these modules only translate
credentials (:mod:`.auth_header`, :mod:`.access`), ids (:mod:`.ids`),
queries (:mod:`.item_query`), shapes (``dto_*``) and errors
(:mod:`.errors`).  One routes module per group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quart import Quart

from .paths import JellyfinPaths
from .routes_items import blueprint as items_blueprint
from .routes_library import blueprint as library_blueprint
from .routes_media import blueprint as media_blueprint
from .routes_playback import blueprint as playback_blueprint
from .routes_socket import blueprint as socket_blueprint
from .routes_users import blueprint as users_blueprint

BLUEPRINTS = (
    users_blueprint, items_blueprint, media_blueprint, playback_blueprint, socket_blueprint, library_blueprint,
)

__all__ = ["install_jellyfin"]


def install_jellyfin(app: Quart, inner: Callable[..., Any], *native_prefixes: str) -> Callable[..., Any]:
    """Register the surface's routes on ``app``; returns ``inner`` wrapped in its path rules
    (paths under ``native_prefixes`` are left as they are)."""
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    return JellyfinPaths(inner, *native_prefixes)
