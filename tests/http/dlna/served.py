"""A running server with DLNA on, its member Ann and a library of real media (ffmpeg) on each backend.

Films (Arrival, rated PG-13, with a poster, an external subtitle and a genre; Blade
Runner an MP4 with a DLNA profile; Contact long enough to seek in) and Shows (a series, one season, three
episodes) are Ann's; Private (a movie) is not, so DLNA must never show it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, add_user, update_member

from ...media_factory import MediaFactory, VideoSpec
from ...tls import shared_tls_context
from ..conftest import RunningServer, start_server
from ..live_server import module_database
from ..scanning import SCAN_TIMEOUT_S, create_library, wait_for_state
from ..shared_server import START_CAP_S, started_in_thread

SOAP_TIMEOUT_S = 15.0
SUBTITLE = "1\n00:00:00,000 --> 00:00:00,900\nHello\n"
CONTACT_SECONDS = 8  # long enough for a seek into it
CONTENT_DIRECTORY = "urn:schemas-upnp-org:service:ContentDirectory:1"
CONNECTION_MANAGER = "urn:schemas-upnp-org:service:ConnectionManager:1"


@dataclass(frozen=True)
class Served:
    server: RunningServer
    libraries: dict[str, str]  # name -> id

    @property
    def url(self) -> str:
        return self.server.base_url


def make_media(root: Path, media: MediaFactory) -> dict[str, Path]:
    films = root / "Films"
    media.video(films / "Arrival (2016)" / "Arrival (2016).mkv", VideoSpec(width=320, height=240))
    MediaFactory.image(films / "Arrival (2016)" / "poster.jpg")
    MediaFactory.text(films / "Arrival (2016)" / "Arrival (2016).en.srt", SUBTITLE)
    MediaFactory.text(films / "Arrival (2016)" / "Arrival (2016).nfo",
                      "<movie><title>Arrival</title><year>2016</year><genre>Science Fiction</genre>"
                      "<mpaa>PG-13</mpaa></movie>")  # rated: the parental tests hide it
    media.video(films / "Blade Runner (1982)" / "Blade Runner (1982).mp4", VideoSpec(container="mp4"))
    # MPEG-2 has a key frame every 12 frames (x264 one in 250): a seek lands near where it asked
    media.video(films / "Contact (1997)" / "Contact (1997).mkv", VideoSpec(codec="mpeg2video", seconds=CONTACT_SECONDS))
    season = root / "Shows" / "Severance" / "Season 1"
    for number in (2, 1, 3):
        media.video(season / f"Severance S01E0{number}.mkv")
    media.video(root / "Private" / "Secret (2001)" / "Secret (2001).mkv")
    return {"Films": films, "Shows": root / "Shows", "Private": root / "Private"}


async def start_dlna_server(
    nursery: trio.Nursery, database_url: str, tmp_path: Path, media: MediaFactory
) -> Served:
    folders = make_media(tmp_path / "media", media)
    server = await start_server(
        nursery, database_url, tmp_path / "data", dlna={"enabled": True, "member": "Ann"}, server_name="Den",
    )
    libraries: dict[str, str] = {}
    async with server.client() as client:
        for name, kind in (("Films", "movies"), ("Shows", "tvshows"), ("Private", "movies")):
            created = await create_library(client, name, [folders[name]], collectionType=kind, realtimeMonitor=False)
            libraries[name] = created["id"]
        for library_id in libraries.values():
            await wait_for_state(client, library_id)
    async with open_store(database_url) as store:
        await add_user(store, "Ann", is_admin=False, password="correct horse battery")
        await update_member(store, "Ann", MemberChanges(libraries=(libraries["Films"], libraries["Shows"])))
    return Served(server, libraries)


@pytest.fixture(scope="module", name="served")
def module_served(backend: str, tmp_path_factory: pytest.TempPathFactory, media: MediaFactory) -> Iterator[Served]:
    """One DLNA server per module and backend, for a module whose tests only read (see tests/http/shared_server.py).

    Import it with the module-scoped ``backend`` of tests/http/shared_server.py.
    """
    root = tmp_path_factory.mktemp(f"dlna-{backend}")
    with module_database(backend, root) as url, started_in_thread(
        lambda nursery: start_dlna_server(nursery, url, root, media), lambda served: served.server.shutdown,
        start_cap_s=START_CAP_S + 3 * SCAN_TIMEOUT_S,  # the server, then its three libraries' scans
    ) as served:
        yield served


def envelope(service: str, action: str, **arguments: Any) -> bytes:
    args = "".join(f"<{k}>{v}</{k}>" for k, v in arguments.items())
    return (
        '<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"'
        ' s:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>'
        f'<u:{action} xmlns:u="{service}">{args}</u:{action}></s:Body></s:Envelope>'
    ).encode()


async def soap(base_url: str, path: str, service: str, action: str, body: bytes | None = None,
               **arguments: Any) -> httpx.Response:  # fmt: skip
    """POST one control request to ``/dlna/control/{path}``."""
    headers = {"Content-Type": 'text/xml; charset="utf-8"', "SOAPAction": f'"{service}#{action}"'}
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=base_url, timeout=SOAP_TIMEOUT_S) as client:
        return await client.post(
            f"/dlna/control/{path}", content=body if body is not None else envelope(service, action, **arguments),
            headers=headers,
        )
