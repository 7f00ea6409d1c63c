"""Actor runtime: ask deadlines travel, nested-ask failures, deferred replies, group-aware cancellation."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import trio
import trio.testing

from reelhouse.runtime import (
    DEFAULT_ASK_TIMEOUT_SECONDS,
    Actor,
    ActorError,
    ActorRef,
    ActorStopped,
    AskTimeout,
    NestedAskFailed,
    PendingReply,
    is_cancellation,
    run_actor,
    spawn,
)

CAP = 60  # seconds of (virtual) time any test may take


@dataclass(frozen=True, slots=True)
class Work:
    seconds: float


@dataclass(frozen=True, slots=True)
class Deadline:
    """Ask: the effective deadline the handler runs under."""


@dataclass(frozen=True, slots=True)
class Boom:
    pass


@dataclass(frozen=True, slots=True)
class Relay:
    """Ask: ask ``msg`` of ``to`` (inheriting the deadline) and answer with its reply."""

    to: ActorRef
    msg: object


@dataclass(frozen=True, slots=True)
class Slow:
    """Ask: answered after ``seconds``, off the mailbox (a deferred reply)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Ping:
    pass


@dataclass(frozen=True, slots=True)
class Stop:
    pass


class Worker(Actor):
    def __init__(self) -> None:
        self.finished: list[float] = []
        self.started: list[object] = []

    async def handle(self, msg: object) -> object:
        self.started.append(msg)
        match msg:
            case Work(seconds):
                await trio.sleep(seconds)
                self.finished.append(seconds)
                return "done"
            case Deadline():
                return trio.current_effective_deadline()
            case Boom():
                raise RuntimeError("boom")
            case Relay(to, inner):
                return await to.ask(inner)
            case Slow(seconds):
                pending = self.defer_reply()
                self.nursery.start_soon(self._answer_later, pending, seconds)
                return "ignored"
            case Ping():
                return "pong"
            case Stop():
                self.stop_self()
                return None
        raise TypeError(msg)

    async def _answer_later(self, pending: PendingReply, seconds: float) -> None:
        with trio.CancelScope(deadline=pending.deadline):
            await trio.sleep(seconds)
            pending.set(f"slept {seconds}")


async def test_a_handler_stops_when_its_asker_gives_up(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            actor = Worker()
            ref = await spawn(nursery, actor, "worker")
            with pytest.raises(AskTimeout):
                await ref.ask(Work(10), timeout=1)
            await trio.sleep(20)
            assert actor.finished == []  # cancelled at the deadline, not run on behind the asker's back
            assert await ref.ask(Ping(), timeout=1) == "pong"
            nursery.cancel_scope.cancel()


async def test_an_ask_whose_deadline_passed_while_queued_is_never_started(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            actor = Worker()
            ref = await spawn(nursery, actor, "worker")
            await ref.tell(Work(5))  # a tell has no deadline: it runs to the end
            with trio.move_on_after(1):  # the asker's own scope, not the ask's timeout
                await ref.ask(Work(0.5))
            await trio.sleep(10)
            assert actor.started == [Work(5)]
            assert actor.finished == [5]
            nursery.cancel_scope.cancel()


async def test_a_nested_ask_inherits_the_deadline_of_its_asker(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            relay = await spawn(nursery, Worker, "relay")
            inner = await spawn(nursery, Worker, "inner")
            asked_at = trio.current_time()
            seen = await relay.ask(Relay(inner, Deadline()), timeout=3)
            assert seen == pytest.approx(asked_at + 3)
            # and the nested ask gives up with it: 3 s, not a constant of its own
            started = trio.current_time()
            with pytest.raises(AskTimeout):
                await relay.ask(Relay(inner, Work(100)), timeout=3)
            assert trio.current_time() - started == pytest.approx(3)
            nursery.cancel_scope.cancel()


async def test_an_ask_without_timeout_or_inherited_deadline_is_still_bounded(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            ref = await spawn(nursery, Worker, "worker")
            started = trio.current_time()
            with trio.CancelScope(shield=True):  # no deadline to inherit (as in a tell's handler)
                with pytest.raises(AskTimeout):
                    await ref.ask(Work(1000))
            assert trio.current_time() - started == pytest.approx(DEFAULT_ASK_TIMEOUT_SECONDS)
            nursery.cancel_scope.cancel()


async def _run_inner(*, task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED) -> None:
    try:
        await run_actor(Worker(), "inner", task_status=task_status)
    except RuntimeError:
        pass  # the crash the test provoked


@pytest.mark.parametrize("failure", ["stopped", "crashed"])
async def test_a_failed_nested_ask_answers_nested_ask_failed_and_the_asker_lives_on(
    autojump_clock: trio.abc.Clock, failure: str
) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            relay = await spawn(nursery, Worker, "relay")
            inner: ActorRef = await nursery.start(_run_inner)
            msg: object = Ping() if failure == "stopped" else Boom()
            if failure == "stopped":
                await inner.ask(Stop(), timeout=1)
                await trio.testing.wait_all_tasks_blocked()
            with pytest.raises(NestedAskFailed) as caught:
                await relay.ask(Relay(inner, msg), timeout=30)
            assert isinstance(caught.value.__cause__, ActorError)  # what the relay's own ask got
            assert relay.alive
            assert await relay.ask(Ping(), timeout=1) == "pong"
            nursery.cancel_scope.cancel()


class TimedRelay(Worker):
    async def handle(self, msg: object) -> object:
        if isinstance(msg, Relay):
            return await msg.to.ask(msg.msg, timeout=2)  # shorter than its asker's
        return await super().handle(msg)


async def test_a_nested_ask_timeout_shorter_than_the_askers_is_nested_ask_failed(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            relay = await spawn(nursery, TimedRelay, "relay")
            inner = await spawn(nursery, Worker, "inner")
            with pytest.raises(NestedAskFailed) as caught:
                await relay.ask(Relay(inner, Work(100)), timeout=30)
            assert isinstance(caught.value.__cause__, AskTimeout)
            assert await relay.ask(Ping(), timeout=1) == "pong"
            nursery.cancel_scope.cancel()


async def test_a_deferred_reply_answers_later_while_the_mailbox_serves_others(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            ref = await spawn(nursery, Worker, "worker")
            answers: list[object] = []

            async def slow() -> None:
                answers.append(await ref.ask(Slow(5), timeout=10))

            nursery.start_soon(slow)
            await trio.testing.wait_all_tasks_blocked()
            assert await ref.ask(Ping(), timeout=1) == "pong"  # not behind the slow one
            assert answers == []
            await trio.sleep(6)
            assert answers == ["slept 5"]
            with pytest.raises(AskTimeout):
                await ref.ask(Slow(5), timeout=1)  # the deferred work runs under the asker's deadline
            nursery.cancel_scope.cancel()


async def test_a_deferred_reply_pending_when_the_actor_stops_gets_actor_stopped(autojump_clock: trio.abc.Clock) -> None:
    outcome: list[BaseException] = []

    async def ask(ref: ActorRef) -> None:
        try:
            await ref.ask(Slow(100), timeout=1000)
        except ActorStopped as error:
            outcome.append(error)

    with trio.fail_after(CAP):
        async with trio.open_nursery() as outer:
            async with trio.open_nursery() as nursery:
                ref = await spawn(nursery, Worker, "worker")
                outer.start_soon(ask, ref)
                await trio.testing.wait_all_tasks_blocked()
                nursery.cancel_scope.cancel()
    assert len(outcome) == 1


def test_is_cancellation_sees_cancelled_inside_strict_groups() -> None:
    cancelled = trio.Cancelled._create()
    assert is_cancellation(cancelled)
    assert is_cancellation(BaseExceptionGroup("", [cancelled]))
    assert is_cancellation(BaseExceptionGroup("", [ValueError(), BaseExceptionGroup("", [cancelled])]))
    assert not is_cancellation(ExceptionGroup("", [ValueError()]))
    assert not is_cancellation(ValueError())
