"""The actor runtime: Actor, ActorRef (ask/tell), and running one actor.

An actor is a task that owns its state and handles one message at a time
from a bounded mailbox. Only its :class:`ActorRef` leaves it. Replies:

- ``handle`` returns a value: the asker gets it.
- ``handle`` raises a :class:`~reelhouse.errors.DomainError`: the asker gets
  that error raised and the actor lives on (for a tell, it is logged).
- ``handle`` raises anything else: the actor crashes. The asker gets
  :class:`ActorCrashed` with the original as ``__cause__``; the crash
  propagates to whoever runs the actor (a supervisor restarts it; an
  unsupervised :func:`run_actor` raises it into its nursery).

Asks and tells to an actor that stopped for good raise :class:`ActorStopped`
at once; asks still queued when it stops for good get ActorStopped too, so
nothing ever waits on a dead actor.

Deadlines travel: an ask carries its asker's absolute deadline
(``trio.current_time()``-based) in the envelope. The handler runs under it
(a cancel scope), so it stops when its asker gives up; an ask whose
deadline passed while it was queued is never started; and an ask made
inside a handler inherits the deadline (``trio.current_effective_deadline``)
instead of picking its own.

A nested ask that fails (:class:`ActorStopped`, :class:`AskTimeout`,
:class:`ActorCrashed` raised out of ``handle``) does not crash the asking
actor: its asker gets :class:`NestedAskFailed`, because what failed is a
part the actor needed, not the actor. What a client is told of it (the
HTTP edge: 503 with a retry) is decided where the asks come in.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from typing import Generic, TypeVar, overload

import trio

from reelhouse.errors import DomainError
from reelhouse.log_origin import log_origin

from ._mailbox import _Envelope, _Mailbox, _MailboxClosed, _Reply

DEFAULT_MAILBOX_SIZE = 64
# The bound of an ask made where no deadline is inherited (a tell's handler,
# a background task) and none is given: nothing waits forever.
DEFAULT_ASK_TIMEOUT_SECONDS = 10.0

_log = logging.getLogger("reelhouse.actors")


class ActorError(Exception):
    """Base of the runtime's errors. ``actor`` is the name of the actor concerned."""

    def __init__(self, actor: str, message: str) -> None:
        super().__init__(message)
        self.actor = actor


class NestedAskFailed(ActorError):
    """An actor's handler asked another actor, and that ask failed (stopped,
    timed out or crashed): a part the actor needed, busy or restarting. The
    failed ask is the ``__cause__``; trying again shortly may succeed."""


class ActorCrashed(ActorError):
    """The actor crashed handling this ask; ``__cause__`` is what it raised."""


class ActorStopped(ActorError):
    """The actor has stopped for good (or stopped before answering this ask)."""


class AskTimeout(ActorError, trio.TooSlowError):
    """No reply within the ask's timeout (queueing and handling together)."""


Reply = TypeVar("Reply", covariant=True)
Answer = TypeVar("Answer")


class Ask(Generic[Reply]):
    """A message that declares the type of its reply: ``class GetX(Ask[X])``.

    :meth:`ActorRef.ask` then returns an ``X`` to the type checker. The
    runtime does not check it: the actor's ``handle`` keeps the promise,
    and its tests hold it to it.
    """

    __slots__ = ()


class ActorRef:
    """The address of an actor: the only thing that leaves it.

    One ActorRef per place in the tree: it keeps working across restarts,
    because the mailbox it points at survives them.
    """

    __slots__ = ("_mailbox",)

    def __init__(self, mailbox: _Mailbox) -> None:
        self._mailbox = mailbox

    @property
    def name(self) -> str:
        return self._mailbox.name

    @property
    def alive(self) -> bool:
        """True while the actor accepts messages (also while it is being restarted)."""
        return not self._mailbox.closed

    @overload
    async def ask(self, msg: Ask[Answer], *, timeout: float | None = None) -> Answer: ...
    @overload
    async def ask(self, msg: object, *, timeout: float | None = None) -> object: ...

    async def ask(self, msg: object, *, timeout: float | None = None) -> object:
        """Send ``msg`` and wait for the reply (typed when ``msg`` is an :class:`Ask`).

        The ask's deadline is the earlier of ``timeout`` seconds from now and
        the deadline this task already runs under (an enclosing handler's,
        a request's); with neither, :data:`DEFAULT_ASK_TIMEOUT_SECONDS`. It
        travels with the message: it covers waiting for mailbox room and the
        handling, which is cancelled when it passes. Raises AskTimeout on
        expiry (the message, if still queued, is then skipped), ActorStopped
        if the actor is or becomes stopped, ActorCrashed if handling it
        crashed the actor, or the DomainError the actor replied with.
        Cancellation abandons the ask the same way.
        """
        deadline = _ask_deadline(timeout)
        reply = _Reply()
        try:
            with trio.move_on_at(deadline):
                await self._put(_Envelope(msg, reply, deadline))
                await reply.wait()
        finally:
            if not reply.done:
                reply.abandoned = True
        if not reply.done:
            raise _ask_timeout(self.name)
        return reply.unwrap()

    async def tell(self, msg: object) -> None:
        """Send ``msg`` without waiting for a reply; waits while the mailbox is full.

        Raises ActorStopped if the actor is or becomes stopped. Wrap it in
        ``trio.fail_after`` to bound the wait.
        """
        await self._put(_Envelope(msg, None))

    def try_tell(self, msg: object) -> bool:
        """Send ``msg`` if the mailbox has room; never blocks.

        Returns False when the mailbox is full; raises ActorStopped when the
        actor is stopped.
        """
        try:
            return self._mailbox.try_put(_Envelope(msg, None))
        except _MailboxClosed:
            raise ActorStopped(self.name, f"actor {self.name} is stopped") from None

    async def _put(self, envelope: _Envelope) -> None:
        if self._mailbox.closed:
            raise ActorStopped(self.name, f"actor {self.name} is stopped")
        try:
            await self._mailbox.put(envelope)
        except _MailboxClosed:
            raise ActorStopped(self.name, f"actor {self.name} is stopped") from None

    def __repr__(self) -> str:
        return f"<ActorRef {self.name} {'alive' if self.alive else 'stopped'}>"


class Actor:
    """Base class of every actor.

    Subclasses implement :meth:`handle` (dispatch with ``match`` on frozen
    dataclass messages) and optionally :meth:`on_start` / :meth:`on_stop`.
    While running, ``self.nursery`` is a nursery the actor owns (for child
    tasks such as a running scan; a child task that raises crashes the actor)
    and ``self.ref`` is its own ActorRef.
    """

    nursery: trio.Nursery
    ref: ActorRef
    _turn: _Turn | None = None  # the message being handled (set by the runtime)

    async def handle(self, msg: object) -> object:
        """Handle one message; the return value is the reply to an ask."""
        raise NotImplementedError(f"{type(self).__name__} does not handle {msg!r}")

    async def on_start(self) -> None:
        """Runs before the first message; the actor counts as started once it returns.

        If it raises, the actor does not start (the starter gets the error).
        """

    async def on_stop(self) -> None:
        """Runs when this instance ends (stopped, crashed or cancelled).

        Child tasks in ``self.nursery`` still run while it does; whatever is
        left is cancelled after it returns. Under cancellation it runs
        cancelled: any await in it raises Cancelled at once. Errors it
        raises are logged, never propagated.
        """

    def stop_self(self) -> None:
        """Finish this actor: the mailbox closes to new messages, queued ones
        are still handled, then ``on_stop`` runs and the actor exits normally."""
        self.ref._mailbox.close()

    def defer_reply(self) -> PendingReply:
        """Take over the reply to the message being handled, to answer it later.

        For work that must not hold the mailbox (a slow disk walk): the
        handler starts it in ``self.nursery`` and returns at once; whatever
        it returns is then ignored. The work answers through the returned
        :class:`PendingReply` and should run under its ``deadline``. A reply
        still pending when this instance ends is failed (ActorStopped, or
        ActorCrashed after a crash). Only valid inside ``handle``.
        """
        turn = self._turn
        if turn is None:
            raise RuntimeError("defer_reply() is only valid inside handle()")
        turn.deferred = True
        pending = PendingReply(turn.envelope.reply, turn.envelope.deadline, turn.in_flight)
        if pending._reply is not None:
            turn.in_flight.deferred.add(pending._reply)
        return pending


class PendingReply:
    """The reply to an ask a handler deferred (:meth:`Actor.defer_reply`); answered once."""

    __slots__ = ("_in_flight", "_reply", "deadline")

    def __init__(self, reply: _Reply | None, deadline: float, in_flight: _InFlight) -> None:
        self._reply = reply
        self.deadline = deadline  # the asker's (inf for a tell)
        self._in_flight = in_flight

    @property
    def wanted(self) -> bool:
        """False once the asker gave up (or it was a tell, or it was answered)."""
        return self._reply is not None and not self._reply.done and not self._reply.abandoned

    def set(self, value: object) -> None:
        if self._reply is not None:
            self._reply.set(value)
            self._in_flight.deferred.discard(self._reply)

    def fail(self, error: BaseException) -> None:
        if self._reply is not None:
            self._reply.fail(error)
            self._in_flight.deferred.discard(self._reply)


ActorFactory = Callable[[], Actor]


async def run_actor(
    actor_or_factory: Actor | ActorFactory,
    name: str,
    *,
    mailbox_size: int = DEFAULT_MAILBOX_SIZE,
    task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run one unsupervised actor; use as ``ref = await nursery.start(run_actor, actor, name)``.

    ``task_status.started(ref)`` is called once ``on_start`` succeeded; if
    it raises, ``nursery.start`` raises that error. Returns when the actor
    finished (``stop_self``); a crash is raised from here into the
    nursery. However it ends, the mailbox closes for good and queued asks
    get ActorStopped.
    """
    ref = _new_ref(name, mailbox_size)
    try:
        actor = actor_or_factory if isinstance(actor_or_factory, Actor) else actor_or_factory()
        await _run_incarnation(actor, ref, functools.partial(task_status.started, ref))
    finally:
        _close_for_good(ref)


async def spawn(
    nursery: trio.Nursery,
    actor_or_factory: Actor | ActorFactory,
    name: str,
    *,
    mailbox_size: int = DEFAULT_MAILBOX_SIZE,
) -> ActorRef:
    """Start an unsupervised actor in ``nursery`` (see :func:`run_actor`); returns its ref."""
    run = functools.partial(run_actor, actor_or_factory, name, mailbox_size=mailbox_size)
    ref: ActorRef = await nursery.start(run)
    return ref


# --- internals shared with the supervisor --------------------------------


class _InFlight:
    """The ask being handled right now and the deferred ones, so a torn-down instance can answer them."""

    __slots__ = ("deferred", "reply")

    def __init__(self) -> None:
        self.reply: _Reply | None = None
        self.deferred: set[_Reply] = set()

    def fail(self, name: str, error: BaseException | None) -> None:
        """Answer what this instance still owes: ActorCrashed after a crash, else ActorStopped."""
        for reply in [self.reply, *self.deferred]:
            if reply is not None and not reply.done:
                if isinstance(error, Exception):
                    reply.fail(_crashed(name, error))
                else:
                    reply.fail(ActorStopped(name, f"actor {name} stopped while handling the ask"))
        self.reply = None
        self.deferred.clear()


class _Turn:
    """The message being handled, and whether its handler deferred the reply."""

    __slots__ = ("deferred", "envelope", "in_flight")

    def __init__(self, envelope: _Envelope, in_flight: _InFlight) -> None:
        self.envelope = envelope
        self.in_flight = in_flight
        self.deferred = False


def _new_ref(name: str, mailbox_size: int) -> ActorRef:
    return ActorRef(_Mailbox(name, mailbox_size))


def _close_gracefully(ref: ActorRef) -> None:
    ref._mailbox.close()


def _close_for_good(ref: ActorRef) -> None:
    name = ref.name
    ref._mailbox.close_for_good(lambda: ActorStopped(name, f"actor {name} stopped"))


def _crashed(name: str, cause: BaseException) -> ActorCrashed:
    error = ActorCrashed(name, f"actor {name} crashed: {cause!r}")
    error.__cause__ = cause
    return error


def _ask_deadline(timeout: float | None) -> float:
    inherited = trio.current_effective_deadline()
    if timeout is not None:
        return min(inherited, trio.current_time() + timeout)
    if inherited == math.inf:
        return trio.current_time() + DEFAULT_ASK_TIMEOUT_SECONDS
    return inherited


def _ask_timeout(name: str) -> AskTimeout:
    return AskTimeout(name, f"no reply from actor {name} before the ask's deadline")


def nested_ask_failed(name: str, error: ActorError) -> NestedAskFailed:
    """What an actor answers when a nested ask of its handler failed."""
    _log.warning("actor %s: a nested ask failed: %r", name, error)
    failed = NestedAskFailed(name, f"actor {name}: a part it needed did not answer ({error})")
    failed.__cause__ = error
    return failed


def is_cancellation(error: BaseException) -> bool:
    """Whether ``error`` is, or is a group holding, a ``trio.Cancelled`` (strict exception groups)."""
    if isinstance(error, trio.Cancelled):
        return True
    return isinstance(error, BaseExceptionGroup) and error.subgroup(trio.Cancelled) is not None


def sole_exception(error: BaseException) -> BaseException:
    """The single exception inside (nested) one-member exception groups, else ``error``.

    For a scope that owns a nursery but should fail with its body's own
    exception, as a plain call would (strict exception groups wrap it).
    """
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def _run_incarnation(actor: Actor, ref: ActorRef, on_started: Callable[[], None]) -> None:
    """Run one instance of an actor on ``ref``'s mailbox.

    Calls ``on_started()`` after ``on_start`` succeeded. Returns when the
    mailbox is closed and drained; raises the crash (unwrapped from the
    nursery's exception group) otherwise. The mailbox is left open: the
    caller decides whether another instance takes over.
    """
    in_flight = _InFlight()
    try:
        with log_origin(f"actor:{ref.name}"):  # its log lines, and its tasks', name it
            crash = await _run_in_nursery(actor, ref, on_started, in_flight)
    except BaseExceptionGroup as group:
        error = sole_exception(group)
        in_flight.fail(ref.name, error)
        if error is group:
            raise
        raise error from error.__cause__
    except BaseException as error:
        in_flight.fail(ref.name, error)
        raise
    in_flight.fail(ref.name, crash)
    if crash is not None:
        raise crash


async def _run_in_nursery(
    actor: Actor, ref: ActorRef, on_started: Callable[[], None], in_flight: _InFlight
) -> Exception | None:
    async with trio.open_nursery() as nursery:
        actor.nursery = nursery
        actor.ref = ref
        await actor.on_start()
        on_started()
        try:
            crash = await _serve(actor, ref, in_flight)
        finally:
            await _stop_quietly(actor, ref.name)
        nursery.cancel_scope.cancel()
    return crash


async def _serve(actor: Actor, ref: ActorRef, in_flight: _InFlight) -> Exception | None:
    """Handle messages until the mailbox is drained (None) or one crashes the actor."""
    name = ref.name
    while (envelope := await ref._mailbox.get()) is not None:
        reply = envelope.reply
        if reply is not None and (reply.abandoned or envelope.deadline <= trio.current_time()):
            reply.fail(_ask_timeout(name))  # its asker gave up: not started
            continue
        in_flight.reply = reply
        turn = actor._turn = _Turn(envelope, in_flight)
        try:
            with trio.CancelScope(deadline=envelope.deadline) as scope:
                result = await actor.handle(envelope.msg)
        except DomainError as error:
            _answer_error(name, envelope, error)
        except ActorError as error:  # a nested ask failed: a part this actor needs, not this actor
            _answer_error(name, envelope, nested_ask_failed(name, error))
        except Exception as crash:
            if reply is not None:
                reply.fail(_crashed(name, crash))
            return crash
        else:
            if reply is not None and scope.cancelled_caught:
                reply.fail(_ask_timeout(name))  # stopped at its asker's deadline
            elif reply is not None and not turn.deferred:
                reply.set(result)
        finally:
            actor._turn = None
        in_flight.reply = None
    return None


def _answer_error(name: str, envelope: _Envelope, error: DomainError | NestedAskFailed) -> None:
    if envelope.reply is not None:
        envelope.reply.fail(error)
    else:
        _log.warning("actor %s: told %r, replied %r", name, envelope.msg, error)


async def _stop_quietly(actor: Actor, name: str) -> None:
    try:
        await actor.on_stop()
    except Exception:
        _log.exception("actor %s: on_stop failed", name)
