"""Jellyfin's credentials: where a client puts its token and who it says it is.

A client sends ``Authorization: MediaBrowser Client="..", Device="..",
DeviceId="..", Version="..", Token=".."`` (the values may be
percent-encoded: the TypeScript SDK encodes them; ``Emby`` is an older
name of the scheme), or the token alone in ``X-Emby-Token`` /
``X-MediaBrowser-Token``, or as the ``api_key`` / ``ApiKey`` query
parameter (stream URLs handed to a media player, the socket).  Parameter
and header names are case-insensitive, as Jellyfin's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote

from werkzeug.datastructures import Headers

_SCHEMES = ("mediabrowser", "emby")
_PARAM = re.compile(r'\s*([A-Za-z]+)\s*=\s*(?:"([^"]*)"|([^,]*))\s*,?')
TOKEN_HEADERS = ("X-Emby-Token", "X-MediaBrowser-Token")
TOKEN_QUERY = ("api_key", "apikey")
FIELD_MAX = 256


@dataclass(frozen=True, slots=True)
class ClientClaims:
    """What the client says about itself, and its token if it sent one."""

    client: str | None = None
    device: str | None = None
    device_id: str | None = None
    version: str | None = None
    token: str | None = None


def parse_authorization(header: str) -> ClientClaims:
    """The MediaBrowser parameters of an ``Authorization`` header; empty claims for another scheme."""
    scheme, _, rest = header.strip().partition(" ")
    if scheme.lower() not in _SCHEMES:
        return ClientClaims()
    values: dict[str, str] = {}
    for match in _PARAM.finditer(rest):
        raw = match.group(2) if match.group(2) is not None else match.group(3)
        values[match.group(1).lower()] = unquote(raw.strip())[:FIELD_MAX]
    return ClientClaims(
        client=values.get("client") or None,
        device=values.get("device") or None,
        device_id=values.get("deviceid") or None,
        version=values.get("version") or None,
        token=values.get("token") or None,
    )


def request_claims(headers: Headers, args: Mapping[str, str]) -> ClientClaims:
    """The claims of a request: the Authorization header, then the token headers, then the query."""
    claims = parse_authorization(headers.get("Authorization", "") or headers.get("X-Emby-Authorization", ""))
    if claims.token:
        return claims
    token = next((headers[name] for name in TOKEN_HEADERS if headers.get(name)), None)
    if token is None:
        lowered = {name.lower(): value for name, value in args.items()}
        token = next((lowered[name] for name in TOKEN_QUERY if lowered.get(name)), None)
    if token is None:
        return claims
    return ClientClaims(claims.client, claims.device, claims.device_id, claims.version, token.strip())
