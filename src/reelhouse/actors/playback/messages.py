"""Messages the HTTP edge sends to the PlaybackRegistry."""

from __future__ import annotations

from dataclasses import dataclass

import trio

from reelhouse.runtime import ActorRef, Ask
from reelhouse.storage.playback_items import PlaybackItem


@dataclass(frozen=True, slots=True)
class StreamedBytes:
    """Bytes the stream route sent to ``device_id`` for ``item_id`` (told, in batches).

    The registry credits them to that device's live session on that item, if
    any; they make the session's ``bandwidthKbps`` (real traffic only).
    """

    device_id: str
    item_id: str
    nbytes: int


@dataclass(frozen=True, slots=True)
class PlayLimit:
    """How long a member under parental time rules may play from the session's start.

    ``watch_seconds``: play time (pauses left out) left of today's limit, the
    member's other sessions counted; ``wall_seconds``: time until the
    allowed window closes. None: no such limit.
    """

    watch_seconds: float | None = None
    wall_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class ParentalStop:
    """Tell (a session to its registry): the session ended at its play limit; send
    ``stop`` down its player's socket if one is open."""

    session_id: str
    device_id: str


@dataclass(frozen=True, slots=True)
class SessionStart:
    """What a ``playing`` report starts a session with (facts read by the route)."""

    item: PlaybackItem
    member_id: str
    member_name: str
    device_id: str
    device_name: str
    player: str
    delivery: str
    ip: str | None
    position: float
    paused: bool
    play_session_id: str | None = None
    limit: PlayLimit | None = None  # parental time rules (None: none)


@dataclass(frozen=True, slots=True)
class StartSession(Ask[str]):
    """Ask: start a session (or find the live one with this playSessionId); replies its id."""

    start: SessionStart


@dataclass(frozen=True, slots=True)
class FindSession(Ask[ActorRef]):
    """Ask: the ActorRef of a live session of ``device_id``; NotFound otherwise."""

    session_id: str
    device_id: str


@dataclass(frozen=True, slots=True)
class EndSession:
    """Ask: the player reported ``stopped``; replies once the PlayRecord is written."""

    session_id: str
    device_id: str
    position: float | None
    paused: bool | None


@dataclass(frozen=True, slots=True)
class MarkedPlayed(Ask[None]):
    """Ask: the member marked ``item_id`` played (a film, an episode, or a series or season: its
    episodes). Their live sessions on it keep no resume point from now on; replies once every
    report those sessions took before is written, so the mark that follows is the last word."""

    member_id: str
    item_id: str


@dataclass(frozen=True, slots=True)
class ListSessions(Ask["list[SessionView]"]):
    """Ask: a :class:`SessionView` of every live session, oldest first."""


@dataclass(frozen=True, slots=True)
class StopSession:
    """Ask: send ``stop`` down the player's socket; NotFound, or Conflict ``session_not_stoppable``."""

    session_id: str


@dataclass(frozen=True, slots=True)
class AttachSocket(Ask["SocketGrant"]):
    """Ask: a player's remote-control socket opened; replies a :class:`SocketGrant`."""

    device_id: str


@dataclass(frozen=True, slots=True)
class DetachSocket:
    """Tell: that socket closed or went dead; the device's sessions are not stoppable now."""

    device_id: str
    socket_id: int


@dataclass(frozen=True, slots=True)
class SocketGrant:
    """The reply to AttachSocket: the socket's id and the control messages to send down it."""

    socket_id: int
    control: trio.MemoryReceiveChannel[StopCommand]


@dataclass(frozen=True, slots=True)
class StopCommand:
    """A control message for the socket: send ``{"type": "stop", "sessionId"}``, then put on
    ``answer`` whether it went down the socket (False when the socket failed first)."""

    session_id: str
    answer: trio.MemorySendChannel[bool]


@dataclass(frozen=True, slots=True)
class SessionView:
    """A live session as GET /admin/playback/sessions shows it (``stoppable`` set by the registry)."""

    id: str
    start: SessionStart  # item, member, device and player facts
    started_at_ms: int
    position: float
    paused: bool
    bandwidth_kbps: int
    stoppable: bool = False

    @property
    def item(self) -> PlaybackItem:
        return self.start.item
