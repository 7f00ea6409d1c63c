"""GENA eventing: a published control point (async-upnp-client's ``upnp-client subscribe``) gets the
initial event and, after a scan adds a film, removes one or finds one changed, an event with the
moved SystemUpdateID and the film library's ContainerUpdateIDs; and the SUBSCRIBE rules
(own-address callbacks only, renewal, unsubscribe) over raw HTTP."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import trio

from ...media_factory import MediaFactory
from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ...tls import shared_tls_context
from ..scanning import wait_for_state
from .served import CONTENT_DIRECTORY, Served, soap
from .test_content_directory import browse, out, titles
from .test_upnp_client import UPNP_CLIENT

EVENT_TIMEOUT_S = 90.0


async def next_event(lines: trio.abc.ReceiveStream, buffer: bytearray) -> dict[str, Any]:
    """The next JSON line ``upnp-client subscribe`` printed."""
    while True:
        end = buffer.find(b"\n")
        if end >= 0:
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            if line.startswith(b"{"):
                found: dict[str, Any] = json.loads(line)
                return found
            continue
        chunk = await lines.receive_some(65536)
        assert chunk, "upnp-client ended"
        buffer.extend(chunk)


def update_id(event: dict[str, Any]) -> int | None:
    value = event.get("state_variables", {}).get("SystemUpdateID")
    return None if value is None else int(value)


async def test_a_subscriber_gets_the_initial_event_and_one_after_a_scan_adds_a_film(
    served: Served, tmp_path: Path, media: MediaFactory, nursery: trio.Nursery
) -> None:
    command = [str(UPNP_CLIENT), "subscribe", f"{served.url}/dlna/description.xml", "CD"]
    run = functools.partial(trio.run_process, command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    client: trio.Process = await nursery.start(run)
    assert client.stdout is not None
    buffer = bytearray()
    try:
        with trio.fail_after(EVENT_TIMEOUT_S):
            first = await next_event(client.stdout, buffer)
            while update_id(first) is None:
                first = await next_event(client.stdout, buffer)
            media.video(tmp_path / "media" / "Films" / "Dune (2021)" / "Dune (2021).mkv")
            films_id = served.libraries["Films"]
            async with served.server.client() as api:
                assert (await api.post(f"/libraries/{films_id}/scan", json={"mode": "full"})).status_code == 200
                await wait_for_state(api, films_id)
            moved = await next_event(client.stdout, buffer)
            while update_id(moved) in (None, update_id(first)):
                moved = await next_event(client.stdout, buffer)
    finally:
        client.kill()
    containers = moved["state_variables"].get("ContainerUpdateIDs", "")
    assert f"lib.{films_id}," in containers and f"lib.{served.libraries['Private']}," not in containers


async def test_subscribe_takes_only_own_address_callbacks_renews_and_unsubscribes(served: Served) -> None:
    url = f"{served.url}/dlna/events/contentdirectory"
    own = {"NT": "upnp:event", "CALLBACK": "<http://127.0.0.1:9/events>", "TIMEOUT": "Second-300"}
    async with httpx.AsyncClient(verify=shared_tls_context(), timeout=15.0) as client:
        foreign = await client.request("SUBSCRIBE", url, headers={**own, "CALLBACK": "<http://192.0.2.1:9/x>"})
        assert foreign.status_code == 412
        assert (await client.request("SUBSCRIBE", url, headers={**own, "NT": "other"})).status_code == 412
        assert (await client.request("SUBSCRIBE", url, headers={**own, "CALLBACK": "<file:///x>"})).status_code == 412
        taken = await client.request("SUBSCRIBE", url, headers=own)
        assert taken.status_code == 200 and taken.headers["TIMEOUT"] == "Second-300"
        sid = taken.headers["SID"]
        assert sid.startswith("uuid:")
        renewed = await client.request("SUBSCRIBE", url, headers={"SID": sid, "TIMEOUT": "Second-99999"})
        assert renewed.status_code == 200 and renewed.headers["TIMEOUT"] == "Second-1800"
        both = await client.request("SUBSCRIBE", url, headers={"SID": sid, "NT": "upnp:event"})
        assert both.status_code == 400
        assert (await client.request("UNSUBSCRIBE", url, headers={"SID": sid})).status_code == 200
        assert (await client.request("UNSUBSCRIBE", url, headers={"SID": sid})).status_code == 412
        gone = await client.request("SUBSCRIBE", url, headers={"SID": sid})
        assert gone.status_code == 412


class Subscriber:
    """``upnp-client subscribe`` to the ContentDirectory, its events read as they come."""

    def __init__(self, client: trio.Process) -> None:
        assert client.stdout is not None
        self._lines, self._buffer = client.stdout, bytearray()
        self.update_id: int | None = None  # the SystemUpdateID of the last event that carried one

    async def first(self) -> None:
        while self.update_id is None:
            self.update_id = update_id(await next_event(self._lines, self._buffer))

    async def moved(self) -> dict[str, Any]:
        """The next event whose SystemUpdateID differs from the last one seen."""
        while True:
            event = await next_event(self._lines, self._buffer)
            if update_id(event) not in (None, self.update_id):
                self.update_id = update_id(event)
                return event


@asynccontextmanager
async def subscribed(served: Served, nursery: trio.Nursery) -> AsyncIterator[Subscriber]:
    command = [str(UPNP_CLIENT), "subscribe", f"{served.url}/dlna/description.xml", "CD"]
    run = functools.partial(trio.run_process, command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    client: trio.Process = await nursery.start(run)
    try:
        subscriber = Subscriber(client)
        with trio.fail_after(EVENT_TIMEOUT_S):
            await subscriber.first()
        yield subscriber
    finally:
        client.kill()


async def rescan(served: Served, library_id: str) -> None:
    """A full scan of the library, started after this call and waited for."""
    async with served.server.client() as api:
        first = await wait_for_state(api, library_id)
        assert (await api.post(f"/libraries/{library_id}/scan", json={"mode": "full"})).status_code == 200
        while (await wait_for_state(api, library_id))["startedAt"] == first["startedAt"]:
            await trio.sleep(0.05)


async def system_update_id(served: Served) -> str:
    return out(await soap(served.url, "contentdirectory", CONTENT_DIRECTORY, "GetSystemUpdateID"), "Id")


async def test_a_film_removed_and_a_film_changed_each_move_the_system_update_id_and_reach_a_subscriber(
    served: Served, tmp_path: Path, nursery: trio.Nursery
) -> None:
    films_id = served.libraries["Films"]
    by_title = f"lib.{films_id}.title"
    films = tmp_path / "media" / "Films"
    async with subscribed(served, nursery) as subscriber:
        before = await system_update_id(served)
        shutil.rmtree(films / "Contact (1997)")
        await rescan(served, films_id)
        async with served.server.client() as api:  # a third of the library gone: the safeguard asks first
            assert (await api.post(f"/libraries/{films_id}/confirm-missing")).status_code == 200
        with trio.fail_after(EVENT_TIMEOUT_S):
            removed = await subscriber.moved()
        assert f"lib.{films_id}," in removed["state_variables"].get("ContainerUpdateIDs", "")
        assert titles((await browse(served, by_title))[0]) == ["Arrival", "Blade Runner"]
        after_removal = await system_update_id(served)
        assert after_removal != before and int(after_removal) == subscriber.update_id

        nfo = films / "Arrival (2016)" / "Arrival (2016).nfo"
        nfo.write_text(nfo.read_text().replace("<title>Arrival</title>", "<title>Arrival Revisited</title>"))
        await rescan(served, films_id)
        with trio.fail_after(EVENT_TIMEOUT_S):
            changed = await subscriber.moved()
        containers = changed["state_variables"].get("ContainerUpdateIDs", "")
        assert f"lib.{films_id}," in containers and f"lib.{served.libraries['Shows']}," not in containers
        assert titles((await browse(served, by_title))[0]) == ["Arrival Revisited", "Blade Runner"]
        after_change = await system_update_id(served)
        assert after_change not in (before, after_removal) and int(after_change) == subscriber.update_id
