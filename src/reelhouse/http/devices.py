"""GET /devices and DELETE /devices/{id} (reference, Devices).

One row per device id: sign-ins sharing a player's device id are merged
(``loginCount``); one without an id is a row of its own.  Deleting a row
revokes every sign-in merged into it: each is refused on its very next
request (the verified-sign-in memory forgets them after the commit).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field
from quart import Blueprint, Response
from quart_schema import document_response

from reelhouse import errors
from reelhouse.actors.device_use import FlushDeviceUse
from reelhouse.storage.devices import WEB, DeviceRecord, delete_device, list_devices
from reelhouse.timefmt import rfc3339_ms

from .activity_recording import log_activity
from .asks import ask
from .context import app_context
from .device_auth import verified_devices
from .openapi import may_answer, raw_response
from .schema import ApiModel

blueprint = Blueprint("devices", __name__)


class NamedRef(ApiModel):
    id: str
    name: str


class Device(ApiModel):
    id: str = Field(description="An irreversible hash of the device token.")
    client: str
    device: str
    kind: str
    user_id: str
    user_name: str | None = None
    users: list[NamedRef] = Field(description="Members signed in on it, most recently active first.")
    version: str | None = None
    last_seen: str
    login_count: int
    counts_toward_limit: bool
    over_limit: bool = Field(description="False: there is no licence information.")
    not_counted_reason: str | None = None


@blueprint.get("/devices")
@document_response(list[Device], 200)
@may_answer((403, "A device token: this is the administrative API."))
async def get_devices() -> list[dict[str, Any]]:
    """Every device with a sign-in, most recently seen first; lastSeen follows use."""
    device_use = app_context().actors.device_use
    if device_use is not None:
        await ask(device_use, FlushDeviceUse())  # times noted in memory since the last flush
    return [device_json(record) for record in await list_devices(app_context().store)]


@blueprint.delete("/devices/<device_id>")
@raw_response(204, None, "Every sign-in of the device is revoked.")
@may_answer((403, "A device token: this is the administrative API."))
async def remove_device(device_id: str) -> Response:
    """Revoke every sign-in of this device (204); 404 not_found when it is already gone."""
    token_hashes = await delete_device(app_context().store, device_id)
    if token_hashes is None:
        raise errors.NotFound(f"No device {device_id}.")
    verified_devices().forget(token_hashes)
    await log_activity("device.delete", "security", "", device_id, details={"sessions": len(token_hashes)})
    return Response(b"", status=204)


def device_json(record: DeviceRecord) -> dict[str, Any]:
    latest = record.users[0]
    body: dict[str, Any] = {
        "id": record.id,
        "client": record.client,
        "device": record.name,
        "kind": record.kind,
        "userId": latest.id,
        "userName": latest.name,
        "users": [{"id": user.id, "name": user.name} for user in record.users],
        "lastSeen": rfc3339_ms(record.last_seen_ms),
        "loginCount": record.login_count,
        "overLimit": False,
    }
    if record.version:
        body["version"] = record.version
    # Not counted toward the plan's device limit (reference, Device): every member signed in on it
    # disabled, or a web console sign-in that never played (a browser that only browsed).
    reason = None
    if all(user.disabled for user in record.users):
        reason = "memberDisabled"
    elif record.kind == WEB and not record.played:
        reason = "notPlayed"
    body["countsTowardLimit"] = reason is None
    if reason is not None:
        body["notCountedReason"] = reason
    return body
