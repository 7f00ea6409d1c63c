"""Device tokens: what a player that signed in (POST /auth/login) may call.

A device token (``Authorization: Bearer rhd_...``) is accepted only on the
player endpoints (:data:`PLAYER_ENDPOINTS`): browsing and reading the
catalogue a member may see, their watch state, and signing out.  Everything else is the
administrative API, where a device token is 403 ``forbidden`` even for an
administrator's device (api-decisions.md, "Outside the reference").  The
request then carries the member's sign-in and library scope in ``g``
(:func:`signed_in_member`, :func:`library_scope_of_request`).
"""

from __future__ import annotations

from quart import g

from reelhouse import errors
from reelhouse.media.member_policy import LibraryScope, MemberFacts, library_scope
from reelhouse.storage.devices import TOKEN_PREFIX, DeviceSignIn
from reelhouse.storage.verified_devices import VerifiedDevices

from .context import app_context, request_data_version

# Endpoint names (blueprint.function) a device token may call.
PLAYER_ENDPOINTS = frozenset(
    {
        "items.get_items",
        "items.get_item",
        "search.search_catalogue",
        "images.item_image",
        "people.get_person",
        "people.person_image",
        "auth_routes.logout",
        "stream.stream_video",
        "playback_reports.playing",
        "playback_reports.progress",
        "playback_reports.stopped",
        "remote_control.socket",
        "watch_state.mark_played",
        "watch_state.unmark_played",
        "watch_state.mark_favorite",
        "watch_state.unmark_favorite",
        "watch_state.resume",
        "watch_state.next_up",
    }
)


def is_device_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX)


def verified_devices() -> VerifiedDevices:
    """The actor tree's memory of verified device tokens (actors/device_use.py writes their use)."""
    devices = app_context().actors.devices
    assert devices is not None  # made by open_actor_tree
    return devices


async def authenticate_device(token: str, endpoint: str | None) -> None:
    """Accept ``token`` for this request (or WebSocket) to ``endpoint``, or raise 401
    (unknown, revoked, member disabled) / 403 (not a player endpoint)."""
    sign_in = await verified_devices().find(token, version=request_data_version())
    if sign_in is None:
        raise errors.Unauthorized("The sign-in is invalid or has been revoked.")
    if endpoint not in PLAYER_ENDPOINTS:
        raise errors.Forbidden("A device token is accepted on the player endpoints only.")
    admit_sign_in(sign_in)


async def find_device_sign_in(token: str) -> DeviceSignIn | None:
    """The live sign-in of ``token`` (remembered as :class:`VerifiedDevices` says), else None."""
    return await verified_devices().find(token, version=request_data_version())


def admit_sign_in(sign_in: DeviceSignIn) -> None:
    """This request acts as ``sign_in``'s member, within that member's libraries."""
    g.member = sign_in
    g.library_scope = library_scope(
        MemberFacts(sign_in.is_admin, sign_in.disabled, False, sign_in.policy, sign_in.granted_libraries)
    )


def signed_in_member() -> DeviceSignIn | None:
    """The member whose device token authenticated this request; None for an API key."""
    return getattr(g, "member", None)


def library_scope_of_request() -> LibraryScope | None:
    """The libraries this request may see; None = every library (API key)."""
    return getattr(g, "library_scope", None)


