"""The signed-in member's watch state: marks, the resume list and next up (outside the reference).

Device tokens only (a key has no member: 403): ``POST``/``DELETE``
``/me/played/{itemId}`` and ``/me/favorites/{itemId}`` mark and unmark, and
answer the item's new :class:`UserData`; ``GET /me/resume`` and ``GET
/me/next-up`` page the member's items in progress and the next episode of
each series they watch.  Marks are commands (asked of the WatchStateActor);
the lists are queries (read from the store).  An item in a library the
member may not see is 404 as if absent, and the lists leave such items out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field
from quart import Blueprint, request
from quart_schema import document_querystring, document_response

from reelhouse import errors
from reelhouse.actors.watch_state import MarkFavorite, MarkPlayed
from reelhouse.runtime import ActorRef, Ask
from reelhouse.storage.cursor import FINGERPRINT_KEY, fingerprint
from reelhouse.storage.devices import DeviceSignIn
from reelhouse.storage.item_query import ItemSummary
from reelhouse.storage.watch_state import WatchPage, WatchState, next_up_list, resume_list, with_items
from reelhouse.timefmt import rfc3339_ms

from .asks import ask
from .context import app_context
from .device_auth import library_scope_of_request, signed_in_member
from .items import ItemSummary as ItemSummaryModel
from .items import cursor_codec
from .library_access import parental_visible_ids, require_item_visible
from .list_query import page_limit
from .openapi import may_answer
from .playback_reports import settle_playback
from .schema import ApiModel

blueprint = Blueprint("watch_state", __name__)

_NOT_A_MEMBER = "A player's device token is required (POST /auth/login); an API key has no member."
_RESUME_TYPES = ("Movie", "Episode", "Video")
_KEY = "k"


class UserData(ApiModel):
    item_id: str
    played: bool
    play_count: int
    last_played_at: str | None = Field(None, description="The last play report or mark; omitted when never.")
    position_sec: float = Field(description="Where to resume; 0 when not in progress.")
    favorite: bool
    unplayed_count: int | None = Field(None, description="Series and seasons: their episodes not played.")


class WatchedItem(ItemSummaryModel):
    user_data: UserData


class WatchedPage(ApiModel):
    items: list[WatchedItem]
    next_cursor: str | None = None


class ResumeQuery(ApiModel):
    type: str | None = Field(None, description="Movie, Episode or Video; repeatable; default all three.")
    limit: int | None = Field(None, description="1 to 200, default 40.")
    cursor: str | None = None


class NextUpQuery(ApiModel):
    series_id: str | None = Field(None, description="That series only.")
    limit: int | None = Field(None, description="1 to 200, default 40.")
    cursor: str | None = None


_MARK_ERRORS = (
    (403, "An API key: only a member's device token has a watch state."),
    (404, "No such item, or one in a library the member cannot see."),
    503,
)


@blueprint.post("/me/played/<item_id>")
@document_response(UserData)
@may_answer(*_MARK_ERRORS)
async def mark_played(item_id: str) -> dict[str, Any]:
    """Mark the item played: play count at least 1, resume position cleared, last played now.
    A series or season marks each of its episodes. The member's sessions still playing it keep
    no resume point after the mark (their later reports are still history)."""
    return await _mark(item_id, lambda member: MarkPlayed(member, item_id, played=True), settle=True)


@blueprint.delete("/me/played/<item_id>")
@document_response(UserData)
@may_answer(*_MARK_ERRORS)
async def unmark_played(item_id: str) -> dict[str, Any]:
    """Mark the item not played: play count 0, resume position and last played date cleared.
    A series or season unmarks each of its episodes."""
    return await _mark(item_id, lambda member: MarkPlayed(member, item_id, played=False))


@blueprint.post("/me/favorites/<item_id>")
@document_response(UserData)
@may_answer(*_MARK_ERRORS)
async def mark_favorite(item_id: str) -> dict[str, Any]:
    """Make the item one of the member's favourites."""
    return await _mark(item_id, lambda member: MarkFavorite(member, item_id, favorite=True))


@blueprint.delete("/me/favorites/<item_id>")
@document_response(UserData)
@may_answer(*_MARK_ERRORS)
async def unmark_favorite(item_id: str) -> dict[str, Any]:
    """The item is no longer one of the member's favourites."""
    return await _mark(item_id, lambda member: MarkFavorite(member, item_id, favorite=False))


@blueprint.get("/me/resume")
@document_querystring(ResumeQuery)
@document_response(WatchedPage)
@may_answer((403, "An API key: only a member's device token has a watch state."))
async def resume() -> dict[str, Any]:
    """The member's videos in progress (a resume position), the latest played first, in keyset pages.

    A finished play (90 % or more) or a mark as played clears the position,
    so the item leaves the list. Items in libraries the member may not see
    are left out.
    """
    member = _member()
    types = _types(request.args.getlist("type"))
    limit, after, page_codec = _paging(member)
    page = await resume_list(app_context().store, member.user_id, _libraries(), limit=limit, after=after,
                             types=types)  # fmt: skip
    return await _page_json(page, page_codec)


@blueprint.get("/me/next-up")
@document_querystring(NextUpQuery)
@document_response(WatchedPage)
@may_answer(
    (403, "An API key: only a member's device token has a watch state."),
    (404, "seriesId: no such series, or one in a library the member cannot see."),
)
async def next_up() -> dict[str, Any]:
    """The next episode of each series the member watches, the latest watched series first.

    For each series with a played episode: the first episode after the
    furthest played one (by season, then episode number; specials left
    out) that is not played, maybe with a resume position. A series with
    no such episode is not listed.
    """
    member = _member()
    series_id = request.args.get("seriesId")
    if series_id is not None:
        await require_item_visible(series_id)
    limit, after, page_codec = _paging(member)
    page = await next_up_list(app_context().store, member.user_id, _libraries(), limit=limit, after=after,
                              series_id=series_id)  # fmt: skip
    return await _page_json(page, page_codec)


# -- helpers -------------------------------------------------------------------------


async def _mark(item_id: str, message: Callable[[str], Ask[WatchState]], *, settle: bool = False) -> dict[str, Any]:
    """Ask the WatchStateActor the mark ``message(member id)`` once the item is visible; its UserData.

    ``settle``: a mark as played; the member's live sessions on the item are told first, so no report of
    theirs (one in flight, a late ``stopped``) puts a resume point back after it.
    """
    member = _member()
    await require_item_visible(item_id)
    if settle:
        await settle_playback(member.user_id, item_id)
    return user_data_json(await ask(_watch_state_ref(), message(member.user_id)))


def user_data_json(state: WatchState) -> dict[str, Any]:
    """A :class:`UserData` body."""
    body: dict[str, Any] = {
        "itemId": state.item_id,
        "played": state.played,
        "playCount": state.play_count,
        "positionSec": state.position_ms / 1000,
        "favorite": state.favorite,
    }
    if state.last_played_ms is not None:
        body["lastPlayedAt"] = rfc3339_ms(state.last_played_ms)
    if state.unplayed_count is not None:
        body["unplayedCount"] = state.unplayed_count
    return body


def _member() -> DeviceSignIn:
    member = signed_in_member()
    if member is None:
        raise errors.Forbidden(_NOT_A_MEMBER)
    return member


def _watch_state_ref() -> ActorRef:
    ref = app_context().actors.watch_state
    if ref is None:
        raise errors.Unavailable("The watch state is not running.", params={"retryAfterSeconds": 5})
    return ref


def _libraries() -> frozenset[str] | None:
    scope = library_scope_of_request()
    return None if scope is None else scope.library_ids


def _types(values: list[str]) -> tuple[str, ...]:
    types: list[str] = []
    for value in values:
        for one in value.split(","):
            if one.strip() not in _RESUME_TYPES:
                raise errors.Invalid(f"type: {one!r} is not one of {', '.join(_RESUME_TYPES)}.", field="type")
            types.append(one.strip())
    return tuple(dict.fromkeys(types))


class _PageCodec:
    """Signs a page's next cursor, bound to the member and the request's other parameters."""

    def __init__(self, member_id: str) -> None:
        args = {k: v for k, v in request.args.to_dict(flat=False).items() if k not in ("cursor", "limit")}
        self.fingerprint = fingerprint({**args, "member": [member_id]})
        self.codec = cursor_codec(app_context().cursor_secret)

    def encode(self, key: tuple[int, str]) -> str:
        return self.codec.encode({_KEY: list(key), FINGERPRINT_KEY: self.fingerprint})

    def decode(self, token: str) -> tuple[int, str]:
        key = self.codec.decode(token, fingerprint=self.fingerprint).get(_KEY)
        if not (isinstance(key, list) and len(key) == 2 and type(key[0]) is int and isinstance(key[1], str)):
            raise errors.Invalid("The cursor is invalid.", field="cursor")
        return key[0], key[1]


def _paging(member: DeviceSignIn) -> tuple[int, tuple[int, str] | None, _PageCodec]:
    limit = page_limit(request.args.get("limit"))
    codec = _PageCodec(member.user_id)
    token = request.args.get("cursor")
    return limit, codec.decode(token) if token else None, codec


async def _page_json(page: WatchPage, codec: _PageCodec) -> dict[str, Any]:
    # Parental controls hide what the member played before a rule blocked it
    # (the page may then hold fewer than limit entries; its cursor still holds).
    allowed = await parental_visible_ids([state.item_id for state in page.states])
    states = page.states if allowed is None else [state for state in page.states if state.item_id in allowed]
    entries = await with_items(app_context().store, states)
    body: dict[str, Any] = {"items": [_watched_json(summary, state) for summary, state in entries]}
    if page.next_key is not None:
        body["nextCursor"] = codec.encode(page.next_key)
    return body


def _watched_json(summary: ItemSummary, state: WatchState) -> dict[str, Any]:
    return {**summary.to_json(), "userData": user_data_json(state)}
