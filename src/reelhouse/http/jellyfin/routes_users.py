"""The server and its members: System/Info, Users, AuthenticateByName, Sessions/Logout, QuickConnect.

Signing in is the native sign-in (``http/auth_routes.sign_in``): the same
limits, the same one hash check, the same device row and activity entry;
the client's ``Authorization: MediaBrowser`` claims name the device.  ``Pw``
is the member's password, or the PIN of a member who has only a PIN; a
member with neither signs in with an empty ``Pw``.
"""

from __future__ import annotations

from typing import Any

from quart import Response, request

from reelhouse import errors
from reelhouse.storage.members import get_member, list_members

from ..auth_routes import SignInAttempt, sign_in, sign_out
from ..context import app_context
from ..device_auth import signed_in_member
from . import ids
from .access import admin, claims, public
from .catalogue import all_library_ids
from .dto_users import public_system_info, public_user_dto, session_info, system_info, user_dto
from .surface import json, new_blueprint, no_content, route

blueprint = new_blueprint("users")
FIELD_MAX = 256
_FIELD_NAMES = {"username": "Username", "pw": "Pw", "password": "Password"}


def _server() -> tuple[str, str, str]:
    ctx = app_context()
    return ctx.server_id, ctx.settings.effective_server_name, request.host_url.rstrip("/")


@route(blueprint, "/System/Info/Public")
@public
async def public_info() -> Response:
    return json(public_system_info(*_server()))


@route(blueprint, "/System/Info")
async def info() -> Response:
    return json(system_info(*_server()))


@route(blueprint, "/System/Ping", ("GET", "POST"))
@public
async def ping() -> Response:
    return json("Jellyfin Server")


@route(blueprint, "/QuickConnect/Enabled")
@public
async def quick_connect_enabled() -> Response:
    return json(False)


@route(blueprint, "/Users/AuthenticateByName", ("POST",))
@public
async def authenticate_by_name() -> Response:
    body = await _body()
    name = _text(body, "username")
    if not name:
        raise errors.Invalid("Username is required.", field="Username")
    password = _text(body, "pw") or _text(body, "password")
    who = claims()
    attempt = SignInAttempt(
        name=name, password=password or None, pin=None, device_id=who.device_id,
        device_name=who.device or "Unknown device", client=who.client or "Unknown client", version=who.version,
        password_or_pin=True,
    )  # fmt: skip
    signed_in = await sign_in(attempt, request.remote_addr or "")
    store = app_context().store
    member = await get_member(store, signed_in.user_id)
    if member is None:  # deleted between the sign-in and here
        raise errors.Unauthorized("The member no longer exists.")
    server_id = ids.plain_guid(app_context().server_id)
    user = user_dto(member, server_id, await all_library_ids())
    session = session_info(signed_in.device_id, user, attempt.client, attempt.device_name,
                           who.device_id or signed_in.device_id, who.version or "", server_id)  # fmt: skip
    return json({"User": user, "SessionInfo": session, "AccessToken": signed_in.token, "ServerId": server_id})


@route(blueprint, "/Users/Public")
@public
async def public_users() -> Response:
    store = app_context().store
    shown = [m for m in await list_members(store) if not m.user.hidden and not m.user.disabled]
    return json([public_user_dto(m, app_context().server_id) for m in shown])


@route(blueprint, "/Users")
@admin
async def users() -> Response:
    store = app_context().store
    all_ids = await all_library_ids()
    return json([user_dto(m, app_context().server_id, all_ids) for m in await list_members(store)])


@route(blueprint, "/Users/Me")
async def me() -> Response:
    member = signed_in_member()
    if member is None:
        raise errors.Invalid("An API key has no user: /Users/Me needs a member's sign-in.")
    return await _user(member.user_id)


@route(blueprint, "/Users/<user_id>")
async def user(user_id: str) -> Response:
    wanted = ids.plain_guid(user_id)
    member = signed_in_member()
    if member is not None and member.user_id != wanted and not member.is_admin:
        raise errors.NotFound(f"No user {user_id}.")
    return await _user(wanted)


async def _user(user_id: str) -> Response:
    store = app_context().store
    member = await get_member(store, user_id)
    if member is None:
        raise errors.NotFound(f"No user {user_id}.")
    return json(user_dto(member, app_context().server_id, await all_library_ids()))


@route(blueprint, "/Sessions/Logout", ("POST",))
async def logout() -> Response:
    member = signed_in_member()
    if member is not None:  # an API key has no sign-in to end
        await sign_out(member)
    return no_content()


async def _body() -> dict[str, Any]:
    """A JSON object body with its keys in lower case (Jellyfin's names are case-insensitive)."""
    body = await request.get_json(force=True, silent=True)
    if not isinstance(body, dict):
        raise errors.Invalid("The body must be a JSON object.")
    return {str(k).lower(): v for k, v in body.items()}


def _text(body: dict[str, Any], name: str) -> str:
    """A string field ("" when absent or null); 400 naming it when it is there as anything else."""
    value = body.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise errors.Invalid(f"{_FIELD_NAMES.get(name, name)} must be a string.", field=_FIELD_NAMES.get(name, name))
    return value[:1024]
