"""API-key authentication: ``Authorization: Bearer rhk_...`` on every request.

Only a hash of each key is stored; the lookup is by hash and the final
comparison constant-time (in the storage layer). Keys found active are
remembered (:class:`reelhouse.storage.verified_keys.VerifiedKeys`) only
while no write has committed since, so a key revoked from the command line
still fails on its very next request.

A request without credentials (the public paths) is admitted only where the
connection layer has room for one (``http/edge/admission.py``: a share of
the connection cap is kept for authenticated clients); one with valid
credentials marks its connection authenticated.
"""

from __future__ import annotations

from quart import Quart, current_app, g, request, websocket

from reelhouse import errors
from reelhouse.storage.verified_keys import VerifiedKeys

from .context import app_context
from .device_auth import authenticate_device, is_device_token
from .edge import admit_anonymous, note_authenticated
from .web.cookies import COOKIE_NAME, cookie_token, require_own_origin

# Paths answered without a key: the machine-readable API description and sign-in.
PUBLIC_PATHS = frozenset({"/api/v1/openapi.json", "/api/v1/auth/login"})
# The health probes (http/health.py): no key, and never refused for the connection share kept for
# authenticated clients, so a busy server is not taken for a dead one and restarted.
PROBE_PATHS = frozenset({"/health", "/health/ready"})
_EXTENSION_KEY = "reelhouse.verified_keys"
OWN_AUTHENTICATION_PREFIX = "jellyfin"  # blueprints named so authenticate in their before_request
WEB_BLUEPRINT_PREFIX = "web"  # the web console's blueprints (http/web) too
OWN_AUTHENTICATION_PREFIXES = (OWN_AUTHENTICATION_PREFIX, WEB_BLUEPRINT_PREFIX)
DLNA_BLUEPRINT = "dlna"  # DLNA clients have no credentials: http/dlna/access.py admits them as its member
RETRY_AFTER_SECONDS = 1


def install_auth(app: Quart) -> None:
    app.before_serving(_start_verifying)
    app.before_request(_authenticate)
    # A WebSocket upgrade (GET /sessions/socket) is authenticated the same way, before it is accepted.
    app.before_websocket(_authenticate_websocket)


async def _start_verifying() -> None:
    current_app.extensions[_EXTENSION_KEY] = VerifiedKeys(app_context().store)


async def _authenticate() -> None:
    if request.path in PROBE_PATHS or _has_own_authentication(request.blueprint):
        return
    if request.path in PUBLIC_PATHS:
        if not admit_anonymous(request.scope):
            raise errors.Unavailable(
                "The server has too many connections without credentials; retry shortly.",
                params={"retryAfterSeconds": RETRY_AFTER_SECONDS},
            )
        return
    authorization = request.headers.get("Authorization", "")
    if not authorization and (token := cookie_token()) is not None:
        await _authenticate_cookie(token)
    else:
        await _authenticate_token(authorization, request.endpoint)
    note_authenticated(request.scope)


async def _authenticate_cookie(token: str) -> None:
    """The web console's cookie: its device token, on the player endpoints only, from our own pages only."""
    require_own_origin(request.method, request.headers, request.host)
    if not is_device_token(token):
        raise errors.Unauthorized("The sign-in is invalid or has been revoked.")
    await authenticate_device(token, request.endpoint)  # never an API key's route: 403 there


async def _authenticate_websocket() -> None:
    if _has_own_authentication(websocket.blueprint):
        return
    authorization = websocket.headers.get("Authorization", "")
    if not authorization and (token := websocket.cookies.get(COOKIE_NAME)):
        # The console's player (browsers cannot set headers on a WebSocket): from our own pages only,
        # which a browser always says in Origin on an upgrade (cross-site WebSocket hijacking).
        require_own_origin("POST", websocket.headers, websocket.host)
        if not is_device_token(token):
            raise errors.Unauthorized("The sign-in is invalid or has been revoked.")
        await authenticate_device(token, websocket.endpoint)
    else:
        await _authenticate_token(authorization, websocket.endpoint)
    note_authenticated(websocket.scope)


async def _authenticate_token(authorization: str, endpoint: str | None) -> None:
    token = _bearer_token(authorization)
    if token is not None and is_device_token(token):
        return await authenticate_device(token, endpoint)  # a player's sign-in (device_auth.py)
    if token is None:
        raise errors.Unauthorized("A valid API key is required: send Authorization: Bearer <key>.")
    await authenticate_api_key(token)


async def authenticate_api_key(token: str) -> None:
    """Accept ``token`` as an API key for this request (an administrator's credential), or raise 401."""
    key = await current_app.extensions[_EXTENSION_KEY].find(token)  # None for a token of another shape too
    if key is None:
        raise errors.Unauthorized("The API key is invalid or has been revoked.")
    g.api_key_id = key.id


def _has_own_authentication(blueprint: str | None) -> bool:
    """The Jellyfin-compatible surface (``http/jellyfin``) and the web console (``http/web``) read their
    own credentials, with the same checks; DLNA (``http/dlna``) has none: it acts as its configured member."""
    return blueprint is not None and (blueprint.startswith(OWN_AUTHENTICATION_PREFIXES) or blueprint == DLNA_BLUEPRINT)


def _bearer_token(header: str) -> str | None:
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()
