"""Members from the console: add, change, password and PIN, library access, sessionOnlyLogin, parental rules.

What ``reelhouse user add`` and ``user set`` do (``storage/members``), with
the same checks and activity entries (field names only: never a password or
PIN).  The list is the API's (``GET /web/admin/api/users``).  A parental
rule is given as the stored ParentalControls fields (each over the member's
current rule, as ``user set --max-age ...`` does), its windows also as the
command line writes them (``"1-5 16:00-20:00"``, read by the same
``media.parental.parse_window``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from quart_schema import hide

from reelhouse import errors
from reelhouse.media.parental import parse_window
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
    parental: dict[str, Any] | None = None
    clear_parental: bool = Field(False, alias="clearParental")


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
        parental=_parental(data.parental), clear_parental=data.clear_parental,
    )  # fmt: skip
    user, changed = await members.update_member(app_context().store, name, changes)
    if changed:
        await log_activity("user.update", "security", "user", user.id, user.name, {"fields": changed})
    return {"id": user.id, "name": user.name, "changed": changed}


def _parental(fields: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ParentalControls fields to set; a window written ``"DAYS HH:MM-HH:MM"`` read as the command line does."""
    if fields is None or not isinstance(fields.get("windows"), list):
        return fields
    windows: list[Any] = []
    for window in fields["windows"]:
        if isinstance(window, str):
            days, _, span = window.strip().partition(" ")
            if not span.strip():
                raise errors.Invalid(f"parental.windows: {window!r} is not DAYS HH:MM-HH:MM.", field="parental.windows")
            window = parse_window(days, span, field="parental.windows").to_json()
        windows.append(window)
    return {**fields, "windows": windows}
