"""Jellyfin's paths as its clients spell them: any case, and under ``/emby/`` for Emby's apps.

Jellyfin matches routes case-insensitively (ASP.NET), and its clients are
not consistent (``Items/{id}/Images`` and ``items/{id}/images`` from the
same client).  This ASGI middleware gives the app one spelling of every
path outside the native API: lower case, without an ``/emby`` prefix or a
trailing slash.  Every path parameter of this surface is itself
case-insensitive (GUIDs, image types, containers), so nothing is lost.
Paths under the native prefix are passed on untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

EMBY_PREFIX = "/emby"


def canonical_path(path: str) -> str:
    """``/Emby/Users/Public/`` -> ``/users/public``."""
    lowered = path.lower()
    if lowered == EMBY_PREFIX or lowered.startswith(EMBY_PREFIX + "/"):
        lowered = lowered[len(EMBY_PREFIX) :] or "/"
    if len(lowered) > 1:
        lowered = lowered.rstrip("/") or "/"
    return lowered


class JellyfinPaths:
    """ASGI middleware: paths outside the native prefixes are routed by :func:`canonical_path`."""

    def __init__(self, inner: Callable[..., Any], *native_prefixes: str) -> None:
        self._inner = inner
        self._native = native_prefixes  # the native API, the web console: their paths keep case and slashes

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] in ("http", "websocket"):
            path = scope["path"]
            if not any(path == prefix or path.startswith(prefix + "/") for prefix in self._native):
                canonical = canonical_path(path)
                if canonical != path:
                    scope = {**scope, "path": canonical, "raw_path": canonical.encode("utf-8", "surrogateescape")}
        await self._inner(scope, receive, send)
