"""Who a web console request is: the cookie's sign-in, checked like a player's device token."""

from __future__ import annotations

from quart import request

from reelhouse import errors

from ..device_auth import admit_sign_in, find_device_sign_in, is_device_token
from ..edge import admit_anonymous, note_authenticated
from .cookies import cookie_token, require_own_origin

RETRY_AFTER_SECONDS = 1


async def admit_web_request() -> None:
    """Before every /web request: admit the cookie's member (if any) and refuse foreign state changes.

    A sign-in POST is checked for its origin too, so another site cannot sign
    a browser in under someone else's name (login CSRF).
    """
    require_own_origin(request.method, request.headers, request.host)
    token = cookie_token()
    sign_in = await find_device_sign_in(token) if token is not None and is_device_token(token) else None
    if sign_in is not None:
        admit_sign_in(sign_in)
        note_authenticated(request.scope)
        return
    if not admit_anonymous(request.scope):
        raise errors.Unavailable(
            "The server has too many connections without credentials; retry shortly.",
            params={"retryAfterSeconds": RETRY_AFTER_SECONDS},
        )
