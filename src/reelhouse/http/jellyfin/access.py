"""Who may call each route of the Jellyfin surface, checked before its handler runs.

The same checks as the native API (``http/auth.py``, ``http/device_auth.py``),
reading Jellyfin's credentials (:mod:`.auth_header`):

- a device token (``rhd_``: a member's sign-in, from
  ``/Users/AuthenticateByName`` or the native ``/auth/login``) is looked up
  exactly as natively: a revoked device, a signed-out token or a disabled
  member is 401 on the very next request; the request then sees only the
  member's libraries;
- an API key (``rhk_``) is an administrator's credential, as Jellyfin's own
  API keys are: it sees every library;
- routes marked :func:`public` need nothing (a request without
  credentials is admitted as on the native API: within the connection
  layer's share for anonymous clients); routes marked :func:`token_optional`
  check a token when one is sent and admit a request without one as a
  public route does, for the handler to check its own proof (an image's
  signed tag: :mod:`.image_tags`); routes marked :func:`admin` take an
  API key or an administrator member's device token (what Home Assistant
  and Jellystat sign in with); every other route takes either credential.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from quart import current_app, g, request, websocket
from werkzeug.datastructures import Headers

from reelhouse import errors

from ..auth import RETRY_AFTER_SECONDS, authenticate_api_key
from ..device_auth import admit_sign_in, find_device_sign_in, is_device_token
from ..edge import admit_anonymous, note_authenticated
from .auth_header import ClientClaims, request_claims

PUBLIC = "public"
TOKEN_OPTIONAL = "token_optional"
PLAYER = "player"
ADMIN = "admin"
_ACCESS_ATTRIBUTE = "jellyfin_access"

View = TypeVar("View", bound=Callable[..., Any])


def public(view: View) -> View:
    setattr(view, _ACCESS_ATTRIBUTE, PUBLIC)
    return view


def token_optional(view: View) -> View:
    setattr(view, _ACCESS_ATTRIBUTE, TOKEN_OPTIONAL)
    return view


def admin(view: View) -> View:
    setattr(view, _ACCESS_ATTRIBUTE, ADMIN)
    return view


def claims() -> ClientClaims:
    """The client's claims of this request (set before the handler runs)."""
    found: ClientClaims | None = getattr(g, "jellyfin_claims", None)
    return found if found is not None else ClientClaims()


async def authenticate_request() -> None:
    await _authenticate(request.endpoint, request.headers, request.args, request.scope)


async def authenticate_websocket() -> None:
    await _authenticate(websocket.endpoint, websocket.headers, websocket.args, websocket.scope)


async def _authenticate(
    endpoint: str | None, headers: Headers, args: Mapping[str, str], scope: Mapping[str, Any]
) -> None:
    view = current_app.view_functions.get(endpoint or "")
    access = getattr(view, _ACCESS_ATTRIBUTE, PLAYER)
    found = request_claims(headers, args)
    g.jellyfin_claims = found
    if access == PUBLIC or (access == TOKEN_OPTIONAL and not found.token):
        if not admit_anonymous(scope):
            raise errors.Unavailable(
                "The server has too many connections without credentials; retry shortly.",
                params={"retryAfterSeconds": RETRY_AFTER_SECONDS},
            )
        return
    if not found.token:
        raise errors.Unauthorized("A token is required: sign in with /Users/AuthenticateByName.")
    if is_device_token(found.token):
        sign_in = await find_device_sign_in(found.token)
        if sign_in is None:
            raise errors.Unauthorized("The sign-in is invalid or has been revoked.")
        if access == ADMIN and not sign_in.is_admin:
            raise errors.Forbidden("An administrator's sign-in or an API key is required.")
        admit_sign_in(sign_in)
    else:
        await authenticate_api_key(found.token)
    note_authenticated(scope)
