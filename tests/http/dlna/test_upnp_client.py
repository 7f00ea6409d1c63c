"""A published UPnP control point (async-upnp-client's ``upnp-client`` command, PyPI) browses
the MediaServer over HTTP to an episode, and python-didl-lite (its DIDL-Lite reader) reads the items."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import didl_lite.didl_lite as didl_lite
import httpx
import trio

from ...sqlite_only import sqlite_only_backend  # noqa: F401  (fixture: SQLite only, see there)
from ...tls import shared_tls_context
from .served import Served, module_served  # noqa: F401  (module_served: the served fixture)

CLIENT_TIMEOUT_S = 60.0
# upnp-client gives each HTTP request (the description, each service's SCPD, the action) 4 s by
# default; at load 16-20 the loaded server (legitimate work: a Browse's queries, the descriptions)
# answered one later than that and the command failed. The test is about what it reads, not how fast.
REQUEST_TIMEOUT_S = int(CLIENT_TIMEOUT_S)
UPNP_CLIENT = Path(sys.executable).with_name("upnp-client")


async def upnp_client(served: Served, *call: str) -> dict[str, Any]:
    """Run ``upnp-client --strict call-action <description> *call``: its JSON answer."""
    command = [str(UPNP_CLIENT), "--strict", "--timeout", str(REQUEST_TIMEOUT_S), "call-action",
               f"{served.url}/dlna/description.xml", *call]  # fmt: skip
    with trio.fail_after(CLIENT_TIMEOUT_S):
        done = await trio.run_process(command, capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


async def children(served: Served, object_id: str, sort: str = "") -> list[Any]:
    answer = await upnp_client(
        served, "CD/Browse", f"ObjectID={object_id}", "BrowseFlag=BrowseDirectChildren", "Filter=*",
        "StartingIndex=0", "RequestedCount=0", f"SortCriteria={sort}",
    )  # fmt: skip
    out = answer["out_parameters"]
    objects = didl_lite.from_xml_string(out["Result"], strict=True)
    assert out["NumberReturned"] == len(objects) <= out["TotalMatches"]
    return list(objects)


def named(objects: list[Any], title: str) -> Any:
    return next(o for o in objects if o.title == title)


async def test_upnp_client_browses_from_the_root_to_an_episode_and_reads_its_didl(served: Served) -> None:
    root = await children(served, "0")
    assert sorted(o.title for o in root) == ["Films", "Shows"]
    views = await children(served, named(root, "Shows").id)
    series = named(await children(served, named(views, "Series").id), "Severance")
    assert isinstance(series, didl_lite.Container)
    season = (await children(served, series.id))[0]
    episodes = await children(served, season.id)
    assert len(episodes) == 3 and all(isinstance(e, didl_lite.VideoItem) for e in episodes)
    resource = episodes[0].res[0]
    assert resource.protocol_info.startswith("http-get:*:video/x-matroska:DLNA.ORG_OP=01")
    assert resource.resolution == "320x240" and resource.duration
    async with httpx.AsyncClient(verify=shared_tls_context(), timeout=15.0) as client:
        head = await client.get(resource.uri, headers={"Range": "bytes=0-3"})
    assert head.status_code == 206 and head.content == b"\x1a\x45\xdf\xa3"  # the Matroska file's first bytes
    films = await children(served, named(await children(served, named(root, "Films").id), "By title").id)
    assert [f.title for f in films] == ["Arrival", "Blade Runner", "Contact"]
    assert isinstance(films[0], didl_lite.Movie)


async def test_upnp_client_reads_the_capabilities_and_browses_in_the_order_it_asks(served: Served) -> None:
    info = await upnp_client(served, "CM/GetProtocolInfo")
    assert "video/x-matroska:DLNA.ORG_OP=01" in info["out_parameters"]["Source"]
    update = await upnp_client(served, "CD/GetSystemUpdateID")
    assert isinstance(update["out_parameters"]["Id"], int)
    caps = (await upnp_client(served, "CD/GetSortCapabilities"))["out_parameters"]["SortCaps"]
    assert {"dc:title", "dc:date"} <= set(caps.split(","))
    films = f"lib.{served.libraries['Films']}.title"
    assert [f.title for f in await children(served, films, "-dc:title")] == ["Contact", "Blade Runner", "Arrival"]
    assert [f.title for f in await children(served, films, "+dc:date")] == ["Blade Runner", "Contact", "Arrival"]
