"""A small catalogue and a signed-in player for the playback tests (rows written straight into the store)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import trio

from reelhouse.storage import open_store

from ..catalog_factory import catalog
from .conftest import RunningServer
from .members import add_member, login

PASSWORD = "correct horse battery"
TICKS = 10_000_000
MOVIE_SECONDS = 6000.0
EPISODE_SECONDS = 3000.0
POLL_S = 0.02


@dataclass(frozen=True)
class Catalogue:
    library: str
    hidden_library: str
    movie: str
    series: str
    season: str
    episode: str
    hidden_movie: str
    member: str
    token: str
    device_id: str  # the Device row's id (not the player's own identifier)


async def playback_catalogue(server: RunningServer, device_id: str = "player-1") -> Catalogue:
    """Ann sees the library "Shows" (a movie and S01E04 of Severance), not "Private"."""
    async with open_store(server.database_url) as store:
        async with catalog(store) as cat:
            library, hidden = cat.library("Shows"), cat.library("Private")
            movie = cat.movie(library, "Arrival", runtime_ticks=int(MOVIE_SECONDS * TICKS))
            cat.media(movie, bitrate=8_000_000, runtime_ticks=int(MOVIE_SECONDS * TICKS))
            series = cat.series(library, "Severance")
            season = cat.season(series, 1)
            episode = cat.episode(season, 4, name="The You You Are")
            cat.media(episode, bitrate=4_500_000, runtime_ticks=int(EPISODE_SECONDS * TICKS))
            hidden_movie = cat.movie(hidden, "Heat")
    member = await add_member(server, "Ann", password=PASSWORD, libraries=(library,))
    signed_in = await login(server, "Ann", password=PASSWORD, deviceId=device_id)
    assert signed_in.status_code == 200, signed_in.text
    token, device = signed_in.json()["token"], signed_in.json()["deviceId"]
    return Catalogue(library, hidden, movie, series, season, episode, hidden_movie, member, token, device)


async def start_playing(player: httpx.AsyncClient, item_id: str, **body: Any) -> str:
    response = await player.post("/sessions/playing", json={"itemId": item_id, **body})
    assert response.status_code == 200, response.text
    return response.json()["sessionId"]


async def live_sessions(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    response = await client.get("/admin/playback/sessions")
    assert response.status_code == 200, response.text
    return response.json()


async def wait_until_sessions(client: httpx.AsyncClient, check: Any) -> list[dict[str, Any]]:
    """Poll the admin list until ``check(sessions)`` holds (the caller bounds the wait)."""
    while not check(sessions := await live_sessions(client)):
        await trio.sleep(POLL_S)
    return sessions


async def catalogue_playing(server: RunningServer, **body: Any) -> tuple[Catalogue, str]:
    """:func:`playback_catalogue` with Ann's player playing the movie; the session's id."""
    cat = await playback_catalogue(server)
    async with server.client(key=cat.token) as player:
        return cat, await start_playing(player, cat.movie, **body)
