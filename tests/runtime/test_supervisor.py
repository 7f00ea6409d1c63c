"""Supervisor and RootActor: restarts, give-up escalation, temporary children, shutdown."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import trio
import trio.testing

from reelhouse.runtime import (
    Actor,
    ActorCrashed,
    ActorStopped,
    ChildSpec,
    RootActor,
    Supervisor,
    SupervisorGaveUp,
    spawn,
)
from reelhouse.shutdown import ShutdownDeadline, use_shutdown_deadline

from .messages import Add, Boom, Finish, Get, Hold

CAP = 60  # seconds of (virtual) time any test may take


class Probe(Actor):
    """Counts, crashes on Boom, and records its lifecycle in a shared journal."""

    def __init__(self, name: str, journal: list[str]) -> None:
        self.name = name
        self.journal = journal
        self.total = 0

    async def on_start(self) -> None:
        self.journal.append(f"start {self.name}")

    async def on_stop(self) -> None:
        self.journal.append(f"stop {self.name}")

    async def handle(self, msg: object) -> object:
        match msg:
            case Add(n):
                self.total += n
                return self.total
            case Get():
                return self.total
            case Boom():
                raise RuntimeError(f"{self.name} boom")
            case Hold(gate):
                await gate.wait()
                return None
            case Finish():
                self.stop_self()
                return None
        raise TypeError(msg)


def probe(name: str, journal: list[str]) -> Callable[[], Probe]:
    return lambda: Probe(name, journal)


class Exits:
    """Records on_child_exit reports."""

    def __init__(self) -> None:
        self.reports: list[tuple[str, BaseException | None]] = []

    def __call__(self, name: str, error: BaseException | None) -> None:
        self.reports.append((name, error))


async def crash(ref_owner: Supervisor, name: str) -> None:
    ref = ref_owner.child(name)
    assert ref is not None
    with pytest.raises(ActorCrashed):
        await ref.ask(Boom(), timeout=1)


async def test_crashed_permanent_child_is_restarted_with_its_queue_and_sibling_untouched(
    autojump_clock: trio.abc.Clock, caplog: pytest.LogCaptureFixture
) -> None:
    journal: list[str] = []
    sup = Supervisor([ChildSpec("a", probe("a", journal)), ChildSpec("b", probe("b", journal))])
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await spawn(nursery, sup, "sup")
            a, b = sup.child("a"), sup.child("b")
            assert a is not None and b is not None
            await b.ask(Add(5), timeout=1)

            gate = trio.Event()
            await a.tell(Hold(gate))
            crashed: list[BaseException] = []

            async def ask_boom() -> None:
                try:
                    await a.ask(Boom(), timeout=10)
                except ActorCrashed as error:
                    crashed.append(error)

            nursery.start_soon(ask_boom)
            await trio.testing.wait_all_tasks_blocked()
            await a.tell(Add(1))  # queued behind the crash: must reach the new instance
            await a.tell(Add(2))
            gate.set()

            assert await a.ask(Get(), timeout=1) == 3
            assert isinstance(crashed[0].__cause__, RuntimeError)
            assert sup.child("a") is a and a.alive
            assert await b.ask(Get(), timeout=1) == 5
            assert journal.count("start a") == 2 and journal.count("start b") == 1
            assert "stop b" not in journal
            assert "restarting" in caplog.text
            nursery.cancel_scope.cancel()


async def test_supervisor_gives_up_after_too_many_restarts_and_escalates_to_its_parent(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    inner_holder: list[Supervisor] = []

    def make_inner() -> Supervisor:
        inner = Supervisor(
            [ChildSpec("crashy", probe("crashy", journal)), ChildSpec("steady", probe("steady", journal))],
            max_restarts=3,
            window=5,
        )
        inner_holder.append(inner)
        return inner

    exits = Exits()
    outer = Supervisor([ChildSpec("inner", make_inner, restart="temporary")], on_child_exit=exits)
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await spawn(nursery, outer, "outer")
            inner = inner_holder[0]
            steady = inner.child("steady")
            assert steady is not None
            for _ in range(3):
                await crash(inner, "crashy")
                await trio.sleep(1)  # all within the 5 s window
            assert exits.reports == [] and steady.alive  # 3 restarts are allowed
            await crash(inner, "crashy")  # the 4th within the window
            await trio.testing.wait_all_tasks_blocked()

            [(name, error)] = exits.reports
            assert name == "inner" and isinstance(error, SupervisorGaveUp)
            assert not steady.alive and "stop steady" in journal
            assert outer.child("inner") is None
            nursery.cancel_scope.cancel()


async def test_restarts_spread_over_more_than_the_window_never_give_up(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    sup = Supervisor([ChildSpec("crashy", probe("crashy", journal))], max_restarts=3, window=5)
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            sup_ref = await spawn(nursery, sup, "sup")
            for _ in range(10):
                await crash(sup, "crashy")
                await trio.sleep(2)  # at most 3 crashes in any 5 s
            assert sup_ref.alive and journal.count("start crashy") == 11
            nursery.cancel_scope.cancel()


async def test_root_that_gives_up_raises_from_run(autojump_clock: trio.abc.Clock) -> None:
    journal: list[str] = []
    root = RootActor([ChildSpec("crashy", probe("crashy", journal))], max_restarts=1, window=5)
    with trio.fail_after(CAP):
        with pytest.RaisesGroup(SupervisorGaveUp):
            async with trio.open_nursery() as nursery:
                await nursery.start(root.run)
                await crash(root, "crashy")
                await crash(root, "crashy")
                await trio.sleep_forever()


async def test_temporary_child_exit_is_reported_and_not_restarted(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    exits = Exits()
    sup = Supervisor(on_child_exit=exits)
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await spawn(nursery, sup, "sup")
            scan = await sup.start_child(ChildSpec("scan", probe("scan", journal), "temporary"))
            with pytest.raises(ActorCrashed):
                await scan.ask(Boom(), timeout=1)
            session = await sup.start_child(ChildSpec("session", probe("session", journal), "temporary"))
            await session.ask(Finish(), timeout=1)
            await trio.testing.wait_all_tasks_blocked()

            assert [name for name, _ in exits.reports] == ["scan", "session"]
            assert isinstance(exits.reports[0][1], RuntimeError)
            assert exits.reports[1][1] is None
            assert journal.count("start scan") == 1
            assert sup.child("scan") is None and not scan.alive
            with pytest.raises(ActorStopped):
                await scan.ask(Get(), timeout=1)
            nursery.cancel_scope.cancel()


async def test_stop_child_finishes_queued_messages_then_the_ref_is_dead(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    exits = Exits()
    sup = Supervisor([ChildSpec("a", probe("a", journal))], on_child_exit=exits)
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await spawn(nursery, sup, "sup")
            a = sup.child("a")
            assert a is not None
            gate = trio.Event()
            await a.tell(Hold(gate))
            await a.tell(Add(1))
            nursery.start_soon(sup.stop_child, "a")
            await trio.testing.wait_all_tasks_blocked()
            with pytest.raises(ActorStopped):  # closed to new messages at once
                await a.tell(Add(100))
            gate.set()
            await trio.testing.wait_all_tasks_blocked()
            assert journal == ["start a", "stop a"]
            assert exits.reports == [("a", None)]
            assert sup.child("a") is None
            nursery.cancel_scope.cancel()


async def test_stop_child_cancels_a_child_that_overruns_its_deadline(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    sup = Supervisor([ChildSpec("stuck", probe("stuck", journal))])
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await spawn(nursery, sup, "sup")
            stuck = sup.child("stuck")
            assert stuck is not None
            await stuck.tell(Hold(trio.Event()))  # never released
            start = trio.current_time()
            await sup.stop_child("stuck", timeout=2)
            assert trio.current_time() - start == pytest.approx(2)
            assert "stop stuck" in journal and not stuck.alive
            nursery.cancel_scope.cancel()


async def test_start_child_refuses_a_taken_name_and_drops_a_child_that_fails_to_start(
    autojump_clock: trio.abc.Clock,
) -> None:
    class FailsToStart(Actor):
        async def on_start(self) -> None:
            raise OSError("no device")

    journal: list[str] = []
    sup = Supervisor([ChildSpec("a", probe("a", journal))])
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await spawn(nursery, sup, "sup")
            with pytest.raises(ValueError):
                await sup.start_child(ChildSpec("a", probe("a", journal)))
            with pytest.raises(OSError, match="no device"):
                await sup.start_child(ChildSpec("b", FailsToStart))
            assert sup.child("b") is None and sup.child_names == ["a"]
            nursery.cancel_scope.cancel()


def build_tree(journal: list[str], worker_done: list[str]) -> RootActor:
    class Worker(Probe):
        async def on_start(self) -> None:
            await super().on_start()
            self.nursery.start_soon(self._work)

        async def _work(self) -> None:
            try:
                await trio.sleep_forever()
            finally:
                worker_done.append(self.name)

    registry = lambda: Supervisor(  # noqa: E731
        [ChildSpec("library", lambda: Worker("library", journal))]
    )
    return RootActor(
        [
            ChildSpec("store", probe("store", journal)),
            ChildSpec("registry", registry),
            ChildSpec("jobs", probe("jobs", journal)),
        ]
    )


async def test_cancelling_the_roots_nursery_stops_the_whole_tree(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    worker_done: list[str] = []
    root = build_tree(journal, worker_done)
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            root_ref = await nursery.start(root.run)
            refs = [root.child(name) for name in root.child_names]
            assert len(refs) == 3
            nursery.cancel_scope.cancel()
    # the nursery exited, so no task of the tree is left running
    assert sorted(e for e in journal if e.startswith("stop")) == [
        "stop jobs", "stop library", "stop store"
    ]
    assert worker_done == ["library"]
    assert not root_ref.alive and not any(ref is not None and ref.alive for ref in refs)


async def test_graceful_stop_stops_children_in_reverse_order(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    worker_done: list[str] = []
    root = build_tree(journal, worker_done)
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await nursery.start(root.run)
            await root.stop(timeout=5)
            assert [e for e in journal if e.startswith("stop")] == [
                "stop jobs", "stop library", "stop store"
            ]
            assert worker_done == ["library"]
        # run returned by itself: the nursery did not need cancelling


async def test_graceful_stop_cancels_what_still_runs_at_the_deadline(
    autojump_clock: trio.abc.Clock,
) -> None:
    journal: list[str] = []
    root = RootActor([ChildSpec("store", probe("store", journal)), ChildSpec("stuck", probe("stuck", journal))])
    with trio.fail_after(CAP):
        async with trio.open_nursery() as nursery:
            await nursery.start(root.run)
            stuck = root.child("stuck")
            assert stuck is not None
            await stuck.tell(Hold(trio.Event()))
            start = trio.current_time()
            await root.stop(timeout=3)
            assert trio.current_time() - start <= 3
    assert "stop stuck" in journal and "stop store" in journal


async def test_stop_child_never_waits_past_the_shutdown_deadline(autojump_clock: trio.abc.Clock) -> None:
    class SlowToStop(Actor):
        async def on_stop(self) -> None:
            await trio.sleep(100)  # a stop that would use all of stop_child's own bound

        async def handle(self, msg: object) -> object:
            return None

    with use_shutdown_deadline(ShutdownDeadline()) as deadline, trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            root = RootActor([ChildSpec("slow", SlowToStop)])
            await nursery.start(root.run)
            started = trio.current_time()
            deadline.arm(started + 1)
            await root.stop_child("slow", timeout=20)
            assert trio.current_time() - started == pytest.approx(1)
            nursery.cancel_scope.cancel()
