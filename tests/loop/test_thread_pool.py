"""ThreadPool: jobs on dedicated threads, answers and cancellation back in Trio."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import pytest
import trio

from reelhouse.loop.thread_pool import PoolClosed, ThreadPool

CAP_S = 10.0


@asynccontextmanager
async def open_pool(states: list[str]) -> AsyncIterator[ThreadPool[str]]:
    pool = ThreadPool(states, name="test")
    try:
        yield pool
    finally:
        assert await pool.aclose(CAP_S)


@contextmanager
def held(gate: threading.Event) -> Iterator[threading.Event]:
    """``gate``, set on the way out so no test leaves a pool thread blocked."""
    try:
        yield gate
    finally:
        gate.set()


async def test_a_job_runs_on_a_pool_thread_with_that_threads_state() -> None:
    with trio.fail_after(CAP_S):
        async with open_pool(["only"]) as pool:
            state, thread = await pool.run(lambda s: (s, threading.current_thread().name))
    assert state == "only"
    assert thread == "test-0" and thread != threading.current_thread().name


async def test_call_runs_a_plain_function_with_its_arguments_on_a_pool_thread() -> None:
    with trio.fail_after(CAP_S):
        async with open_pool(["unused"]) as pool:
            assert await pool.call(lambda a, b: (a + b, threading.current_thread().name), 2, 3) == (5, "test-0")


async def test_what_a_job_raises_is_raised_in_the_caller() -> None:
    def fail(_state: str) -> None:
        raise KeyError("boom")

    with trio.fail_after(CAP_S):
        async with open_pool(["a"]) as pool:
            with pytest.raises(KeyError, match="boom"):
                await pool.run(fail)
            assert await pool.run(lambda s: s) == "a"  # the thread survived


async def test_every_thread_takes_jobs_from_the_one_queue() -> None:
    gate = threading.Event()
    seen: list[str] = []

    def wait_then_name(state: str) -> str:
        gate.wait(CAP_S)
        return state

    with trio.fail_after(CAP_S), held(gate):
        async with open_pool(["a", "b", "c"]) as pool:

            async def one() -> None:
                seen.append(await pool.run(wait_then_name))

            async with trio.open_nursery() as nursery:
                for _ in range(3):
                    nursery.start_soon(one)
                await trio.sleep(0.05)
                gate.set()
    assert sorted(seen) == ["a", "b", "c"]  # three blocked jobs ran at once, one per thread


async def test_an_already_cancelled_caller_raises_without_running_the_job() -> None:
    ran: list[str] = []
    with trio.fail_after(CAP_S):
        async with open_pool(["a"]) as pool:
            with trio.CancelScope() as scope:
                scope.cancel()
                await pool.run(ran.append)
            assert scope.cancelled_caught
            assert await pool.run(lambda s: s) == "a"
    assert ran == []


async def test_a_cancelled_caller_waits_for_its_running_job_then_raises_cancelled() -> None:
    gate, finished = threading.Event(), threading.Event()

    def slow(_state: str) -> None:
        gate.wait(CAP_S)
        finished.set()

    with trio.fail_after(CAP_S), held(gate):
        async with open_pool(["a"]) as pool, trio.open_nursery() as nursery:

            async def release_later() -> None:
                await trio.sleep(0.2)
                gate.set()

            nursery.start_soon(release_later)
            with trio.move_on_after(0.05) as scope:
                await pool.run(slow)
            assert scope.cancelled_caught
            assert finished.is_set()  # Cancelled came only once the job was done


async def test_an_abandoned_job_lets_its_caller_go_at_once() -> None:
    gate = threading.Event()
    with trio.fail_after(CAP_S), held(gate):
        async with open_pool(["a"]) as pool:
            with trio.move_on_after(0.05) as scope:
                await pool.run(lambda _s: gate.wait(CAP_S), abandon_on_cancel=True)
            assert scope.cancelled_caught and not gate.is_set()
            gate.set()
            assert await pool.run(lambda s: s) == "a"  # the thread went on to the next job


async def test_a_queued_job_abandoned_before_it_starts_never_runs() -> None:
    gate = threading.Event()
    ran: list[str] = []
    with trio.fail_after(CAP_S), held(gate):
        async with open_pool(["a"]) as pool:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(pool.run, lambda _s: gate.wait(CAP_S))  # occupies the one thread
                await trio.sleep(0.02)
                with trio.move_on_after(0.05):
                    await pool.run(lambda _s: ran.append("late"), abandon_on_cancel=True)
                gate.set()
            assert await pool.run(lambda s: s) == "a"
    assert ran == []


async def test_close_finishes_queued_jobs_then_refuses_new_ones() -> None:
    with trio.fail_after(CAP_S):
        pool = ThreadPool(["a", "b"], name="test")
        assert await pool.run(lambda s: s) in {"a", "b"}
        assert await pool.aclose(CAP_S)
        assert await pool.aclose(CAP_S)  # idempotent
        with pytest.raises(PoolClosed):
            await pool.run(lambda s: s)


async def test_a_job_submitted_while_the_pool_closes_is_refused_never_stranded() -> None:
    gate = threading.Event()
    with trio.fail_after(CAP_S), held(gate):
        pool = ThreadPool(["a"], name="test")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(pool.run, lambda _s: gate.wait(CAP_S))  # keeps aclose waiting
            await trio.sleep(0.02)
            nursery.start_soon(pool.aclose, CAP_S)
            await trio.sleep(0.02)
            with pytest.raises(PoolClosed):  # queued behind the stop signal it would wait forever
                await pool.run(lambda s: s)
            gate.set()


async def test_close_gives_up_on_a_stuck_thread_after_its_timeout() -> None:
    gate = threading.Event()
    with trio.fail_after(CAP_S), held(gate):
        pool = ThreadPool(["a"], name="test")
        with trio.move_on_after(0.02):
            await pool.run(lambda _s: gate.wait(CAP_S), abandon_on_cancel=True)
        assert not await pool.aclose(0.05)
        gate.set()
        assert await pool.aclose(CAP_S)


def test_a_pool_without_threads_is_refused() -> None:
    async def make() -> None:
        ThreadPool([], name="test")

    with pytest.raises(ValueError):
        trio.run(make)
