"""Another server's HTTP API (Jellyfin or Emby), read with an administrator's token for an import.

Requests: ``GET /System/Info/Public`` (which product answers: a Jellyfin
server names itself ``Jellyfin Server`` in ``ProductName``; anything
else is taken for Emby), ``GET /Users`` (every member: needs an
administrator), and ``GET /Users/{id}/Items`` with ``Recursive=true``,
``IncludeItemTypes=Movie,Series,Episode``, ``Fields=ProviderIds,Path,
MediaSources`` and ``EnableUserData=true``, paged by ``StartIndex`` and
``Limit`` until ``TotalRecordCount``. The token goes in ``X-Emby-Token``
and in an ``Authorization: MediaBrowser ... Token="..."`` header (both
servers take either). Failures are the reference's import codes:
``source_unreachable`` (no answer, or an error status), ``source_unauthorized``
(401 or 403), ``import_source_kind_mismatch`` (a Jellyfin server asked for
as Emby, or the reverse). The token never appears in a message.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from reelhouse import __version__, errors
from reelhouse.media.peer_import import PeerItem, PeerUser, parse_item, parse_user

PAGE_SIZE: Final = 200
MAX_PAGES: Final = 10_000  # 2 million items: a bound on a server that never ends its list
TIMEOUT_SECONDS: Final = 30.0
JELLYFIN_PRODUCT: Final = "Jellyfin Server"


class SourceError(errors.DomainError):
    """The other server could not be read (``code`` says why)."""


def public_address(url: str) -> str:
    """The server's address without any user information (for messages and the activity log)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"


class PeerSource:
    def __init__(self, client: httpx.AsyncClient, base_url: str, token: str, kind: str) -> None:
        self._client = client
        self._base = base_url.rstrip("/")
        self._kind = kind
        self._headers = {
            "X-Emby-Token": token,
            "Authorization": f'MediaBrowser Client="Reelhouse", Device="Reelhouse import", '
                             f'DeviceId="reelhouse-import", Version="{__version__}", Token="{token}"',
            "Accept": "application/json",
        }
        self.server_name = ""

    async def check(self) -> None:
        """The server answers, is of the kind asked for, and takes the token (lists its members)."""
        info = await self._get("/System/Info/Public", auth=False)
        product = str(info.get("ProductName") or "") if isinstance(info, dict) else ""
        is_jellyfin = product == JELLYFIN_PRODUCT
        if is_jellyfin != (self._kind == "jellyfin"):
            raise SourceError(f"The server at {public_address(self._base)} is not a {self._kind} server.",
                              code="import_source_kind_mismatch", params={"kind": self._kind, "product": product})
        self.server_name = str(info.get("ServerName") or "") if isinstance(info, dict) else ""
        await self.users()

    async def users(self) -> list[PeerUser]:
        answer = await self._get("/Users")
        found = [parse_user(dto) for dto in answer] if isinstance(answer, list) else []
        return [user for user in found if user is not None]

    async def items(self, user_id: str) -> AsyncIterator[PeerItem]:
        """The member's movies, series and episodes with their UserData, page by page."""
        start = 0
        for _ in range(MAX_PAGES):
            params = {"Recursive": "true", "IncludeItemTypes": "Movie,Series,Episode",
                      "Fields": "ProviderIds,Path,MediaSources", "EnableUserData": "true",
                      "StartIndex": str(start), "Limit": str(PAGE_SIZE)}
            answer = await self._get(f"/Users/{user_id}/Items", params=params)
            dtos = answer.get("Items") if isinstance(answer, dict) else None
            if not isinstance(dtos, list) or not dtos:
                return
            for dto in dtos:
                item = parse_item(dto) if isinstance(dto, dict) else None
                if item is not None:
                    yield item
            start += len(dtos)
            total = answer.get("TotalRecordCount")
            if isinstance(total, int) and start >= total:
                return

    async def _get(self, path: str, *, auth: bool = True, params: dict[str, str] | None = None) -> Any:
        address = public_address(self._base)
        try:
            response = await self._client.get(self._base + path, params=params,
                                              headers=self._headers if auth else {"Accept": "application/json"},
                                              timeout=TIMEOUT_SECONDS)
        except httpx.HTTPError as exc:
            raise SourceError(f"The server at {address} did not answer ({type(exc).__name__}).",
                              code="source_unreachable") from None
        if response.status_code in (401, 403):
            raise SourceError(f"The server at {address} refused the token.", code="source_unauthorized",
                              params={"status": response.status_code})
        if response.status_code >= 400:
            raise SourceError(f"The server at {address} answered {response.status_code} for {path}.",
                              code="source_unreachable", params={"status": response.status_code})
        try:
            return response.json()
        except ValueError:
            raise SourceError(f"The server at {address} answered something other than JSON for {path}.",
                              code="source_unreachable") from None
