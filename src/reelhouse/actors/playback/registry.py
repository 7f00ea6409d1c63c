"""PlaybackRegistry: the supervisor of every live playback session (one PlaybackActor each).

Sessions are temporary children: a crash ends that session alone (logged;
its record is lost with its state) and never touches another.  The
registry keeps an index of them (by id, and by device and item for the
stream's byte counts) and the remote-control sockets of players: a session
is ``stoppable`` exactly while its device holds a socket.

Asks flow down: the HTTP edge asks the registry, which asks a session.  A
socket route asks :class:`AttachSocket` and gets a channel of control
messages (:class:`StopCommand`) to send down its socket; the registry never
asks a socket anything.  A session that ends by itself records itself
(``recording.py``): nothing flows up.

Every ended session becomes a PlayRecord through the injected ``record``
(``storage.play_history.record_playback`` in production), each write the
registry makes in a task of its own under a bounded shield, so neither a
slow disk nor a stopping server holds the mailbox.  On stop, every live session
is ended (reason ``shutdown``) and recorded before the children stop.  On
start, the states that sessions of a process that died saved (``live``,
read before any new session saves) are recorded, ended by a crash,
before it answers: a registry restarted after its own crash records its
lost sessions the same way.  On a cluster, it looks again every so often
for the sessions of nodes that died meanwhile (``LiveState.sweep_seconds``).

Each session also hands its reports' positions to the WatchStateActor
(``watch``, a sibling: a sideways ask that never comes back here), the
member's resume point and played mark.

Whether anyone plays is handed to ``activity`` (the scheduler's idle
trigger; wired in ``actors/tree.py`` as a tell of ``PlaybackActivity``) by
one task, so the changes arrive in order and coalesced.
"""

from __future__ import annotations

import itertools
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

import trio

from reelhouse import errors
from reelhouse.media.play_record import SHUTDOWN, STOPPED, EndedPlayback
from reelhouse.runtime import (
    ActorError,
    ActorRef,
    ActorStopped,
    ChildSpec,
    NestedAskFailed,
    PendingReply,
    Supervisor,
    wall_clock_ms,
)
from reelhouse.shutdown import bounded_shield

from .messages import (
    AttachSocket,
    DetachSocket,
    EndSession,
    FindSession,
    ListSessions,
    MarkedPlayed,
    ParentalStop,
    SessionStart,
    SessionView,
    SocketGrant,
    StartSession,
    StopCommand,
    StopSession,
    StreamedBytes,
)
from .recording import RECORD_TIMEOUT_SECONDS, LiveState, Recorder, record_ended, record_left_behind
from .session import (
    SESSION_MAILBOX_SIZE,
    AddBytes,
    Finish,
    PlaybackActor,
    SessionTimes,
    Settle,
    Snapshot,
    StartWritten,
    StopRequested,
)

ActivityListener = Callable[[bool], Awaitable[None]]
# All the sessions a stopping server ends, asked at once.
SHUTDOWN_END_TIMEOUT_SECONDS = 3.0
# How long a stop waits for the socket's task to take the message.
STOP_SEND_TIMEOUT_SECONDS = 5.0
SNAPSHOT_TIMEOUT_SECONDS = 2.0

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Session:
    id: str
    ref: ActorRef
    device_id: str
    item_id: str
    play_session_id: str | None
    member_id: str = ""
    within: tuple[str, ...] = ()  # the item's series and season, if an episode

    def plays(self, member_id: str, item_id: str) -> bool:
        """Whether this is ``member_id`` playing ``item_id`` (or an episode of that series or season)."""
        return self.member_id == member_id and (item_id == self.item_id or item_id in self.within)


@dataclass(slots=True)
class _Socket:
    id: int
    control: trio.MemorySendChannel[StopCommand]

    @property
    def open(self) -> bool:
        return self.control.statistics().open_receive_channels > 0


class PlaybackRegistry(Supervisor):
    def __init__(
        self, record: Recorder, *, times: SessionTimes = SessionTimes(), activity: ActivityListener | None = None,
        wall_ms: Callable[[], int] = wall_clock_ms, live: LiveState | None = None, watch: ActorRef | None = None,
    ) -> None:  # fmt: skip
        super().__init__(on_child_exit=self._forget_session)
        self._record = record
        self._live = live
        self._watch = watch  # the WatchStateActor, handed to every session
        self._times = times
        self._activity = activity
        self._wall_ms = wall_ms
        self._sessions: dict[str, _Session] = {}
        # (device, item) -> the newest live session of that pair: where the stream's bytes go.
        self._by_player: dict[tuple[str, str], _Session] = {}
        self._sockets: dict[str, _Socket] = {}
        self._socket_ids = itertools.count(1)
        self._activity_changed = trio.Event()

    async def on_start(self) -> None:
        await super().on_start()
        if self._activity is not None:
            # Said once at start too: a registry restarted after a crash has lost its sessions.
            self._activity_changed.set()
            self.nursery.start_soon(self._report_activity, self._activity)
        if self._live is not None:
            # Before the registry answers: the history is whole once the server serves.
            await record_left_behind(self._record, await self._left_behind(self._live))
            if self._live.sweep_seconds > 0:  # a cluster: other nodes may die while this one runs
                self.nursery.start_soon(self._sweep, self._live)

    async def _sweep(self, live: LiveState) -> None:
        while True:
            await trio.sleep(live.sweep_seconds)
            await record_left_behind(self._record, await self._left_behind(live))

    async def _left_behind(self, live: LiveState) -> list[EndedPlayback]:
        with trio.move_on_after(RECORD_TIMEOUT_SECONDS):
            try:
                return await live.left_behind()
            except Exception:
                log.exception("the states of sessions a dead process left could not be read")
                return []
        log.error("reading the states of sessions a dead process left took too long; left for the next start")
        return []

    async def on_stop(self) -> None:
        """End every live session into history, then stop the children."""
        with bounded_shield(SHUTDOWN_END_TIMEOUT_SECONDS + RECORD_TIMEOUT_SECONDS):
            ended: list[EndedPlayback] = []
            async with trio.open_nursery() as nursery:
                for session in list(self._sessions.values()):
                    nursery.start_soon(self._finish_for_shutdown, session, ended)
            async with trio.open_nursery() as nursery:
                for one in ended:
                    nursery.start_soon(record_ended, self._record, one)
        for control in self._sockets.values():
            control.control.close()
        await super().on_stop()

    async def handle(self, msg: object) -> object:
        match msg:
            case StartSession(start=start):
                return await self._start_session(start)
            case FindSession(session_id=session_id, device_id=device_id):
                return self._session_of(session_id, device_id).ref
            case EndSession():
                self._end_session(msg)
            case MarkedPlayed(member_id=member_id, item_id=item_id):
                settling = [s for s in self._sessions.values() if s.plays(member_id, item_id)]
                self.nursery.start_soon(self._settle, settling, self.defer_reply())
            case ListSessions():
                self.nursery.start_soon(self._list, self.defer_reply())
            case StopSession(session_id=session_id):
                self._stop_session(session_id)
            case AttachSocket(device_id=device_id):
                return self._attach(device_id)
            case DetachSocket(device_id=device_id, socket_id=socket_id):
                self._detach(device_id, socket_id)
            case ParentalStop(session_id=session_id, device_id=device_id):
                socket = self._sockets.get(device_id)
                if socket is not None and socket.open:
                    self.nursery.start_soon(self._send_parental_stop, session_id, socket)
            case StreamedBytes(device_id=device_id, item_id=item_id, nbytes=nbytes):
                self._credit(device_id, item_id, nbytes)
            case _:
                raise TypeError(f"unexpected message {msg!r}")
        return None

    # -- sessions -----------------------------------------------------------------

    async def _start_session(self, start: SessionStart) -> str | None:
        if start.play_session_id is not None:
            for session in self._sessions.values():
                if session.device_id == start.device_id and session.play_session_id == start.play_session_id:
                    return session.id  # the player said it again (a retry)
        session_id = secrets.token_urlsafe(12)
        factory = lambda: PlaybackActor(  # noqa: E731
            session_id, start, self._times, self._record, self._wall_ms(), self._live, self._watch, self.ref
        )
        spec = ChildSpec(session_id, factory, restart="temporary", mailbox_size=SESSION_MAILBOX_SIZE)
        ref = await self.start_child(spec)
        within = tuple(i for i in (start.item.series_id, start.item.season_id) if i is not None)
        session = _Session(session_id, ref, start.device_id, start.item.id, start.play_session_id, start.member_id,
                           within)  # fmt: skip
        self._sessions[session_id] = self._by_player[(session.device_id, session.item_id)] = session
        self._activity_changed.set()
        # Answered once the start's position is written (a player may read its resume list next),
        # from a task: the registry's mailbox does not wait on the database.
        self.nursery.start_soon(self._answer_started, session, self.defer_reply())
        return None

    async def _answer_started(self, session: _Session, reply: PendingReply) -> None:
        with trio.move_on_at(reply.deadline):
            try:
                await session.ref.ask(StartWritten())
            except (errors.DomainError, ActorError):
                pass  # it ended meanwhile; it was started all the same
        reply.set(session.id)

    def _session_of(self, session_id: str, device_id: str | None) -> _Session:
        session = self._sessions.get(session_id)
        # Another device's session is as unknown as one that never was.
        if session is None or (device_id is not None and session.device_id != device_id):
            raise errors.NotFound(f"No playback session {session_id}.", params={"sessionId": session_id})
        return session

    def _forget_session(self, name: str, error: BaseException | None) -> None:
        session = self._sessions.pop(name, None)
        if session is not None:
            self._activity_changed.set()
            pair = (session.device_id, session.item_id)
            if self._by_player.get(pair) is session:
                del self._by_player[pair]
                older = [s for s in self._sessions.values() if (s.device_id, s.item_id) == pair]
                if older:
                    self._by_player[pair] = older[-1]
        if error is not None:
            log.error("playback session %s crashed; it ends without a record", name)

    def _end_session(self, msg: EndSession) -> None:
        session = self._session_of(msg.session_id, msg.device_id)
        reply = self.defer_reply()
        self.nursery.start_soon(self._finish_and_record, session, Finish(msg.position, msg.paused, STOPPED), reply)

    async def _finish_and_record(self, session: _Session, finish: Finish, reply: PendingReply) -> None:
        try:
            with trio.fail_at(reply.deadline):  # this task does not run under the asker's deadline
                ended = await session.ref.ask(finish)
        except (errors.DomainError, NestedAskFailed) as error:  # refused, or a part it needed is busy
            reply.fail(error)
            return
        except trio.TooSlowError:  # the session is too busy to answer in time (AskTimeout too)
            reply.fail(errors.Unavailable("The session is busy; try again shortly.", params={"retryAfterSeconds": 1}))
            return
        except ActorError:  # it ended (or crashed) meanwhile
            reply.fail(errors.NotFound(f"No playback session {session.id}.", params={"sessionId": session.id}))
            return
        assert isinstance(ended, EndedPlayback)
        await record_ended(self._record, ended)
        reply.set(None)

    async def _settle(self, sessions: list[_Session], reply: PendingReply) -> None:
        """Ask each session to keep no resume point; replies when all have (or ended, or the deadline came)."""

        async def settle(session: _Session) -> None:
            try:
                await session.ref.ask(Settle())
            except (errors.DomainError, ActorError):
                pass  # it ended meanwhile: it writes nothing more either

        with trio.move_on_at(reply.deadline):
            async with trio.open_nursery() as nursery:
                for session in sessions:
                    nursery.start_soon(settle, session)
        reply.set(None)

    async def _finish_for_shutdown(self, session: _Session, ended: list[EndedPlayback]) -> None:
        try:
            with trio.fail_after(SHUTDOWN_END_TIMEOUT_SECONDS):
                one = await session.ref.ask(Finish(None, None, SHUTDOWN))
        except (errors.NotFound, ActorStopped):
            return  # it ended by itself meanwhile, and records itself
        except (errors.DomainError, ActorError, trio.TooSlowError) as error:
            log.warning("playback session %s could not be ended for shutdown: %r", session.id, error)
            return
        assert isinstance(one, EndedPlayback)
        ended.append(one)

    def _credit(self, device_id: str, item_id: str, nbytes: int) -> None:
        session = self._by_player.get((device_id, item_id))
        if session is not None:
            try:
                session.ref.try_tell(AddBytes(nbytes))  # a full mailbox drops the batch: bandwidth reads low
            except ActorError:
                pass  # it just ended

    async def _list(self, reply: PendingReply) -> None:
        sessions = list(self._sessions.values())
        send, receive = trio.open_memory_channel[SessionView | None](max(len(sessions), 1))
        asked = 0
        for session in sessions:
            try:
                asked += session.ref.try_tell(Snapshot(send))  # a full mailbox: left out of this list
            except ActorError:
                pass  # ended meanwhile
        views: dict[str, SessionView] = {}
        with trio.move_on_at(min(reply.deadline, trio.current_time() + SNAPSHOT_TIMEOUT_SECONDS)):
            for _ in range(asked):
                if (view := await receive.receive()) is not None:
                    views[view.id] = view
        send.close()
        receive.close()
        stoppable = {device: self._stoppable(device) for device in {s.device_id for s in sessions}}
        reply.set([replace(views[s.id], stoppable=stoppable[s.device_id]) for s in sessions if s.id in views])

    # -- remote control -------------------------------------------------------------

    def _stoppable(self, device_id: str) -> bool:
        socket = self._sockets.get(device_id)
        return socket is not None and socket.open

    def _attach(self, device_id: str) -> SocketGrant:
        previous = self._sockets.pop(device_id, None)
        if previous is not None:
            previous.control.close()  # the newest socket of a device wins; the old one's task ends
        send, receive = trio.open_memory_channel[StopCommand](0)
        socket = _Socket(next(self._socket_ids), send)
        self._sockets[device_id] = socket
        return SocketGrant(socket.id, receive)

    def _detach(self, device_id: str, socket_id: int) -> None:
        socket = self._sockets.get(device_id)
        if socket is not None and socket.id == socket_id:
            del self._sockets[device_id]
            socket.control.close()

    def _stop_session(self, session_id: str) -> None:
        session = self._session_of(session_id, None)
        socket = self._sockets.get(session.device_id)
        if socket is None or not socket.open:
            raise _not_stoppable(session_id)
        self.nursery.start_soon(self._send_stop, session, socket, self.defer_reply())

    async def _send_stop(self, session: _Session, socket: _Socket, reply: PendingReply) -> None:
        answer_to, answer = trio.open_memory_channel[bool](1)
        sent = False
        with trio.move_on_at(min(reply.deadline, trio.current_time() + STOP_SEND_TIMEOUT_SECONDS)):
            try:
                await socket.control.send(StopCommand(session.id, answer_to))
                sent = await answer.receive()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        if not sent:
            self._detach(session.device_id, socket.id)  # a socket that cannot take a message is dead
            reply.fail(_not_stoppable(session.id))
            return
        try:
            session.ref.try_tell(StopRequested())
        except ActorError:
            pass  # it ended meanwhile: nothing left to stop
        reply.set(None)

    async def _send_parental_stop(self, session_id: str, socket: _Socket) -> None:
        """``stop`` for a session that already ended at its parental limit: the player is told, once."""
        answer_to, answer = trio.open_memory_channel[bool](1)
        with trio.move_on_after(STOP_SEND_TIMEOUT_SECONDS):
            try:
                await socket.control.send(StopCommand(session_id, answer_to))
                await answer.receive()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

    # -- the scheduler's idle trigger -------------------------------------------------

    async def _report_activity(self, activity: ActivityListener) -> None:
        reported: bool | None = None
        while True:
            await self._activity_changed.wait()
            self._activity_changed = trio.Event()
            active = bool(self._sessions)
            if active != reported:
                try:
                    await activity(active)
                except Exception:  # the listener stopping must not stop playback
                    log.warning("could not report playback activity (%s)", active, exc_info=True)
                reported = active


def _not_stoppable(session_id: str) -> errors.Conflict:
    return errors.Conflict(
        "The player of this session holds no remote-control socket; it cannot be asked to stop.",
        code="session_not_stoppable", params={"sessionId": session_id},
    )  # fmt: skip
