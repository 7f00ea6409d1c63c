"""Recording administrative actions for the activity log."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quart import g, request

from reelhouse.storage.activity import ActivityRecord, record_activity

from .context import app_context


async def log_activity(
    action: str,
    category: str,
    target_kind: str,
    target_id: str | None = None,
    target_name: str | None = None,
    details: Mapping[str, Any] | None = None,
) -> None:
    """Record ``action`` (``target.verb``) as done by the request's API key or signed-in member."""
    member = getattr(g, "member", None)  # a device token's sign-in (device_auth.py)
    await record_activity(
        app_context().store,
        ActivityRecord(
            action=action,
            category=category,
            actor_kind="apiKey" if member is None else "member",
            actor_id=getattr(g, "api_key_id", None) if member is None else member.user_id,
            actor_name=None if member is None else member.user_name,
            target_kind=target_kind,
            target_id=target_id,
            target_name=target_name,
            details=dict(details or {}),
            remote_addr=request.remote_addr,
        ),
    )
