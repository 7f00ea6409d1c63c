"""The web console's sign-in cookie, and the origin check every cookie request passes.

The cookie's value is the device token the web sign-in created (a Device row
of kind ``web``), so signing out, an administrator's revocation, disabling
the member and ``sessionOnlyLogin`` all hold for browsers exactly as for
players.  It is HttpOnly (page scripts never see it), SameSite=Lax, and
Secure when the request came over HTTPS: directly, or through a reverse
proxy named in ``[web] trusted_proxies`` that says so in X-Forwarded-Proto
(anyone else's header is ignored, or a client could claim HTTPS).

SameSite alone is not the whole defence (a sibling subdomain is "same
site"), so a state-changing request that authenticates with the cookie must
also come from the server's own pages: its ``Origin`` (or, without one, its
``Referer``) names this host, and ``Sec-Fetch-Site`` is not cross-site.
Otherwise 403 ``forbidden_origin`` (the reference's code).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from quart import Response, request
from werkzeug.datastructures import Headers

from reelhouse import errors

from ..context import app_context

COOKIE_NAME = "reelhouse_session"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def cookie_token() -> str | None:
    """The token in this request's sign-in cookie, if any."""
    value = request.cookies.get(COOKIE_NAME)
    return value or None


def request_is_https() -> bool:
    """Whether the browser reached us over HTTPS (a trusted proxy may say so)."""
    if request.scheme == "https":
        return True
    forwarded = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
    return forwarded == "https" and _from_trusted_proxy(request.remote_addr or "")


def _from_trusted_proxy(address: str) -> bool:
    try:
        peer = ipaddress.ip_address(address)
    except ValueError:
        return False
    networks = app_context().settings.web.trusted_proxies
    return any(peer in ipaddress.ip_network(entry, strict=False) for entry in networks)


def set_sign_in_cookie(response: Response, token: str, *, session_only: bool) -> None:
    """``sessionOnlyLogin``: a session cookie (gone when the browser closes), else ``[web] cookie_days``."""
    max_age = None if session_only else int(app_context().settings.web.cookie_days * 86400)
    response.set_cookie(
        COOKIE_NAME, token, max_age=max_age, path="/", httponly=True, samesite="Lax", secure=request_is_https()
    )


def clear_sign_in_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="Lax", secure=request_is_https())


def require_own_origin(method: str, headers: Headers, host: str) -> None:
    """A state-changing cookie request from another origin (or from nowhere said) is 403 forbidden_origin."""
    if method.upper() in SAFE_METHODS:
        return
    refused = errors.Forbidden(
        "Cookie requests are accepted only from this server's own pages.", code="forbidden_origin"
    )
    if headers.get("Sec-Fetch-Site", "").lower() == "cross-site":
        raise refused
    source = headers.get("Origin") or headers.get("Referer") or ""
    if not source or source == "null":
        raise refused
    if urlsplit(source).netloc.lower() != host.lower():
        raise refused
