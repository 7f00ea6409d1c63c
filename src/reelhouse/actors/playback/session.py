"""PlaybackActor: one live playback session, a temporary child of the PlaybackRegistry.

It owns what the player reports (position, pause state, the furthest point
reached), the time played with pauses left out, and the bytes its stream
sent (``bandwidthKbps``).  It ends in one of four ways, each producing one
:class:`~reelhouse.media.play_record.EndedPlayback`:

- the player reports ``stopped`` (the registry asks :class:`Finish`);
- no report for ``idle_end_seconds``: it ends itself, counting play time
  up to the last report (the player is gone; what came after is not known);
- a remote stop was sent and no ``stopped`` came within
  ``stop_wait_seconds``: it ends itself the same way;
- the server stops (the registry asks :class:`Finish` from its stop path);
- parental time rules (``SessionStart.limit``): the member's play time for
  today runs out, or the allowed window closes: it ends itself
  (``parentalTime``) and tells the registry :class:`ParentalStop`, which
  sends ``stop`` down the player's socket when one is open.

Each report with a position (the start's too) is also the member's watch
state: the session asks the WatchStateActor (:class:`RecordProgress`,
``watch`` below) before it answers the report (the start's in a task of
its own, which :class:`StartWritten` waits for: the registry answers the
``playing`` report after it), so a player that reads its resume list next
sees it; a report at 90 % or more of the duration marks
the item played, counted once per session.  Once the member marks the item
played (:class:`Settle`), the session writes no more positions: a report
that arrives after the mark (a player still running, a late ``stopped``)
never brings a resume point back (Jellyfin clears it on the mark too).

Ending by itself, it writes its own PlayRecord (``recording.py``) and
stops: nothing has to reach the registry, which may be stopping at that
very moment.  While it lives, a task saves its last known state (as it
would end at its last report) at its start and after reports, at most
every ``LiveState.interval_seconds``: a server killed meanwhile records it
at its next start, ended by a crash.  Times are ``trio.current_time()``;
wall-clock times are derived from the start.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import trio

from reelhouse import errors
from reelhouse.media.play_record import (
    CRASH,
    IDLE,
    PARENTAL_TIME,
    REMOTE_STOP,
    EndedPlayback,
    is_finished,
    percent_watched,
)
from reelhouse.media.playback_session import BandwidthMeter, WatchClock, check_position, wall_ms_at
from reelhouse.runtime import Actor, ActorError, ActorRef, Ask

from ..watch_state import RecordProgress
from .messages import ParentalStop, PlayLimit, SessionStart, SessionView
from .recording import LiveState, Recorder, record_ended, save_state

SESSION_MAILBOX_SIZE = 16
WATCH_STATE_TIMEOUT_SECONDS = 5.0  # the start's watch-state write (no asker's deadline to inherit)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SessionTimes:
    idle_end_seconds: float = 300.0
    stop_wait_seconds: float = 10.0


@dataclass(frozen=True, slots=True)
class Progress:
    """Ask: a progress report (``None`` = unchanged); Invalid for an absurd position."""

    position: float | None
    paused: bool | None


@dataclass(frozen=True, slots=True)
class Finish(Ask["EndedPlayback"]):
    """Ask: end now (``stopped`` report or shutdown); replies the EndedPlayback."""

    position: float | None
    paused: bool | None
    reason: str  # play_record.STOPPED | play_record.SHUTDOWN


@dataclass(frozen=True, slots=True)
class StartWritten(Ask[None]):
    """Ask: reply once the start's position is the member's watch state (or could not be)."""


@dataclass(frozen=True, slots=True)
class Settle(Ask[None]):
    """Ask: the member marked this item played; keep no resume point from now on (the history is
    still written). Replies after the start's and every earlier report's watch state is written."""


@dataclass(frozen=True, slots=True)
class StopRequested:
    """Tell: ``stop`` went down the player's socket; end after the wait unless it reports."""


@dataclass(frozen=True, slots=True)
class AddBytes:
    """Tell: the stream sent ``nbytes`` more for this session."""

    nbytes: int


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Tell: put the session's :class:`SessionView` on ``into`` (None once it ended).

    A tell with a channel rather than an ask: the registry gathers every
    session's view at once, without a task and a reply per session.
    """

    into: trio.MemorySendChannel[SessionView | None]


class PlaybackActor(Actor):
    def __init__(
        self, session_id: str, start: SessionStart, times: SessionTimes, record: Recorder, wall_ms: int,
        live: LiveState | None = None, watch: ActorRef | None = None, registry: ActorRef | None = None,
    ) -> None:  # fmt: skip
        self._id = session_id
        self._start = start
        self._times = times
        self._record = record  # for ending by itself
        self._started_wall_ms = wall_ms
        self._position = start.position
        self._furthest = start.position
        self._paused = start.paused
        self._ended = False
        self._stop_requested_at: float | None = None
        self._timer: trio.CancelScope | None = None
        self._live = live
        self._changed = trio.Event()  # reported since the last save
        self._watch = watch  # the WatchStateActor; None: positions are not kept per member
        self._play_counted = False  # a finished report counted this session's play
        self._start_written = trio.Event()  # reports write after the start's position
        self._registry = registry  # told ParentalStop
        self._reported = trio.Event()  # a report came: the parental limit's due time moves
        self._settled = False  # marked played meanwhile: the mark is the last word on the position

    async def on_start(self) -> None:
        now = trio.current_time()
        self._started_at = self._last_report = now
        self._watch_clock = WatchClock(now, self._start.paused)
        self._bytes = BandwidthMeter(now)
        self.nursery.start_soon(self._end_when_due)
        if self._start.limit is not None:
            self.nursery.start_soon(self._end_at_limit, self._start.limit)
        if self._live is not None:
            self._changed.set()  # saved at once: a session killed before its first report is not lost
            self.nursery.start_soon(self._keep_saved, self._live)
        # In a task: the registry starting this session is not held up by a database write.
        self.nursery.start_soon(self._write_start)

    async def handle(self, msg: object) -> object:
        if isinstance(msg, Snapshot):
            _offer(msg.into, None if self._ended else self._view())
            return None
        if self._ended:
            raise errors.NotFound(f"No playback session {self._id}.")
        match msg:
            case Progress(position=position, paused=paused):
                self._report(position, paused)
                await self._write_position(position)
            case Finish(position=position, paused=paused, reason=reason):
                self._report(position, paused)
                await self._write_position(position)
                ended = self._end(trio.current_time(), reason)
                log.info("playback session %s ended (%s)", self._id, reason)
                self.stop_self()
                return ended
            case StartWritten():
                await self._start_written.wait()
            case Settle():
                await self._start_written.wait()
                self._settled = True
            case StopRequested():
                if self._stop_requested_at is None:
                    self._stop_requested_at = trio.current_time()
                    self._reschedule()
            case AddBytes(nbytes=nbytes):
                self._bytes.add(trio.current_time(), nbytes)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    # -- reports --------------------------------------------------------------------

    def _report(self, position: float | None, paused: bool | None) -> None:
        check_position(position, self._start.item.duration_sec)  # before any change
        now = trio.current_time()
        if paused is not None:
            self._watch_clock.report(now, paused)
            self._paused = paused
        else:
            self._watch_clock.report(now, self._paused)
        if position is not None:
            self._position = position
            self._furthest = max(self._furthest, position)
        self._last_report = now
        self._changed.set()
        self._reported.set()
        self._reschedule()

    # -- the member's watch state ---------------------------------------------------

    async def _write_start(self) -> None:
        try:
            with trio.move_on_after(WATCH_STATE_TIMEOUT_SECONDS):
                await self._write_watch_state(self._start.position)
        finally:
            self._start_written.set()

    async def _write_position(self, position: float | None) -> None:
        if position is None or self._watch is None:
            return
        await self._start_written.wait()
        await self._write_watch_state(position)

    async def _write_watch_state(self, position: float) -> None:
        if self._watch is None or self._settled:
            return
        item = self._start.item
        finished = is_finished(percent_watched(position, item.duration_sec))
        count = finished and not self._play_counted
        msg = RecordProgress(self._start.member_id, item.id, round(position * 1000), finished, count)
        try:
            await self._watch.ask(msg)
        except errors.NotFound:
            return  # the item is gone: nothing to keep
        except (errors.DomainError, ActorError) as error:
            # The report itself stands (its history is kept); only the resume point is lost.
            log.warning("playback session %s: the watch state could not be written: %r", self._id, error)
            return
        self._play_counted = self._play_counted or count

    def _due(self) -> float:
        due = self._last_report + self._times.idle_end_seconds
        if self._stop_requested_at is not None:
            due = min(due, self._stop_requested_at + self._times.stop_wait_seconds)
        return due

    def _reschedule(self) -> None:
        if self._timer is not None:
            self._timer.deadline = self._due()

    # -- ending by itself -------------------------------------------------------------

    async def _end_when_due(self) -> None:
        while True:
            with trio.CancelScope(deadline=self._due()) as timer:
                self._timer = timer
                await trio.sleep_forever()
            self._timer = None
            if self._ended:
                return  # ended by a Finish meanwhile
            if trio.current_time() >= self._due():
                break
        idle_due = self._last_report + self._times.idle_end_seconds
        stop = self._stop_requested_at
        reason = REMOTE_STOP if stop is not None and stop + self._times.stop_wait_seconds <= idle_due else IDLE
        # Play time counts up to what is known: the last report, or the stop sent.
        until = max(stop, self._last_report) if reason == REMOTE_STOP and stop is not None else self._last_report
        ended = self._end(until, reason)
        log.info("playback session %s ended (%s)", self._id, reason)
        await record_ended(self._record, ended)
        self.stop_self()

    async def _end_at_limit(self, limit: PlayLimit) -> None:
        """Parental time: end when the play time left runs out (pauses do not count) or the window closes."""
        wall_due = self._started_at + limit.wall_seconds if limit.wall_seconds is not None else float("inf")
        while True:
            now = trio.current_time()
            watched = self._watch_clock.watched(now)
            if now >= wall_due or (limit.watch_seconds is not None and watched >= limit.watch_seconds):
                break
            due = wall_due
            if limit.watch_seconds is not None and not self._paused:
                due = min(due, now + limit.watch_seconds - watched)
            self._reported = trio.Event()
            with trio.move_on_at(due):
                await self._reported.wait()
        if self._ended:
            return  # ended by a Finish meanwhile
        ended = self._end(trio.current_time(), PARENTAL_TIME)
        log.info("playback session %s ended at its parental time limit", self._id)
        if self._registry is not None:
            self._registry.try_tell(ParentalStop(self._id, self._start.device_id))
        await record_ended(self._record, ended)
        self.stop_self()

    # -- the last known state, for a restart after a kill ------------------------------

    async def _keep_saved(self, live: LiveState) -> None:
        while True:
            await self._changed.wait()
            self._changed = trio.Event()
            if self._ended:
                return  # recorded (or being recorded): nothing to keep
            await save_state(live.save, self._playback(self._last_report, CRASH))
            await trio.sleep(live.interval_seconds)

    def _end(self, at: float, reason: str) -> EndedPlayback:
        self._ended = True
        return self._playback(at, reason)

    def _playback(self, at: float, reason: str) -> EndedPlayback:
        """The session as it stands, ending at ``at`` for ``reason``."""
        start = self._start
        item = start.item
        return EndedPlayback(
            session_id=self._id,
            item_id=item.id,
            member_id=start.member_id,
            member_name=start.member_name,
            device_id=start.device_id,
            device_name=start.device_name,
            player=start.player,
            kind=item.kind or "video",
            title=item.title,
            episode=item.episode,
            series_id=item.series_id,
            season_id=item.season_id,
            started_at_ms=self._started_wall_ms,
            ended_at_ms=wall_ms_at(self._started_wall_ms, self._started_at, at),
            duration_sec=item.duration_sec,
            watched_sec=round(self._watch_clock.watched(at), 3),
            furthest_sec=self._furthest,
            delivery=start.delivery,
            ip=start.ip,
            end_reason=reason,
        )

    def _view(self) -> SessionView:
        redirect = self._start.delivery == "redirect"  # the player fetches elsewhere: no traffic here
        kbps = 0 if redirect else self._bytes.kbps(trio.current_time())
        return SessionView(self._id, self._start, self._started_wall_ms, self._position, self._paused, kbps)

def _offer(into: trio.MemorySendChannel[SessionView | None], view: SessionView | None) -> None:
    try:
        into.send_nowait(view)
    except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the list was already answered without it
