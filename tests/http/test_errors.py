"""Every error renders the reference's body {code, message, params}."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import httpx
import pytest
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve
from quart import Blueprint
from quart_schema import validate_request

from reelhouse import errors
from reelhouse.actors.tree import open_actor_tree
from reelhouse.config import load_settings
from reelhouse.http import AppContext, create_app
from reelhouse.http.schema import ApiModel
from reelhouse.runtime import ActorStopped, NestedAskFailed
from reelhouse.storage import migrate, open_store
from reelhouse.storage.apikeys import create_api_key

from ..tls import shared_tls_context
from .shared_server import started_in_thread


class Widget(ApiModel):
    name: str
    size: int


probe = Blueprint("probe", __name__)


@probe.post("/probe/widgets")
@validate_request(Widget)
async def create_widget(data: Widget) -> dict[str, str]:
    return {"name": data.name}


@probe.get("/probe/crash")
async def crash() -> None:
    raise RuntimeError("secret internal detail")


@probe.get("/probe/conflict")
async def conflict() -> None:
    raise errors.Conflict("A scan is already running.", params={"libraryId": "abc"})


@probe.get("/probe/part")
async def part() -> None:
    failed = NestedAskFailed("library:abc", "actor library:abc: a part it needed did not answer")
    failed.__cause__ = ActorStopped("scan:abc", "actor scan:abc stopped")
    raise failed


@dataclass(frozen=True)
class ProbeServer:
    url: str
    key: str
    shutdown: trio.Event


@pytest.fixture(scope="module")
def probe_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProbeServer]:
    """The real app plus a probe blueprint over a real socket, one per module: its tests only send refused
    or answered requests, which change nothing another test reads."""
    root = tmp_path_factory.mktemp("errors")
    with started_in_thread(lambda nursery: nursery.start(_serve_probe, root), lambda probe: probe.shutdown) as probe:
        yield probe


async def _serve_probe(root: Path, task_status: trio.TaskStatus[ProbeServer]) -> None:
    settings = load_settings(flags={"data_dir": str(root), "scan": {"health_probe_at_start": False}}, environ={})
    async with open_store(f"sqlite:///{root / 'db.sqlite'}") as store:
        await migrate(store)
        _record, key = await create_api_key(store, "tests")
        async with open_actor_tree(settings, store, "dev") as actors:
            context = AppContext(settings, store, "dev", "sid", datetime.now(UTC), actors)
            app = create_app(context)
            app.register_blueprint(probe, url_prefix="/api/v1")
            config = HypercornConfig()
            config.bind = ["127.0.0.1:0"]
            shutdown = trio.Event()
            async with trio.open_nursery() as http:
                binds = await http.start(partial(hypercorn_serve, app, config, shutdown_trigger=shutdown.wait))
                task_status.started(ProbeServer(f"{binds[0]}/api/v1", key, shutdown))
            await actors.stop(deadline=trio.current_time() + 2)


@pytest.fixture
async def client(probe_server: ProbeServer) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": f"Bearer {probe_server.key}"}
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=probe_server.url, headers=headers) as c:
        yield c


async def request(client: httpx.AsyncClient, method: str, path: str, **kwargs: object) -> httpx.Response:
    with trio.fail_after(20):
        return await client.request(method, path, **kwargs)  # type: ignore[arg-type]


async def test_unknown_route_is_404_not_found(client: httpx.AsyncClient) -> None:
    response = await request(client, "GET", "/no/such/thing")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


async def test_wrong_method_is_405_with_allow_header(client: httpx.AsyncClient) -> None:
    response = await request(client, "DELETE", "/system/status")
    assert response.status_code == 405
    assert response.json()["code"] == "bad_request"
    assert "GET" in response.headers["Allow"]


async def test_malformed_json_is_400_bad_request(client: httpx.AsyncClient) -> None:
    response = await request(
        client, "POST", "/probe/widgets", content=b'{"name": ', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"


async def test_missing_field_is_field_required_naming_the_field(client: httpx.AsyncClient) -> None:
    response = await request(client, "POST", "/probe/widgets", json={"name": "a"})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "field_required"
    assert body["params"] == {"field": "size"}


async def test_wrong_type_is_field_invalid_naming_the_field(client: httpx.AsyncClient) -> None:
    response = await request(client, "POST", "/probe/widgets", json={"name": "a", "size": "big"})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "field_invalid"
    assert body["params"]["field"] == "size"


async def test_valid_body_passes(client: httpx.AsyncClient) -> None:
    response = await request(client, "POST", "/probe/widgets", json={"name": "a", "size": 3})
    assert response.status_code == 200
    assert response.json() == {"name": "a"}


async def test_domain_error_keeps_its_code_and_params(client: httpx.AsyncClient) -> None:
    response = await request(client, "GET", "/probe/conflict")
    assert response.status_code == 409
    assert response.json() == {
        "code": "conflict",
        "message": "A scan is already running.",
        "params": {"libraryId": "abc"},
    }


async def test_an_actor_whose_nested_ask_failed_is_503_with_a_retry(client: httpx.AsyncClient) -> None:
    response = await request(client, "GET", "/probe/part")
    assert response.status_code == 503 and response.headers["retry-after"] == "5"
    body = response.json()
    assert body["code"] == "service_unavailable" and body["params"] == {"retryAfterSeconds": 5}
    assert "scan:abc" not in body["message"]  # the actors' names stay inside


async def test_unhandled_exception_is_500_without_detail_and_logged_with_request_id(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        response = await request(client, "GET", "/probe/crash")
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == "internal_error"
    assert "secret internal detail" not in response.text
    assert "Traceback" not in response.text
    request_id = response.headers["X-Request-Id"]
    assert body["params"]["requestId"] == request_id
    assert any(request_id in r.getMessage() and r.exc_info for r in caplog.records)
