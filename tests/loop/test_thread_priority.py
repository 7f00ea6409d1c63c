"""Background threads' nice values: set per thread, at their start, on Linux."""

from __future__ import annotations

import os
import sys
import threading

import pytest
import trio

from reelhouse.loop.thread_pool import ThreadPool
from reelhouse.loop.thread_priority import MAX_NICENESS, lower_current_thread

from ..thread_niceness import thread_niceness

CAP_S = 10.0

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="nice values are per thread on Linux")


def process_niceness() -> int:
    return thread_niceness(threading.main_thread().native_id or os.getpid())


@linux_only
async def test_a_pool_with_a_niceness_runs_its_jobs_on_threads_niced_from_their_start() -> None:
    base = process_niceness()
    pool: ThreadPool[None] = ThreadPool([None, None], name="test-niced", niceness=3)
    try:
        with trio.fail_after(CAP_S):
            seen = await pool.run(lambda _s: thread_niceness(threading.get_native_id()))
    finally:
        assert await pool.aclose(CAP_S)
    assert seen == min(MAX_NICENESS, base + 3)
    assert process_niceness() == base  # the loop's thread keeps its priority


@linux_only
async def test_a_pool_without_one_keeps_the_process_priority() -> None:
    pool: ThreadPool[None] = ThreadPool([None], name="test-plain")
    try:
        with trio.fail_after(CAP_S):
            seen = await pool.run(lambda _s: thread_niceness(threading.get_native_id()))
    finally:
        assert await pool.aclose(CAP_S)
    assert seen == process_niceness()


@linux_only
def test_the_nice_value_is_capped_at_the_lowest_priority() -> None:
    result: list[tuple[bool, int]] = []

    def lowered() -> None:
        result.append((lower_current_thread(MAX_NICENESS + 10), thread_niceness(threading.get_native_id())))

    thread = threading.Thread(target=lowered)
    thread.start()
    thread.join(CAP_S)
    assert result == [(True, MAX_NICENESS)]


def test_no_niceness_changes_nothing() -> None:
    assert lower_current_thread(0) is False
