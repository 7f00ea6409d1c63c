"""Activity entries for sign-ins: the actor is the member, never the secret they sent."""

from __future__ import annotations

from typing import Any

from quart import request

from reelhouse.storage.activity import ActivityRecord, record_activity, record_repeated_activity
from reelhouse.storage.members import UserRecord

from .context import app_context


async def record_sign_in(
    user: UserRecord | None,
    *,
    ok: bool,
    reason: str | None = None,
    method: str | None = None,
    device_id: str | None = None,
    repeated: bool = False,
) -> None:
    """``user.login`` or ``user.login_failed`` (security); an unknown name is recorded without a member.

    The name tried is not recorded for an unknown member: people type
    passwords into name fields.  A ``repeated`` refusal (one the sign-in
    limits do not bound: a 429, a locked PIN) is counted on the same
    refusal's entry of the last minute, if there is one.
    """
    details: dict[str, Any] = {}
    if method is not None:
        details["method"] = method
    if reason is not None:
        details["reason"] = reason
    if device_id is not None:
        details["deviceId"] = device_id
    record = record_repeated_activity if repeated else record_activity
    await record(
        app_context().store,
        ActivityRecord(
            action="user.login" if ok else "user.login_failed",
            category="security",
            actor_kind="member",
            actor_id=None if user is None else user.id,
            actor_name=None if user is None else user.name,
            target_kind="user",
            target_id=None if user is None else user.id,
            target_name=None if user is None else user.name,
            details=details,
            remote_addr=request.remote_addr,
        ),
    )
