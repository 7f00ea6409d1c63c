"""A server in the test's process with a catalogue written straight into its store, for the Jellyfin
surface's rules (access, parental controls, confinement, bad input) over real HTTP on both backends.

The published clients' journeys (``test_python_client.py``, ``test_node_client.py``) need real
media; these rules need rows only, so they run against :func:`..conftest.start_server` and
:mod:`tests.catalog_factory`.
"""

from __future__ import annotations

import base64
import functools
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from reelhouse.http.jellyfin import ids
from reelhouse.storage import open_store
from reelhouse.storage.members import MemberChanges, update_member

from ...catalog_factory import catalog
from ...tls import shared_tls_context
from ..conftest import RunningServer

PASSWORD = "correct horse battery"
RUNTIME_TICKS = 3000 * 10_000_000  # 50 minutes
HALF_WAY_TICKS = RUNTIME_TICKS // 2
HORROR_BLOCKED = {"maxAge": 18, "blockedGenres": ["horror"], "blockedTags": [], "blockedItems": [], "allowedItems": []}


@dataclass(frozen=True)
class Shelf:
    """Films (Gore 2001: Horror, Sunny 2002: Comedy, with an actor) and Shows (Scary: Horror; Calm: Comedy,
    Animation; a season of two episodes each), as GUIDs (libraries by their ids)."""

    films: str
    shows: str
    gore: str
    sunny: str
    scary: str
    scary_episodes: list[str]
    calm: str
    calm_episodes: list[str]
    actor: str  # in Sunny


def real_id(random_bytes: Callable[[int], bytes] = secrets.token_bytes) -> str:
    """An item id as the scanner makes them (16 bytes in URL-safe base64), so its GUID maps back to it
    (the catalogue factory's own ids are hex text, which no GUID spells)."""
    return base64.urlsafe_b64encode(random_bytes(16)).rstrip(b"=").decode("ascii")


async def make_shelf(server: RunningServer, random_bytes: Callable[[int], bytes] = secrets.token_bytes) -> Shelf:
    """The shelf, its ids from ``random_bytes`` (a seeded generator's make the same ids every run)."""
    new_id = functools.partial(real_id, random_bytes)
    async with open_store(server.database_url) as store:
        actor = new_id()
        await store.execute(
            "INSERT INTO people (id, name, sort_name, image_tag, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            (actor, "Ada Actor", "Ada Actor", None, 1_700_000_000_000, 1_700_000_000_000),
        )
        async with catalog(store) as cat:
            films, shows = cat.library("Films", "movies"), cat.library("Shows", "tvshows")
            gore = cat.movie(films, "Gore", production_year=2001, id=new_id())
            sunny = cat.movie(films, "Sunny", production_year=2002, id=new_id())
            scary, calm = cat.series(shows, "Scary", id=new_id()), cat.series(shows, "Calm", id=new_id())
            for item, genres in ((gore, ("Horror",)), (sunny, ("Comedy",)), (scary, ("Horror",)),
                                 (calm, ("Comedy", "Animation"))):  # fmt: skip
                cat.values(item, "genre", *genres)
            episodes: dict[str, list[str]] = {}
            for series, name in ((scary, "Scary"), (calm, "Calm")):
                season = cat.season(series, 1, id=new_id())
                episodes[series] = [cat.episode(season, n, name=f"{name} episode {n}", id=new_id()) for n in (1, 2)]
            for video in (gore, sunny, *episodes[scary], *episodes[calm]):
                cat.media(video, runtime_ticks=RUNTIME_TICKS)
            cat.credit(sunny, actor, role="Lead")
    guid = ids.item_guid
    return Shelf(films, shows, guid(gore), guid(sunny), guid(scary), [guid(e) for e in episodes[scary]],
                 guid(calm), [guid(e) for e in episodes[calm]], guid(actor))  # fmt: skip


async def change_member(server: RunningServer, name: str, **changes: Any) -> None:
    async with open_store(server.database_url) as store:
        await update_member(store, name, MemberChanges(**changes))


def authorization(device_id: str) -> str:
    return f'MediaBrowser Client="Surface tests", Device="Test device", DeviceId="{device_id}", Version="1.0"'


async def sign_in(server: RunningServer, name: str, password: str = PASSWORD, device_id: str = "dev-1") -> str:
    """A member's device token from Jellyfin's sign-in."""
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, timeout=10.0) as anonymous:
        answer = await anonymous.post("/Users/AuthenticateByName", json={"Username": name, "Pw": password},
                                      headers={"Authorization": authorization(device_id)})  # fmt: skip
    assert answer.status_code == 200, answer.text
    return str(answer.json()["AccessToken"])


@asynccontextmanager
async def jellyfin(server: RunningServer, token: str | None) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the Jellyfin surface sending ``token`` as Jellyfin's apps do (``X-Emby-Token``)."""
    headers = {"X-Emby-Token": token} if token else {}
    async with httpx.AsyncClient(verify=shared_tls_context(), base_url=server.base_url, headers=headers, timeout=10.0) as client:
        yield client


async def names(client: httpx.AsyncClient, path: str, **params: Any) -> list[str]:
    """The names a list answers (a QueryResult's ``Items``, a bare list, or ``SearchHints``), in order."""
    answer = await client.get(path, params=params)
    assert answer.status_code == 200, (path, answer.text)
    body = answer.json()
    items = body if isinstance(body, list) else body.get("Items", body.get("SearchHints"))
    return [item["Name"] for item in items]


async def play_half_way(client: httpx.AsyncClient, item: str, session: str) -> None:
    report = {"ItemId": item, "PlaySessionId": session, "PositionTicks": 0}
    assert (await client.post("/Sessions/Playing", json=report)).status_code == 204
    stopped = await client.post("/Sessions/Playing/Stopped", json={**report, "PositionTicks": HALF_WAY_TICKS})
    assert stopped.status_code == 204, stopped.text


async def mark_played(client: httpx.AsyncClient, item: str) -> None:
    answer = await client.post(f"/UserPlayedItems/{item}")
    assert answer.status_code == 200, answer.text
