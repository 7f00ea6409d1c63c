"""``reelhouse import jellyfin|emby``: members' watch state and provider ids from another server.

The command runs as a real process against the database of a serving
Reelhouse (both backends); the other server is a local fake answering
Jellyfin's documented shapes (tests/fakes/jellyfin_api.py), and then our
own Jellyfin-compatible surface, run as a second server process.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import trio

from reelhouse.storage import migrate, open_store
from reelhouse.storage.apikeys import create_api_key
from reelhouse.storage.watch_state import WatchState, watch_states
from tests.fakes.jellyfin_api import FAKE_TOKEN, fake_jellyfin, item
from tests.media_factory import MediaFactory

from ..conftest import SCHEMAS, schema_url
from ..server_process import ServerProcess, run_cli
from ..tls import shared_tls_context
from .conftest import RunningServer, migrated_copy, start_server
from .members import add_member, token_for
from .scanning import create_library, wait_for_state
from .scrape_support import items_by_name

CAP_S = 120
PEER_START_S = 120.0
NO_PROVIDERS = {"remoteAllowedHosts": [], "metadataProviders": []}
HEAT_PLAYED_AT = "2026-11-01T20:00:00.0000000Z"
HEAT_PLAYED_MS = 1_793_563_200_000


def _films(media: MediaFactory, root: Path) -> Path:
    for title in ("Heat (1995)", "Ronin (1998)"):
        media.video(root / title / f"{title}.mkv")
    return root


async def _target(nursery: trio.Nursery, database_url: str, tmp_path: Path, films: Path) -> tuple[RunningServer,
                                                                                                  dict[str, Any]]:
    server = await start_server(nursery, database_url, tmp_path / "data")
    async with server.client() as client:
        library = await create_library(client, "Films", [films], options=NO_PROVIDERS)
        await wait_for_state(client, library["id"])
        return server, await items_by_name(client, library["id"])


async def _import(server: RunningServer, url: str, *extra: str, kind: str = "jellyfin",
                  token: str = FAKE_TOKEN) -> tuple[int, str, str]:
    args = ["--data-dir", str(server.data_dir), "--database", server.database_url, "import", kind, url, *extra]
    done = await run_cli(args, stdin=f"{token}\n".encode())
    return done.returncode, done.stdout.decode(), done.stderr.decode()


async def _states(server: RunningServer, member_id: str, *item_ids: str) -> dict[str, WatchState]:
    async with open_store(server.database_url) as store:
        return await watch_states(store, member_id, list(item_ids))


async def test_a_dry_run_says_what_it_would_change_and_the_import_changes_only_that(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    with trio.fail_after(CAP_S):
        server, films = await _target(nursery, database_url, tmp_path, _films(media, tmp_path / "films"))
        heat, ronin = films["Heat"]["id"], films["Ronin"]["id"]
        ann = await add_member(server, "Ann", all_libraries=True)
        async with server.client(key=await token_for(server, "Ann")) as member:
            assert (await member.post(f"/me/played/{ronin}")).status_code == 200  # ours, newer than theirs
        peer_items = [
            item("Heat", "Movie", "/srv/peer/Heat (1995)/Heat (1995).mkv", providers={"Tmdb": "949"}, played=True,
                 play_count=2, favorite=True, last_played=HEAT_PLAYED_AT),
            item("Ronin", "Movie", "/srv/peer/Ronin (1998)/Ronin (1998).mkv", position_ticks=600 * 10**7,
                 last_played="2026-10-01T20:00:00.0000000Z"),
            item("Elsewhere", "Movie", "/srv/peer/Elsewhere (2001)/Elsewhere (2001).mkv", played=True),
        ]
        with fake_jellyfin({"Ann": peer_items, "Bob": peer_items[:1]}) as peer:
            dry_code, dry_out, dry_err = await _import(server, peer.base_url)
            after_dry = await _states(server, ann, heat, ronin)
            code, out, err = await _import(server, peer.base_url, "--apply")
        after = await _states(server, ann, heat, ronin)
        async with server.client() as client:
            detail = (await client.get(f"/items/{heat}")).json()
            jobs = (await client.get("/jobs")).json()
            activity = (await client.get("/activity", params={"limit": 200})).json()
    assert dry_code == 0, dry_err
    assert "would mark played\tAnn\tHeat" in dry_out and "would add favourite\tAnn\tHeat" in dry_out
    assert "would add provider ids\tHeat\ttmdb=949" in dry_out
    assert "Ronin" not in dry_out  # our play is newer: nothing of theirs is taken
    assert "member Ann: 3 items read, 1 to change, 1 not matched" in dry_out
    assert "member Bob: no member of that name here; skipped" in dry_out
    assert after_dry[heat] == WatchState(heat)  # a dry run changes nothing
    assert code == 0, err
    assert "did mark played\tAnn\tHeat" in out
    assert after[heat].played and after[heat].play_count == 2 and after[heat].favorite
    assert after[heat].last_played_ms == HEAT_PLAYED_MS
    assert after[ronin].played and after[ronin].position_ms == 0  # ours kept
    assert detail["providerIds"] == {"tmdb": "949"}
    imports = [job for job in jobs if job["kind"] == "peerImport"]
    assert [job["state"] for job in imports] == ["succeeded", "succeeded"]
    assert {job["title"] for job in imports} == {"Import from another server",
                                                 "Import from another server (dry run)"}
    logged = [entry for entry in activity["entries"] if entry["action"] == "server.import"]
    assert [entry["details"]["dryRun"] for entry in logged] == [False, True]
    assert FAKE_TOKEN not in json.dumps(jobs) + json.dumps(activity)


async def test_a_refused_token_a_server_of_another_kind_and_no_answer_say_the_reference_codes(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    with trio.fail_after(CAP_S):
        server, _films_by_name = await _target(nursery, database_url, tmp_path, _films(media, tmp_path / "films"))
        with fake_jellyfin({"Ann": []}) as peer:
            refused = await _import(server, peer.base_url, token="wrong")
            emby = await _import(server, peer.base_url, kind="emby")
            url = peer.base_url
        unreachable = await _import(server, url)
        async with server.client() as client:
            jobs = [job for job in (await client.get("/jobs")).json() if job["kind"] == "peerImport"]
    assert refused[0] == 1 and "source_unauthorized" in refused[2] and "wrong" not in refused[2]
    assert emby[0] == 1 and "import_source_kind_mismatch" in emby[2]
    assert unreachable[0] == 1 and "source_unreachable" in unreachable[2]
    assert [job["state"] for job in jobs] == ["failed"] * 3


@asynccontextmanager
async def _peer_database(database_url: str, tmp_path: Path) -> AsyncIterator[str]:
    """A second database beside the test's: a file, or a schema of the same PostgreSQL (released after)."""
    if database_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'peer' / 'reelhouse.db'}"
        return
    schema = f"t_{uuid.uuid4().hex[:20]}"
    try:
        yield schema_url(schema)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(SCHEMAS.release, schema)  # emptied for a later test, or dropped


async def _peer_with_ann_s_plays(nursery: trio.Nursery, peer: ServerProcess, peer_url: str, data_dir: Path,
                                 films: Path) -> RunningServer:
    """Our server as the other one: a library of the same files, Ann who played Heat and likes Ronin."""
    await migrated_copy(peer_url)
    async with open_store(peer_url) as store:
        await migrate(store)
        _record, key = await create_api_key(store, "import")
    base = await peer.start(nursery, timeout=PEER_START_S)  # a loaded machine starts a server slowly
    running = RunningServer(base, f"{base}/api/v1", key, peer_url, data_dir, trio.Event(), trio.Event())
    async with running.client() as client:
        library = await create_library(client, "Films", [films], options=NO_PROVIDERS)
        await wait_for_state(client, library["id"])
        theirs = await items_by_name(client, library["id"])
    await add_member(running, "Ann", all_libraries=True)
    async with running.client(key=await token_for(running, "Ann")) as member:
        assert (await member.post(f"/me/played/{theirs['Heat']['id']}")).status_code == 200
        assert (await member.post(f"/me/favorites/{theirs['Ronin']['id']}")).status_code == 200
    return running


async def test_a_member_s_watch_state_is_imported_from_our_own_jellyfin_surface_run_as_a_second_server(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> None:
    films = _films(media, tmp_path / "films")
    async with _peer_database(database_url, tmp_path) as peer_url:
        peer = ServerProcess(tmp_path / "peer-data", peer_url)
        try:
            with trio.fail_after(CAP_S + PEER_START_S):
                other = await _peer_with_ann_s_plays(nursery, peer, peer_url, tmp_path / "peer-data", films)
                server, ours = await _target(nursery, database_url, tmp_path, films)
                ann = await add_member(server, "Ann", all_libraries=True)
                code, out, err = await _import(server, other.base_url, "--apply", token=other.key)
                after = await _states(server, ann, ours["Heat"]["id"], ours["Ronin"]["id"])
        finally:
            peer.kill()
    assert code == 0, err + peer.log.decode(errors="replace")[-2000:]
    assert "did mark played\tAnn\tHeat" in out and "did add favourite\tAnn\tRonin" in out
    assert after[ours["Heat"]["id"]].played and not after[ours["Heat"]["id"]].favorite
    assert after[ours["Ronin"]["id"]].favorite and not after[ours["Ronin"]["id"]].played


async def test_a_key_on_the_surface_reads_the_named_member_s_user_data_and_paths(
    server: RunningServer, tmp_path: Path, media: MediaFactory
) -> None:
    films = _films(media, tmp_path / "films")
    with trio.fail_after(CAP_S):
        async with server.client() as client:
            library = await create_library(client, "Films", [films], options=NO_PROVIDERS)
            await wait_for_state(client, library["id"])
            heat = (await items_by_name(client, library["id"]))["Heat"]["id"]
        ann = await add_member(server, "Ann", all_libraries=True)
        ann_token = await token_for(server, "Ann")
        async with server.client(key=ann_token) as member:
            assert (await member.post(f"/me/played/{heat}")).status_code == 200
        params = {"Recursive": "true", "IncludeItemTypes": "Movie", "Fields": "ProviderIds,Path"}
        async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, timeout=10) as http:
            as_key = (await http.get(f"/Users/{ann}/Items", params=params,
                                     headers={"X-Emby-Token": server.key})).json()
            as_member = (await http.get(f"/Users/{ann}/Items", params=params,
                                        headers={"X-Emby-Token": ann_token})).json()
    heat_by_key = next(dto for dto in as_key["Items"] if dto["Name"] == "Heat")
    assert heat_by_key["UserData"]["Played"] is True
    assert heat_by_key["Path"] == str(films / "Heat (1995)" / "Heat (1995).mkv")
    assert all("Path" not in dto for dto in as_member["Items"])  # a member never sees paths
