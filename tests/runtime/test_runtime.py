"""Actor runtime: ask/tell, replies, errors, timeouts, backpressure, lifecycle."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from reelhouse.errors import NotFound
from reelhouse.runtime import (
    Actor,
    ActorCrashed,
    ActorRef,
    ActorStopped,
    AskTimeout,
    run_actor,
    spawn,
)

from .messages import Add, Boom, Finish, Get, Hold, Missing, Sleep

CAP = 30  # seconds of (virtual) time any test may take


class Counter(Actor):
    def __init__(self) -> None:
        self.total = 0
        self.seen: list[object] = []
        self.started = False
        self.stopped = False

    async def on_start(self) -> None:
        await trio.sleep(1)  # startup takes a while: started() must wait for it
        self.started = True

    async def on_stop(self) -> None:
        self.stopped = True

    async def handle(self, msg: object) -> object:
        self.seen.append(msg)
        match msg:
            case Add(n):
                self.total += n
                return self.total
            case Get():
                return self.total
            case Missing():
                raise NotFound("no such thing")
            case Boom():
                raise RuntimeError("boom")
            case Sleep(seconds):
                await trio.sleep(seconds)
                return "slept"
            case Hold(gate):
                await gate.wait()
                return "released"
            case Finish():
                self.stop_self()
                return "finishing"
        raise TypeError(msg)


async def test_ask_returns_the_handlers_reply(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            actor = Counter()
            ref = await spawn(nursery, actor, "counter")
            assert await ref.ask(Add(2), timeout=1) == 2
            assert await ref.ask(Add(3), timeout=1) == 5
            assert ref.name == "counter" and ref.alive
            nursery.cancel_scope.cancel()


async def test_started_only_after_on_start_and_ref_is_set(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            actor = Counter()
            ref = await nursery.start(run_actor, actor, "counter")
            assert actor.started
            assert actor.ref is ref
            assert isinstance(actor.nursery, trio.Nursery)
            nursery.cancel_scope.cancel()


async def test_factory_is_accepted_instead_of_an_instance(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            ref = await spawn(nursery, Counter, "counter")
            assert await ref.ask(Add(1), timeout=1) == 1
            nursery.cancel_scope.cancel()


async def test_domain_error_is_raised_in_the_asker_and_actor_lives_on(
    autojump_clock: trio.abc.Clock,
) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            ref = await spawn(nursery, Counter, "counter")
            await ref.ask(Add(4), timeout=1)
            with pytest.raises(NotFound, match="no such thing"):
                await ref.ask(Missing(), timeout=1)
            assert await ref.ask(Get(), timeout=1) == 4
            nursery.cancel_scope.cancel()


async def test_told_domain_error_is_logged_and_actor_lives_on(
    autojump_clock: trio.abc.Clock, caplog: pytest.LogCaptureFixture
) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            ref = await spawn(nursery, Counter, "counter")
            await ref.tell(Missing())
            assert await ref.ask(Get(), timeout=1) == 0
            assert "no such thing" in caplog.text
            nursery.cancel_scope.cancel()


async def test_crash_gives_the_asker_actor_crashed_and_raises_into_the_nursery(
    autojump_clock: trio.abc.Clock,
) -> None:
    asker_error: list[BaseException] = []

    async def ask_boom(ref: ActorRef) -> None:
        try:
            await ref.ask(Boom(), timeout=1)
        except ActorCrashed as error:
            asker_error.append(error)

    with trio.fail_after(CAP):
        async with trio.open_nursery() as outer:  # the asker lives outside the crash
            with pytest.RaisesGroup(pytest.RaisesExc(RuntimeError, match="boom")):
                async with trio.open_nursery() as actor_nursery:
                    ref = await spawn(actor_nursery, Counter, "counter")
                    outer.start_soon(ask_boom, ref)
                    await trio.sleep_forever()
    [error] = asker_error
    assert isinstance(error.__cause__, RuntimeError)
    assert error.actor == "counter"
    assert not ref.alive


async def test_ask_timeout_covers_handling(autojump_clock: trio.abc.Clock) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            ref = await spawn(nursery, Counter, "counter")
            with pytest.raises(AskTimeout) as caught:
                await ref.ask(Sleep(10), timeout=1)
            assert isinstance(caught.value, trio.TooSlowError)
            assert await ref.ask(Get(), timeout=20) == 0  # the actor is still fine
            nursery.cancel_scope.cancel()


async def test_ask_timeout_covers_queueing_and_the_abandoned_ask_is_skipped(
    autojump_clock: trio.abc.Clock,
) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            actor = Counter()
            ref = await spawn(nursery, actor, "counter", mailbox_size=1)
            gate = trio.Event()
            await ref.tell(Hold(gate))
            await trio.testing.wait_all_tasks_blocked()
            with pytest.raises(AskTimeout):
                await ref.ask(Add(1), timeout=1)  # queued behind Hold, not handled in time
            with pytest.raises(AskTimeout):
                await ref.ask(Add(2), timeout=1)  # waits for mailbox room, in vain
            gate.set()
            assert await ref.ask(Get(), timeout=1) == 0
            assert Add(1) not in actor.seen and Add(2) not in actor.seen
            nursery.cancel_scope.cancel()


async def test_ask_to_a_stopped_actor_raises_at_once() -> None:
    async with trio.open_nursery() as nursery:
        ref = await spawn(nursery, Counter, "counter")
        nursery.cancel_scope.cancel()
    assert not ref.alive
    with trio.fail_after(0):  # "at once": not even a scheduling round
        with pytest.raises(ActorStopped):
            await ref.ask(Get(), timeout=100)
        with pytest.raises(ActorStopped):
            await ref.tell(Get())
        with pytest.raises(ActorStopped):
            ref.try_tell(Get())


async def test_queued_asks_get_actor_stopped_when_the_actor_stops_for_good(
    autojump_clock: trio.abc.Clock,
) -> None:
    outcomes: list[BaseException] = []

    async def ask_and_record(ref: ActorRef) -> None:
        try:
            await ref.ask(Get(), timeout=100)
        except ActorStopped as error:
            outcomes.append(error)

    with trio.fail_after(CAP):
        async with trio.open_nursery() as outer:
            async with trio.open_nursery() as actor_nursery:
                ref = await spawn(actor_nursery, Counter, "counter")
                await ref.tell(Hold(trio.Event()))  # never released
                for _ in range(3):
                    outer.start_soon(ask_and_record, ref)
                await trio.testing.wait_all_tasks_blocked()
                actor_nursery.cancel_scope.cancel()
    assert len(outcomes) == 3


async def test_ask_being_handled_when_the_actor_is_cancelled_gets_actor_stopped(
    autojump_clock: trio.abc.Clock,
) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as outer:
            async with trio.open_nursery() as actor_nursery:
                ref = await spawn(actor_nursery, Counter, "counter")
                result: list[BaseException] = []

                async def ask() -> None:
                    try:
                        await ref.ask(Hold(trio.Event()), timeout=100)
                    except ActorStopped as error:
                        result.append(error)

                outer.start_soon(ask)
                await trio.testing.wait_all_tasks_blocked()
                actor_nursery.cancel_scope.cancel()
    assert len(result) == 1


async def test_tell_waits_while_the_mailbox_is_full_and_try_tell_says_false(
    autojump_clock: trio.abc.Clock,
) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            actor = Counter()
            ref = await spawn(nursery, actor, "counter", mailbox_size=2)
            gate = trio.Event()
            await ref.tell(Hold(gate))  # taken by the actor, which now blocks
            await trio.testing.wait_all_tasks_blocked()
            assert ref.try_tell(Add(1))
            assert ref.try_tell(Add(2))
            assert not ref.try_tell(Add(100))  # full: refused, never blocks

            told = trio.Event()

            async def tell_third() -> None:
                await ref.tell(Add(3))
                told.set()

            nursery.start_soon(tell_third)
            await trio.testing.wait_all_tasks_blocked()
            assert not told.is_set()  # backpressure: the sender waits
            gate.set()
            await told.wait()
            assert await ref.ask(Get(), timeout=1) == 6
            nursery.cancel_scope.cancel()


async def test_on_start_failure_is_raised_to_the_starter(autojump_clock: trio.abc.Clock) -> None:
    class Broken(Counter):
        async def on_start(self) -> None:
            raise OSError("cannot open")

    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            with pytest.raises(OSError, match="cannot open"):
                await spawn(nursery, Broken, "broken")


async def test_stop_self_handles_queued_messages_runs_on_stop_and_returns(
    autojump_clock: trio.abc.Clock,
) -> None:
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            actor = Counter()
            ref = await spawn(nursery, actor, "counter", mailbox_size=4)
            gate = trio.Event()
            await ref.tell(Hold(gate))
            await ref.tell(Finish())
            await ref.tell(Add(5))  # queued before the stop: still handled
            gate.set()
        # the nursery exited on its own: run_actor returned
    assert actor.total == 5
    assert actor.stopped
    assert not ref.alive


async def test_a_crashing_child_task_crashes_the_actor(autojump_clock: trio.abc.Clock) -> None:
    class WithTask(Counter):
        async def on_start(self) -> None:
            self.nursery.start_soon(self._work)

        async def _work(self) -> None:
            await trio.sleep(5)
            raise ValueError("task failed")

    with trio.fail_after(CAP):
        with pytest.RaisesGroup(pytest.RaisesExc(ValueError, match="task failed")):
            async with trio.open_nursery() as nursery:
                actor = WithTask()
                await spawn(nursery, actor, "worker")
    assert actor.stopped


async def test_on_stop_errors_are_logged_not_raised(
    autojump_clock: trio.abc.Clock, caplog: pytest.LogCaptureFixture
) -> None:
    class BadStop(Counter):
        async def on_stop(self) -> None:
            raise RuntimeError("cleanup failed")

    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            ref = await spawn(nursery, BadStop, "bad")
            await ref.ask(Finish(), timeout=1)
    assert "cleanup failed" in caplog.text
