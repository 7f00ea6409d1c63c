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
    """Record ``action`` (``target.verb``) as done by the request's API key."""
    await record_activity(
        app_context().store,
        ActivityRecord(
            action=action,
            category=category,
            actor_kind="apiKey",
            actor_id=getattr(g, "api_key_id", None),
            target_kind=target_kind,
            target_id=target_id,
            target_name=target_name,
            details=dict(details or {}),
            remote_addr=request.remote_addr,
        ),
    )
