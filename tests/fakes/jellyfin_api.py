"""A local fake of a Jellyfin (or Emby) server's API, as far as an import reads it: a real HTTP server.

Shapes as Jellyfin's OpenAPI document has them (UserDto, BaseItemDto,
UserItemDataDto, BaseItemDtoQueryResult, PublicSystemInfo)::

    with fake_jellyfin(users={"Ann": [item(...), ...]}) as fake:
        fake.base_url          # http://127.0.0.1:PORT
        fake.token             # the administrator token it accepts (X-Emby-Token or MediaBrowser Token=)
        fake.product = "Emby Server"   # what /System/Info/Public calls itself
        fake.requests          # (path, query) of every request, oldest first

Routes: ``GET /System/Info/Public`` (no token), ``GET /Users``,
``GET /Users/{id}/Items`` (``StartIndex``, ``Limit``; answers every item
of that user with its ``UserData``). 401 without the token.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

FAKE_TOKEN = "0123456789abcdef0123456789abcdef"
_ITEMS = re.compile(r"/Users/([0-9a-f]+)/Items")
_TOKEN = re.compile(r'Token="([^"]*)"')


def item(name: str, kind: str, path: str, *, providers: Mapping[str, str] | None = None, played: bool = False,
         play_count: int = 0, position_ticks: int = 0, favorite: bool = False,
         last_played: str | None = None) -> dict[str, Any]:
    """A BaseItemDto with ProviderIds, Path and UserData, as asked for with Fields=ProviderIds,Path."""
    data: dict[str, Any] = {"PlaybackPositionTicks": position_ticks, "PlayCount": play_count,
                            "IsFavorite": favorite, "Played": played, "Key": uuid.uuid4().hex}
    if last_played is not None:
        data["LastPlayedDate"] = last_played
    return {"Name": name, "ServerId": "fakeserver", "Id": uuid.uuid4().hex, "Type": kind, "Path": path,
            "IsFolder": kind == "Series", "ProviderIds": dict(providers or {}), "UserData": data,
            "LocationType": "FileSystem", "MediaType": "Video" if kind != "Series" else "Unknown"}


class FakeJellyfin:
    def __init__(self, users: Mapping[str, list[dict[str, Any]]], token: str = FAKE_TOKEN) -> None:
        self.token = token
        self.product = "Jellyfin Server"
        self.users = {uuid.uuid4().hex: (name, items) for name, items in users.items()}
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, path: str, query: dict[str, list[str]], headers: Mapping[str, str]) -> tuple[int, Any]:
        self.requests.append((path, query))
        if path == "/System/Info/Public":
            return 200, {"LocalAddress": self.base_url, "ServerName": "Den", "Version": "10.10.3",
                         "ProductName": self.product, "Id": "fakeserver", "StartupWizardCompleted": True}
        if not self._authorised(headers):
            return 401, "Unauthorized"
        if path == "/Users":
            return 200, [{"Name": name, "Id": user_id, "ServerId": "fakeserver", "HasPassword": True,
                          "Policy": {"IsAdministrator": name == "Admin"}}
                         for user_id, (name, _items) in self.users.items()]
        found = _ITEMS.fullmatch(path)
        if found is None or found.group(1) not in self.users:
            return 404, "Not found"
        items = self.users[found.group(1)][1]
        start = int(query.get("StartIndex", ["0"])[0])
        limit = int(query.get("Limit", [str(len(items))])[0])
        return 200, {"Items": items[start:start + limit], "TotalRecordCount": len(items), "StartIndex": start}

    def _authorised(self, headers: Mapping[str, str]) -> bool:
        if headers.get("X-Emby-Token") == self.token:
            return True
        claimed = _TOKEN.search(headers.get("Authorization", ""))
        return claimed is not None and claimed.group(1) == self.token


def _handler(fake: FakeJellyfin) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            status, body = fake.answer(parts.path, parse_qs(parts.query), self.headers)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def fake_jellyfin(users: Mapping[str, list[dict[str, Any]]]) -> Iterator[FakeJellyfin]:
    fake = FakeJellyfin(users)
    fake._thread.start()
    try:
        yield fake
    finally:
        fake._server.shutdown()
        fake._server.server_close()
