"""The OpenAPI description documents the members, devices, sign-in and activity routes with their errors."""

from __future__ import annotations

import httpx
import pytest
import trio

ROUTES = [
    ("/api/v1/users", "get", {"200", "401", "403", "503"}),
    ("/api/v1/users/{user_id}", "get", {"200", "404"}),
    ("/api/v1/devices", "get", {"200", "403"}),
    ("/api/v1/devices/{device_id}", "delete", {"404"}),
    ("/api/v1/auth/login", "post", {"200", "400", "401", "403", "429"}),
    ("/api/v1/auth/logout", "post", {"401", "403"}),
    ("/api/v1/activity", "get", {"200", "400"}),
]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_member_routes_document_their_responses(client: httpx.AsyncClient) -> None:
    with trio.fail_after(30):
        spec = (await client.get("/openapi.json")).json()
    for path, method, statuses in ROUTES:
        operation = spec["paths"][path][method]
        assert statuses <= set(operation["responses"]), (path, sorted(operation["responses"]))
    activity = spec["paths"]["/api/v1/activity"]["get"]
    names = {parameter["name"] for parameter in activity.get("parameters", [])}
    assert {"actorKind", "actorUserId", "category", "targetKind", "targetId", "from", "to", "cursor", "limit"} <= names
