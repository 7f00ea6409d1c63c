"""The OpenAPI document is valid and complete: every route the app registers, every status it sends.

The route walk is mechanical: a route added later (by any module) fails
here until it documents its success response (``document_response`` /
``validate_response``, or ``http.openapi.raw_response`` for a body that is
not JSON or no body at all). Error responses are added by
``http/openapi.py``; a route declares the others it sends with
``http.openapi.may_answer``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx
import pytest
import trio
from openapi_spec_validator import OpenAPIV31SpecValidator
from quart import Quart

import reelhouse
from reelhouse.http import create_app
from reelhouse.http.auth import PUBLIC_PATHS
from reelhouse.http.openapi_names import OPERATIONS

from ..tls import shared_tls_context
from .conftest import RunningServer

ERROR_REF = "#/components/schemas/ErrorBody"
IGNORED_METHODS = frozenset({"HEAD", "OPTIONS"})


@pytest.fixture(scope="module")
def app() -> Quart:
    return create_app(SimpleNamespace(version="test"))  # type: ignore[arg-type]  # routes need no context


@pytest.fixture(scope="module")
def document(app: Quart) -> dict[str, Any]:
    return app.extensions["QUART_SCHEMA"].openapi_provider.schema()


def api_operations(app: Quart) -> list[tuple[str, str, Any]]:
    """(METHOD, OpenAPI path, rule) of every route the app serves under /api/v1, except hidden ones."""
    found = []
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        if not rule.rule.startswith("/api/v1/") or getattr(view, "_quart_schema_hidden", False):
            continue
        path = rule.rule
        for name in rule.arguments:
            path = path.replace(f"<{name}>", f"{{{name}}}")
        found.extend((method, path, rule) for method in sorted(rule.methods or ()) if method not in IGNORED_METHODS)
    return found


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    errors = [f"{list(e.path)}: {e.message}" for e in OpenAPIV31SpecValidator(document).iter_errors()]
    assert errors == []


def test_every_route_documents_a_success_and_every_error_it_can_send(app: Quart, document: dict[str, Any]) -> None:
    operations = api_operations(app)
    assert len(operations) >= 20
    problems = []
    for method, path, rule in operations:
        operation = document["paths"].get(path, {}).get(method.lower())
        if operation is None:
            problems.append(f"{method} {path}: not in the document")
            continue
        responses = operation["responses"]
        success = ("2", "101") if rule.websocket else ("2",)  # a WebSocket succeeds by switching protocols
        if not any(status.startswith(success) for status in responses):
            problems.append(f"{method} {path}: no success response (add document_response or raw_response)")
        expected = {"400", "500", "503"}
        expected |= set() if rule.rule in PUBLIC_PATHS else {"401"}
        expected |= {"404"} if rule.arguments else set()
        expected |= {"413"} if "requestBody" in operation else set()
        problems += [f"{method} {path}: {status} undocumented" for status in sorted(expected - set(responses))]
        for status, response in responses.items():
            schema = response.get("content", {}).get("application/json", {}).get("schema", {})
            if status[0] in "45" and status != "304" and schema.get("$ref") != ERROR_REF:
                problems.append(f"{method} {path}: {status} without the error body")
    assert problems == []


def test_search_q_is_a_required_query_parameter(document: dict[str, Any]) -> None:
    parameters = {p["name"]: p for p in document["paths"]["/api/v1/search"]["get"]["parameters"]}
    assert parameters["q"].get("required") is True
    assert not parameters["limit"].get("required", False)


def test_scan_errors_documents_library_id_and_its_404(document: dict[str, Any]) -> None:
    operation = document["paths"]["/api/v1/scans/errors"]["get"]
    assert [p["name"] for p in operation["parameters"]] == ["libraryId"]
    assert "404" in operation["responses"]


def test_scan_start_documents_its_optional_body(document: dict[str, Any]) -> None:
    body = document["paths"]["/api/v1/libraries/{library_id}/scan"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert set(schema["properties"]) == {"mode", "rewrite"}
    assert not body.get("required", False)


def test_a_required_body_is_marked_required(document: dict[str, Any]) -> None:
    body = document["paths"]["/api/v1/libraries"]["post"]["requestBody"]
    assert body["required"] is True
    assert set(body["content"]["application/json"]["schema"]["required"]) == {"name", "paths", "collectionType"}


def test_optional_query_parameters_are_never_null(document: dict[str, Any]) -> None:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation["parameters"]:
                assert "anyOf" not in parameter["schema"], (method, path, parameter["name"])


async def test_the_served_document_is_the_one_checked_and_needs_no_key(server: RunningServer) -> None:
    async with httpx.AsyncClient(verify=shared_tls_context()) as anonymous:
        with trio.fail_after(20):
            response = await anonymous.get(f"{server.api_url}/openapi.json")
            status = await anonymous.get(f"{server.api_url}/system/status",
                                         headers={"Authorization": f"Bearer {server.key}"})
    assert response.status_code == 200
    served = response.json()
    assert list(OpenAPIV31SpecValidator(served).iter_errors()) == []
    # One version: the installed package's, in the document and the status alike.
    assert served["info"]["version"] == status.json()["version"] == reelhouse.__version__
    assert served["paths"]["/api/v1/search"]["get"]["responses"]["400"]["content"]


def test_every_route_has_a_tag_of_the_reference_groups_and_a_stable_unique_operation_id(
    app: Quart, document: dict[str, Any]
) -> None:
    tags = {tag["name"] for tag in document["tags"]}
    ids: list[str] = []
    for method, path, _rule in api_operations(app):
        operation = document["paths"][path][method.lower()]
        assert operation.get("tags", [None])[0] in tags, (method, path, "no tag: add it to http/openapi_names.py")
        ids.append(operation["operationId"])
    assert len(ids) == len(set(ids))
    assert {"listLibraries", "listItems", "getItem", "streamVideo", "getItemImage", "signIn"} <= set(ids)
    assert all(name[0].islower() and "_" not in name for name in ids)


def test_every_named_operation_is_a_route_the_app_serves(app: Quart) -> None:
    served = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert set(OPERATIONS) - served == set()


def test_binary_bodies_name_concrete_media_types_that_generators_read(document: dict[str, Any]) -> None:
    image = document["paths"]["/api/v1/images/items/{item_id}"]["get"]["responses"]["200"]["content"]
    video = document["paths"]["/api/v1/videos/{item_id}/stream"]["get"]["responses"]["206"]["content"]
    for content in (image, video):
        assert not any(media_type.endswith("/*") for media_type in content)
        assert all(entry["schema"] == {"type": "string", "format": "binary"} for entry in content.values())
    assert {"image/jpeg", "image/webp"} <= set(image)
    assert {"video/mp4", "video/x-matroska", "application/octet-stream"} <= set(video)
