"""GET /users and /users/{id}: members, read only (reference, Members).

Creating or changing members is not in the API: the command line's
``reelhouse user add`` / ``user set`` is the admin console.  Any other
method on these paths is 405 and changes nothing.  A User carries no hash,
password or PIN: only ``hasPassword`` / ``hasPin``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from quart import Blueprint
from quart_schema import document_response

from reelhouse import errors
from reelhouse.media.member_policy import effective_policy, plan_access
from reelhouse.storage.members import MemberView, get_member, library_ids, list_members
from reelhouse.timefmt import rfc3339_ms

from .context import app_context
from .openapi import may_answer
from .schema import ApiModel

blueprint = Blueprint("users", __name__)


class UserPolicy(ApiModel):
    is_admin: bool
    is_disabled: bool
    is_hidden: bool
    accessible_libraries: list[str] = Field(description="Library ids; every library for administrators.")
    all_libraries: bool
    allow_download: bool = Field(description="Effective value.")
    cast_disabled: bool
    content_deletion_libraries: list[str]
    enable_content_deletion: bool
    session_only_login: bool
    parental: dict[str, Any] | None = None


class User(ApiModel):
    id: str
    name: str
    is_admin: bool
    avatar_tag: str | None = Field(None, description="Only when an avatar exists.")
    created_at: str
    last_login_at: str | None = None
    has_password: bool
    has_pin: bool
    pin_locked: bool
    parental_editable: bool
    plan_access: str = Field(description="MemberPlanAccess: full while there is no licence information.")
    policy: UserPolicy


@blueprint.get("/users")
@document_response(list[User], 200)
@may_answer((403, "A device token: this is the administrative API."))
async def list_users() -> list[dict[str, Any]]:
    """Every member, by name, with the effective policy."""
    store = app_context().store
    libraries = await library_ids(store)
    return [user_json(view, libraries) for view in await list_members(store)]


@blueprint.get("/users/<user_id>")
@document_response(User, 200)
@may_answer((403, "A device token: this is the administrative API."))
async def get_user(user_id: str) -> dict[str, Any]:
    """One member; 404 not_found when there is none."""
    store = app_context().store
    view = await get_member(store, user_id)
    if view is None:
        raise errors.NotFound(f"No member {user_id}.")
    return user_json(view, await library_ids(store))


def user_json(view: MemberView, all_library_ids: list[str]) -> dict[str, Any]:
    user = view.user
    body: dict[str, Any] = {
        "id": user.id,
        "name": user.name,
        "isAdmin": user.is_admin,
        "createdAt": rfc3339_ms(user.created_at_ms),
        "hasPassword": user.has_password,
        "hasPin": user.has_pin,
        "pinLocked": view.pin_locked,
        # Parental edits need a licence permitting them (reference, UserPolicy.clearParental);
        # this server has no licence information, so controls are read only (rules set stay enforced).
        "parentalEditable": False,
        "planAccess": plan_access(view.facts),
        "policy": effective_policy(view.facts, all_library_ids),
    }
    if user.avatar_tag:
        body["avatarTag"] = user.avatar_tag
    if user.last_login_at_ms is not None:
        body["lastLoginAt"] = rfc3339_ms(user.last_login_at_ms)
    return body
