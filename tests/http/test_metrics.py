"""GET /metrics: Prometheus' own parser reads it; requests by route template; nothing secret in a label."""

from __future__ import annotations

from pathlib import Path

import httpx
import trio
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from ..tls import shared_tls_context
from .conftest import RunningServer, start_server

SERVER_FAMILIES = {
    "reelhouse_scans_running", "reelhouse_scan_files_per_second", "reelhouse_scan_errors", "reelhouse_jobs",
    "reelhouse_scrape_queue_depth", "reelhouse_playback_sessions", "reelhouse_event_subscribers",
    "reelhouse_event_subscribers_dropped", "reelhouse_events_refused", "reelhouse_db_connections_in_use",
    "reelhouse_db_connections", "reelhouse_event_loop_lag_seconds", "reelhouse_http_request_duration_seconds",
    "reelhouse_stream_bytes",
}


async def start_with_metrics(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> RunningServer:
    return await start_server(nursery, database_url, tmp_path / "data", metrics={"enabled": True})


def samples(text: str) -> list[Sample]:
    return [sample for family in text_string_to_metric_families(text) for sample in family.samples]


async def test_metrics_parse_and_count_requests_by_route_template_and_status(
    nursery: trio.Nursery, database_url: str, tmp_path: Path
) -> None:
    server = await start_with_metrics(nursery, database_url, tmp_path)
    async with server.client() as client:
        with trio.fail_after(30):
            assert (await client.get("/libraries/0123456789abcdef")).status_code == 404
            assert (await client.get("/libraries")).status_code == 200
            response = await client.get(f"{server.base_url}/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=")  # the exposition format
    families = {family.name: family for family in text_string_to_metric_families(response.text)}
    assert SERVER_FAMILIES <= set(families)
    counts = {
        (s.labels["method"], s.labels["route"], s.labels["status"]): s.value
        for s in families["reelhouse_http_request_duration_seconds"].samples if s.name.endswith("_count")
    }
    assert counts[("GET", "/api/v1/libraries/<library_id>", "404")] == 1
    assert counts[("GET", "/api/v1/libraries", "200")] == 1
    pools = {s.labels["pool"] for s in families["reelhouse_db_connections"].samples}
    assert "readers" in pools
    assert all(s.value == 0 for s in families["reelhouse_scans_running"].samples)


async def test_no_label_holds_a_key_an_id_or_a_path(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> None:
    server = await start_with_metrics(nursery, database_url, tmp_path)
    media = tmp_path / "media"
    media.mkdir()
    async with server.client() as client:
        with trio.fail_after(30):
            created = await client.post("/libraries", json={"name": "Films", "paths": [str(media)],
                                                            "collectionType": "movies"})
            library_id = created.json()["id"]
            await client.get(f"/libraries/{library_id}", params={"token": "query-secret"})
            text = (await client.get(f"{server.base_url}/metrics")).text
    values = {value for sample in samples(text) for value in sample.labels.values()}
    for secret in (server.key, library_id, str(tmp_path), "query-secret", "Films"):
        assert not any(secret in value for value in values), secret


async def test_metrics_need_an_api_key(nursery: trio.Nursery, database_url: str, tmp_path: Path) -> None:
    server = await start_with_metrics(nursery, database_url, tmp_path)
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url) as anonymous:
        with trio.fail_after(20):
            assert (await anonymous.get("/metrics")).status_code == 401
            wrong = await anonymous.get("/metrics", headers={"Authorization": "Bearer rhk_not-a-key"})
    assert wrong.status_code == 401


async def test_metrics_are_off_by_default(server: RunningServer) -> None:
    async with server.client() as client:
        with trio.fail_after(20):
            assert (await client.get(f"{server.base_url}/metrics")).status_code == 404
