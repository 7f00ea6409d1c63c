"""Members from the console: add, change, password and PIN, library access, sessionOnlyLogin.

What ``reelhouse user add`` and ``user set`` do (``storage/members``), with
the same checks and activity entries (field names only: never a password or
PIN).  The list is the API's (``GET /web/admin/api/users``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from quart_schema import hide

from reelhouse.storage import members

from ..activity_recording import log_activity
from ..context import app_context
from .admin_gate import require_admin
from .blueprint import blueprint
from .forms import parse_body

SECRET_MAX = 1024


class NewMember(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=128)
    password: str | None = Field(None, max_length=SECRET_MAX)
    admin: bool = False


class MemberEdit(BaseModel):
    """What to change; an absent (null) field is left as it is."""

    model_config = ConfigDict(extra="ignore")

    admin: bool | None = None
    disabled: bool | None = None
    hidden: bool | None = None
    all_libraries: bool | None = Field(None, alias="allLibraries")
    libraries: list[str] | None = None
    password: str | None = Field(None, min_length=1, max_length=SECRET_MAX)
    pin: str | None = Field(None, max_length=64)
    clear_pin: bool = Field(False, alias="clearPin")
    session_only_login: bool | None = Field(None, alias="sessionOnlyLogin")


@blueprint.post("/admin/members")
@hide  # the console, not the API: kept out of the OpenAPI document
async def add_member() -> dict[str, Any]:
    """Add a member (an administrator with ``admin``); without a password they sign in with none."""
    require_admin()
    data = await parse_body(NewMember)
    user = await members.add_user(app_context().store, data.name, is_admin=data.admin, password=data.password or None)
    await log_activity("user.create", "security", "user", user.id, user.name, {"isAdmin": user.is_admin})
    return {"id": user.id, "name": user.name, "isAdmin": user.is_admin}


@blueprint.patch("/admin/members/<name>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def change_member(name: str) -> dict[str, Any]:
    """Change the member ``name``; answers the names of the fields changed."""
    require_admin()
    data = await parse_body(MemberEdit)
    changes = members.MemberChanges(
        is_admin=data.admin, disabled=data.disabled, hidden=data.hidden, all_libraries=data.all_libraries,
        libraries=None if data.libraries is None else tuple(data.libraries), password=data.password,
        pin=data.pin, clear_pin=data.clear_pin, session_only_login=data.session_only_login,
    )  # fmt: skip
    user, changed = await members.update_member(app_context().store, name, changes)
    if changed:
        await log_activity("user.update", "security", "user", user.id, user.name, {"fields": changed})
    return {"id": user.id, "name": user.name, "changed": changed}
