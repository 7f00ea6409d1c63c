"""API keys from the console (the reference keeps key management to the admin console).

The same store functions and activity entries as ``reelhouse apikey``: a new
key's plaintext is in the creation's answer once and never again (the store
keeps its hash only); revoking takes effect at the key's next request.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from quart import Response
from quart_schema import hide

from reelhouse import errors
from reelhouse.storage import apikeys
from reelhouse.timefmt import rfc3339_ms

from ..activity_recording import log_activity
from ..context import app_context
from .admin_gate import require_admin
from .blueprint import blueprint
from .forms import parse_body


class NewKey(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=apikeys.NAME_MAX_LENGTH)


@blueprint.get("/admin/keys/list")
@hide  # the console, not the API: kept out of the OpenAPI document
async def list_keys() -> dict[str, Any]:
    """Every key (revoked ones too), oldest first; never a key itself."""
    require_admin()
    keys = await apikeys.list_api_keys(app_context().store)
    return {"items": [_key_json(key) for key in keys]}


@blueprint.post("/admin/keys")
@hide  # the console, not the API: kept out of the OpenAPI document
async def create_key() -> dict[str, Any]:
    """Create a key named ``name``; the answer holds the key, shown this once."""
    require_admin()
    data = await parse_body(NewKey)
    record, plaintext = await apikeys.create_api_key(app_context().store, data.name)
    await log_activity("apikey.create", "security", "apiKey", record.id, record.name)
    return {**_key_json(record), "key": plaintext}


@blueprint.delete("/admin/keys/<key_id>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def revoke_key(key_id: str) -> Response:
    """Revoke a key; 404 when no active key has that id."""
    require_admin()
    if not await apikeys.revoke_api_key(app_context().store, key_id):
        raise errors.NotFound(f"No active API key {key_id}.", params={"keyId": key_id})
    await log_activity("apikey.revoke", "security", "apiKey", key_id)
    return Response(b"", status=204)


def _key_json(key: apikeys.ApiKeyRecord) -> dict[str, Any]:
    body: dict[str, Any] = {"id": key.id, "name": key.name, "createdAt": rfc3339_ms(key.created_at_ms)}
    if key.revoked_at_ms is not None:
        body["revokedAt"] = rfc3339_ms(key.revoked_at_ms)
    if key.last_used_at_ms is not None:
        body["lastUsedAt"] = rfc3339_ms(key.last_used_at_ms)
    return body
