"""GET /activity: the audit trail, newest first (reference, System; api-decisions.md, Activity).

Query: ``actorKind``, ``actorUserId`` (implies member), ``category``
(repeatable, OR), ``targetKind`` + ``targetId``, ``from`` (inclusive) and
``to`` (exclusive) as RFC 3339, ``cursor``, ``limit`` (default 40, 1 to
200).  The cursor is signed and bound to the filters: a tampered one, or one
sent with other filters, is 400 (field cursor).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from quart import Blueprint, request
from quart_schema import document_querystring, document_response

from reelhouse.errors import Invalid
from reelhouse.storage.activity import ActivityRecord
from reelhouse.storage.activity_query import ActivityFilter, ActivityPosition, query_activity
from reelhouse.timefmt import rfc3339_ms

from .context import app_context
from .list_query import DEFAULT_LIMIT, MAX_LIMIT, PageCursors, instant_ms, page_limit
from .openapi import may_answer
from .schema import ApiModel

blueprint = Blueprint("activity_log", __name__)

ACTOR_KINDS = ("system", "member", "apiKey", "plugin")
CATEGORIES = ("content", "deletion", "externalTool", "settings", "security")
TARGET_KINDS = ("item", "library", "person", "user", "plugin", "apiKey", "server", "schedule", "backup")


class ActivityQuery(ApiModel):
    actor_kind: str | None = Field(None, description="ActivityActorKind: " + ", ".join(ACTOR_KINDS))
    actor_user_id: str | None = Field(None, description="A member's id; implies actorKind member.")
    category: list[str] | None = Field(None, description="Repeatable (OR): " + ", ".join(CATEGORIES))
    target_kind: str | None = Field(None, description="ActivityTargetKind: " + ", ".join(TARGET_KINDS))
    target_id: str | None = Field(None, description="Requires targetKind.")
    from_: str | None = Field(None, alias="from", description="RFC 3339; inclusive.")
    to: str | None = Field(None, description="RFC 3339; exclusive.")
    cursor: str | None = None
    limit: int | None = Field(None, description=f"1 to {MAX_LIMIT}, default {DEFAULT_LIMIT}.")


class ActivityEntry(ApiModel):
    id: str
    action: str
    at: str
    category: str
    actor: dict[str, Any]
    target: dict[str, Any]
    details: dict[str, Any]
    remote_addr: str | None = None


class ActivityPage(ApiModel):
    entries: list[ActivityEntry]
    next_cursor: str | None = None


@blueprint.get("/activity")
@document_querystring(ActivityQuery)
@document_response(ActivityPage, 200)
@may_answer((403, "A device token: this is the administrative API."))
async def get_activity() -> dict[str, Any]:
    """Administrative actions, sign-ins and server events, newest first.

    An unknown actorKind, category or targetKind, a malformed from, to or
    limit, targetId without targetKind, or actorUserId with an actorKind other
    than member is 400 field_invalid naming the parameter.
    """
    args = request.args
    where = _filter(args)
    limit = page_limit(args.get("limit"))
    cursors = PageCursors(args)
    after = None if cursors.after is None else ActivityPosition(*cursors.after)
    records, more = await query_activity(app_context().store, where, after, limit)
    body: dict[str, Any] = {"entries": [entry_json(r) for r in records]}
    last = records[-1] if more and records else None
    if last is not None and last.at_ms is not None and last.id is not None:  # stored entries have both
        body["nextCursor"] = cursors.next(last.at_ms, last.id)
    return body


def entry_json(record: ActivityRecord) -> dict[str, Any]:
    actor: dict[str, Any] = {"kind": record.actor_kind}
    if record.actor_name:
        actor["name"] = record.actor_name
    id_field = {"member": "userId", "apiKey": "apiKeyId", "plugin": "pluginId"}.get(record.actor_kind)
    if id_field and record.actor_id:
        actor[id_field] = record.actor_id
    target: dict[str, Any] = {"kind": record.target_kind}
    if record.target_id:
        target["id"] = record.target_id
    if record.target_name:
        target["name"] = record.target_name
    body = {
        "id": str(record.id),
        "action": record.action,
        "at": rfc3339_ms(record.at_ms or 0),
        "category": record.category,
        "actor": actor,
        "target": target,
        "details": dict(record.details),
    }
    if record.remote_addr:
        body["remoteAddr"] = record.remote_addr
    return body


def _filter(args: Any) -> ActivityFilter:
    actor_kind = _enum(args.get("actorKind"), ACTOR_KINDS, "actorKind")
    actor_user_id = args.get("actorUserId") or None
    if actor_user_id is not None:
        if actor_kind not in (None, "member"):
            raise Invalid("actorUserId implies actorKind member.", field="actorUserId")
        actor_kind = "member"
    categories = tuple(_enum(value, CATEGORIES, "category") for value in args.getlist("category"))
    target_kind = _enum(args.get("targetKind"), TARGET_KINDS, "targetKind")
    target_id = args.get("targetId") or None
    if target_id is not None and target_kind is None:
        raise Invalid("targetId needs targetKind.", field="targetId")
    return ActivityFilter(
        actor_kind=actor_kind,
        actor_id=actor_user_id,
        categories=tuple(c for c in categories if c is not None),
        target_kind=target_kind,
        target_id=target_id,
        from_ms=_instant(args.get("from"), "from"),
        to_ms=_instant(args.get("to"), "to"),
    )


def _enum(value: str | None, allowed: tuple[str, ...], field: str) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise Invalid(f"{field} must be one of {', '.join(allowed)}.", field=field)
    return value


def _instant(value: str | None, field: str) -> int | None:
    return None if value is None else instant_ms(value, field)
