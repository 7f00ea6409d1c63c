"""Who a DLNA client is: a renderer (its address and user agent) acting as the configured member.

A television has no credentials, so every DLNA route runs as the member
``[dlna] member`` names, on a device of its own: ``dlna-`` and a hash of
the renderer's address and ``User-Agent`` (:func:`renderer_device_id`).
The request is admitted as that member's sign-in on that device
(:func:`..device_auth.admit_sign_in`), so the native checks apply as for a
player: only the libraries the member may see are shown or streamed, the
member's parental rules filter every page and stream
(:mod:`..library_access`), and a stream's bytes count toward the
renderer's playback session (:mod:`.plays`).  The member is read again at
most every second.  An empty, unknown or
disabled member sees no library.  With ``[dlna] enabled = false`` every
DLNA path is 404, as if absent; so is a request sent to a local address that
is not one of ``[dlna] interfaces`` (nor loopback: :mod:`.interfaces`).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from quart import g, request

from reelhouse import errors
from reelhouse.media.member_policy import LibraryScope
from reelhouse.storage.devices import DeviceSignIn
from reelhouse.storage.members import find_user_by_name, get_member

from ..auth import RETRY_AFTER_SECONDS
from ..context import app_context
from ..device_auth import admit_sign_in
from ..edge import admit_anonymous
from .interfaces import arrived_on_configured_interface
from .remembered import remembered

MAX_USER_AGENT_CHARS = 200
NOTHING = LibraryScope(frozenset())


async def admit_dlna_request() -> None:
    """``before_request`` of every DLNA route."""
    ctx = app_context()
    if not ctx.settings.dlna.enabled or not await arrived_on_configured_interface(request.scope):
        raise errors.NotFound("No such path.")  # as if DLNA were off: an unconfigured network learns nothing
    if not admit_anonymous(request.scope):
        raise errors.Unavailable(
            "The server has too many connections without credentials; retry shortly.",
            params={"retryAfterSeconds": RETRY_AFTER_SECONDS},
        )
    sign_in = await member_sign_in(ctx.settings.dlna.member, renderer_device_id(request.remote_addr, user_agent()))
    if sign_in is None:
        g.library_scope = NOTHING
    else:
        admit_sign_in(sign_in)


def user_agent() -> str:
    return request.headers.get("User-Agent", "")[:MAX_USER_AGENT_CHARS]


def renderer_device_id(address: str | None, agent: str) -> str:
    """The device a renderer is: the same address and user agent are the same device."""
    digest = hashlib.blake2b(f"{address or ''}\n{agent}".encode(), digest_size=12).hexdigest()
    return f"dlna-{digest}"


async def member_sign_in(name: str, device_id: str) -> DeviceSignIn | None:
    """Member ``name`` signed in on ``device_id``; None for an empty, unknown or disabled member.

    The member is read again at most every second (:mod:`.remembered`)."""
    member = await remembered(f"member:{name}", lambda: _member(name))
    return None if member is None else replace(member, device_id=device_id)


async def _member(name: str) -> DeviceSignIn | None:
    if not name.strip():
        return None
    store = app_context().store
    user = await find_user_by_name(store, name)
    member = None if user is None else await get_member(store, user.id)
    if member is None or member.user.disabled:
        return None
    facts = member.facts
    return DeviceSignIn(token_hash="", device_id="", user_id=member.user.id, user_name=member.user.name,
                        is_admin=facts.is_admin, disabled=facts.disabled, policy=facts.policy,
                        granted_libraries=facts.granted_libraries)  # fmt: skip

