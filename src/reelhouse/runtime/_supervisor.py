"""Supervisors: actors that start, restart and stop other actors (one_for_one).

- A *permanent* child that crashes is logged and restarted with a fresh
  instance from its factory; its mailbox (and so its ActorRef and the
  messages queued in it) carries over. Siblings are untouched.
- A *temporary* child (a scan, a playback session) is never restarted. When
  it ends, normally or by a crash, the supervisor reports it through
  :meth:`Supervisor.on_child_exit`, so the owner can record the outcome.
- More than ``max_restarts`` restarts within ``window`` seconds
  (``trio.current_time``) and the supervisor gives up: it raises
  :class:`SupervisorGaveUp`, which cancels all its children and crashes the
  supervisor itself, so its own parent supervisor sees a crashed child.
"""

from __future__ import annotations

import collections
import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import trio

from reelhouse.shutdown import shutdown_deadline

from ._runtime import (
    DEFAULT_MAILBOX_SIZE,
    Actor,
    ActorFactory,
    ActorRef,
    ActorStopped,
    _close_for_good,
    _close_gracefully,
    _new_ref,
    _run_incarnation,
    run_actor,
    sole_exception,
)

DEFAULT_MAX_RESTARTS = 3
DEFAULT_RESTART_WINDOW = 5.0
# How long a child gets to finish its queued messages and on_stop when stopped.
DEFAULT_STOP_TIMEOUT = 5.0

_log = logging.getLogger("reelhouse.actors")

Restart = Literal["permanent", "temporary"]
ChildExitCallback = Callable[[str, BaseException | None], None]


class SupervisorGaveUp(Exception):
    """A supervisor saw too many restarts in its window and stopped, children and all."""


@dataclass(frozen=True, slots=True)
class ChildSpec:
    """How to run one child: a fresh instance per (re)start comes from ``factory``."""

    name: str
    factory: ActorFactory
    restart: Restart = "permanent"
    mailbox_size: int = DEFAULT_MAILBOX_SIZE


@dataclass(slots=True, eq=False)
class _Child:
    spec: ChildSpec
    ref: ActorRef
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    done: trio.Event = field(default_factory=trio.Event)
    stopping: bool = False


class Supervisor(Actor):
    """An actor whose children run in its nursery, supervised one_for_one.

    Children given to the constructor start (in order) in ``on_start``; the
    supervisor counts as started once they all did. On stop, children are
    stopped gracefully in reverse start order. A subclass may handle its own
    messages in ``handle`` and add or remove children there with
    :meth:`start_child` / :meth:`stop_child`; subclasses that override
    ``on_start`` / ``on_stop`` must call the base versions.

    ``start_child``, ``stop_child`` and ``child`` are for the supervisor's
    own code and for the owner of a root supervisor; other actors talk to a
    supervisor through its ref.
    """

    def __init__(
        self,
        children: Sequence[ChildSpec] = (),
        *,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        window: float = DEFAULT_RESTART_WINDOW,
        on_child_exit: ChildExitCallback | None = None,
    ) -> None:
        self._initial = tuple(children)
        self._max_restarts = max_restarts
        self._window = window
        self._exit_callback = on_child_exit
        self._children: dict[str, _Child] = {}
        self._restarts: collections.deque[float] = collections.deque()
        self._running = False

    async def on_start(self) -> None:
        self._running = True
        for spec in self._initial:
            await self.start_child(spec)

    async def on_stop(self) -> None:
        self._running = False
        for name in reversed(list(self._children)):
            await self.stop_child(name)

    async def handle(self, msg: object) -> object:
        raise TypeError(f"{type(self).__name__} does not handle {msg!r}")

    def child(self, name: str) -> ActorRef | None:
        """The ref of the running child called ``name``, or None."""
        entry = self._children.get(name)
        return None if entry is None else entry.ref

    @property
    def child_names(self) -> list[str]:
        """Names of the running children, in start order."""
        return list(self._children)

    async def start_child(self, spec: ChildSpec) -> ActorRef:
        """Start a child in this supervisor's nursery; returns once its ``on_start`` succeeded.

        Raises ValueError if a child of that name runs, ActorStopped if the
        supervisor is not running, or whatever the child's factory or
        ``on_start`` raised (the child is then not kept).
        """
        if not self._running:
            name = type(self).__name__
            raise ActorStopped(name, f"supervisor {name} is not running")
        if spec.name in self._children:
            raise ValueError(f"a child named {spec.name!r} already runs")
        entry = _Child(spec, _new_ref(spec.name, spec.mailbox_size))
        self._children[spec.name] = entry
        try:
            ref: ActorRef = await self.nursery.start(self._run_child, entry)
        except BaseException:
            self._forget(entry)
            raise
        return ref

    async def stop_child(self, name: str, *, timeout: float = DEFAULT_STOP_TIMEOUT) -> None:
        """Stop a child: no new messages, queued ones handled, ``on_stop`` run;
        cancelled if that takes more than ``timeout`` seconds. Returns once it
        has ended; at once if no such child runs. Never restarted afterwards.
        Never waits past the server's shutdown deadline (reelhouse.shutdown).
        Must not be awaited from the child's own ``handle`` (it would wait on itself).
        """
        entry = self._children.get(name)
        if entry is None:
            return
        entry.stopping = True
        entry.scope.deadline = min(entry.scope.deadline, shutdown_deadline().bound(timeout))
        _close_gracefully(entry.ref)
        await entry.done.wait()

    def on_child_exit(self, name: str, error: BaseException | None) -> None:
        """Called when a child ends for good, unless this supervisor itself is
        being torn down or gives up: ``error`` is the crash of a temporary
        child, None for a normal end (``stop_self``, ``stop_child``). Runs
        synchronously in the child's runner task: record the outcome, or
        ``try_tell``/start a task; do not block. The default calls the
        ``on_child_exit`` callback given to the constructor. Errors raised
        here are logged.
        """
        if self._exit_callback is not None:
            self._exit_callback(name, error)

    async def _run_child(self, entry: _Child, *, task_status: trio.TaskStatus[ActorRef]) -> None:
        try:
            with entry.scope:
                error = await self._keep_running(entry, task_status)
            if entry.scope.cancelled_caught:
                error = None  # stop_child's deadline: a stop, not a crash
            self._report_exit(entry.spec.name, error)
        finally:
            _close_for_good(entry.ref)
            self._forget(entry)
            entry.done.set()

    async def _keep_running(
        self, entry: _Child, task_status: trio.TaskStatus[ActorRef]
    ) -> Exception | None:
        """Run instances until one ends for good; returns its crash or None.

        A failure before the first instance started is raised (to
        ``start_child``); giving up raises SupervisorGaveUp.
        """
        started = False

        def mark_started() -> None:
            nonlocal started
            started = True
            task_status.started(entry.ref)

        while True:
            try:
                actor = entry.spec.factory()
                await _run_incarnation(actor, entry.ref, mark_started if not started else _noop)
                return None
            except Exception as crash:
                if not started:
                    raise
                if entry.spec.restart == "temporary" or entry.stopping:
                    _log.error("actor %s crashed", entry.spec.name, exc_info=crash)
                    return crash
                self._note_restart(entry.spec.name, crash)

    def _note_restart(self, name: str, crash: Exception) -> None:
        now = trio.current_time()
        while self._restarts and self._restarts[0] <= now - self._window:
            self._restarts.popleft()
        if len(self._restarts) >= self._max_restarts:
            _log.error("actor %s crashed; too many restarts, giving up", name, exc_info=crash)
            raise SupervisorGaveUp(
                f"{len(self._restarts) + 1} crashes within {self._window}s (last: {name})"
            ) from sole_exception(crash)
        self._restarts.append(now)
        _log.error("actor %s crashed; restarting it", name, exc_info=crash)

    def _report_exit(self, name: str, error: BaseException | None) -> None:
        try:
            self.on_child_exit(name, error)
        except Exception:
            _log.exception("supervisor %s: on_child_exit(%s) failed", self.ref.name, name)

    def _forget(self, entry: _Child) -> None:
        if self._children.get(entry.spec.name) is entry:
            del self._children[entry.spec.name]


class RootActor(Supervisor):
    """The supervisor that owns the whole tree.

    ``await nursery.start(root.run)`` returns the root's ActorRef once every
    initial child started. Cancelling that nursery tears the tree down (each
    actor's ``on_stop`` runs, cancelled). :meth:`stop` is the graceful way:
    children stop in reverse start order, each finishing its queued
    messages and ``on_stop``; whatever still runs at the deadline is cancelled.
    If the root gives up (SupervisorGaveUp), ``run`` raises it.
    """

    def __init__(
        self,
        children: Sequence[ChildSpec] = (),
        *,
        name: str = "root",
        mailbox_size: int = DEFAULT_MAILBOX_SIZE,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        window: float = DEFAULT_RESTART_WINDOW,
        on_child_exit: ChildExitCallback | None = None,
    ) -> None:
        super().__init__(
            children, max_restarts=max_restarts, window=window, on_child_exit=on_child_exit
        )
        self._name = name
        self._mailbox_size = mailbox_size
        self._scope = trio.CancelScope()
        self._finished = trio.Event()

    async def run(self, *, task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED) -> None:
        """Run the tree until :meth:`stop` finishes it or the nursery is cancelled."""
        try:
            with self._scope:
                run = functools.partial(run_actor, self, self._name, mailbox_size=self._mailbox_size)
                await run(task_status=task_status)
        finally:
            self._finished.set()

    async def stop(self, *, timeout: float = DEFAULT_STOP_TIMEOUT) -> None:
        """Stop the tree gracefully, cancelling what still runs after ``timeout``
        seconds; returns once ``run`` has returned."""
        self._scope.deadline = min(self._scope.deadline, shutdown_deadline().bound(timeout))
        if hasattr(self, "ref"):
            _close_gracefully(self.ref)
        else:
            self._scope.cancel()
        await self._finished.wait()


def _noop() -> None:
    pass

