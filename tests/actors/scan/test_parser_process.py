"""Big scans parse in a child process: same catalogue, and the child never outlives its scan."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import replace

import pytest
import trio

import reelhouse.actors.scan.parser_process as parser_process
from reelhouse.actors.scan.parser_process import ParserProcessError, ParserSetup, open_parser
from reelhouse.actors.scan.walk import Walker, WalkStart
from reelhouse.media.assembly import ScanRules
from reelhouse.media.library_options import LibraryOptions
from reelhouse.storage.catalog import ScanIndex
from reelhouse.storage.confined_files import confinement_for

from .conftest import LIBRARY_ID, Library, Tree

LIMIT_S = 30
NFO = "<movie><title>Arrival</title><year>2016</year><genre>Drama</genre><actor><name>Amy Adams</name></actor></movie>"


def _fill(tree: Tree) -> None:
    tree.add("Arrival (2016)/Arrival (2016).mkv")
    tree.add("Arrival (2016)/movie.nfo", NFO)
    tree.add("Arrival (2016)/extras/Interview-interview.mkv")
    tree.add("Show (2001)/Season 01/Show - S01E01.mkv")
    tree.add("Show (2001)/Season 01/Show - S01E02.mkv")
    tree.add("Loose.Movie.2010.1080p.mkv")


def _setup(tree: Tree) -> ParserSetup:
    rules = ScanRules.from_options(LIBRARY_ID, "mixed", LibraryOptions(media_info_timing="playback"))
    return ParserSetup(rules, ScanIndex(), rewrite=False, probe_changed=False, within=confinement_for([tree.path()], None))


def _visits(tree: Tree) -> list:
    walker = Walker((WalkStart(tree.path()),), quick=False, stored_mtimes={}, stored_children={}, expand=frozenset())
    return walker.step(max_dirs=1000, max_seconds=10).visits


def _in_child(setup: ParserSetup) -> AbstractAsyncContextManager[parser_process.ScanParser]:
    """The parser of a big scan that finds a process slot free: in a child."""
    return open_parser(setup, listed_files=10**6, thread_limiter=trio.CapacityLimiter(1), process_slots=trio.CapacityLimiter(1))


@pytest.fixture
def every_scan_is_big(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parser_process, "PROCESS_MIN_FILES", 1)


async def _catalogue(library: Library) -> list[tuple[object, ...]]:
    rows = await library.store.fetch_all(
        "SELECT id, type, name, parent_id, series_id, season_id, owner_id, extra_type, path FROM items ORDER BY id"
    )
    return [tuple(row) for row in rows]


async def test_a_scan_parsed_in_a_child_writes_what_a_thread_would(
    tree: Tree, library: Library, every_scan_is_big: None
) -> None:
    _fill(tree)
    await library.scan()
    in_thread = await _catalogue(library)
    await library.store.execute("DELETE FROM items")
    await library.store.execute("DELETE FROM scan_dirs")
    library.deps = replace(library.deps, parse_processes=trio.CapacityLimiter(1))
    outcome = await library.scan()
    assert await _catalogue(library) == in_thread
    assert outcome.added == len(in_thread) and outcome.errors == 0
    assert library.deps.parse_processes.available_tokens == 1  # the slot was given back


async def test_a_rescan_in_a_child_sees_unchanged_items_and_marks_removed_ones_missing(
    tree: Tree, library: Library, every_scan_is_big: None
) -> None:
    _fill(tree)
    library.deps = replace(library.deps, parse_processes=trio.CapacityLimiter(1))
    await library.scan()
    tree.remove("Loose.Movie.2010.1080p.mkv")
    outcome = await library.scan()
    assert (outcome.added, outcome.changed, outcome.missing) == (0, 0, 1)


async def test_small_scans_and_scans_without_a_free_slot_parse_in_a_thread(tree: Tree) -> None:
    _fill(tree)
    slots = trio.CapacityLimiter(1)
    with trio.fail_after(LIMIT_S):
        async with open_parser(_setup(tree), listed_files=5, thread_limiter=trio.CapacityLimiter(1), process_slots=slots) as parser:
            assert not isinstance(parser, parser_process._ProcessParser)
        async with slots:
            async with open_parser(_setup(tree), listed_files=10**6, thread_limiter=trio.CapacityLimiter(1), process_slots=slots) as parser:
                assert not isinstance(parser, parser_process._ProcessParser)
                assert (await parser.parse(_visits(tree))).added == 7


async def _parse(parser: parser_process.ScanParser, tree: Tree) -> None:
    await parser.parse(_visits(tree))


async def _parse_everything(parser: parser_process.ScanParser, tree: Tree) -> None:
    send, _receive = trio.open_memory_channel[parser_process.ParsedRows](10)
    await parser.parse_all(_one_dir_chunks(tree), send)


@pytest.mark.parametrize("call", [_parse, _parse_everything], ids=["parse", "parse_all"])
async def test_a_child_that_dies_fails_the_call_with_a_clear_error(
    tree: Tree, call: Callable[[parser_process.ScanParser, Tree], Awaitable[None]]
) -> None:
    _fill(tree)
    with trio.fail_after(LIMIT_S):
        async with _in_child(_setup(tree)) as parser:
            assert isinstance(parser, parser_process._ProcessParser)
            parser._process.kill()
            with pytest.raises(ParserProcessError, match="died"):
                await call(parser, tree)


async def test_cancelling_the_scan_kills_the_child(tree: Tree) -> None:
    _fill(tree)
    with trio.fail_after(LIMIT_S):
        with trio.CancelScope() as scope:
            async with _in_child(_setup(tree)) as parser:
                process = parser._process  # type: ignore[attr-defined]
                scope.cancel()
                await parser.parse(_visits(tree))
        assert process.returncode is not None


async def test_an_error_in_the_child_is_raised_again_in_the_server(tree: Tree) -> None:
    broken = replace(_setup(tree), rules=None)  # type: ignore[arg-type]
    with trio.fail_after(LIMIT_S), pytest.raises(AttributeError):
        async with _in_child(broken):
            pass


async def test_a_finished_child_exits_by_itself(tree: Tree) -> None:
    _fill(tree)
    with trio.fail_after(LIMIT_S):
        async with _in_child(_setup(tree)) as parser:
            rows = await parser.parse(_visits(tree))
            final = await parser.finish()
            seen = await parser.seen_ids()
            process = parser._process  # type: ignore[attr-defined]
        assert rows.added + final.added == len(seen) == 7  # the series and its season are items too
        assert process.returncode == 0


def _one_dir_chunks(tree: Tree) -> list[list]:
    return [[visit] for visit in _visits(tree)]


async def _parse_all(parser: parser_process.ScanParser, chunks: list[list]) -> list[parser_process.ParsedRows]:
    """Every answer of parse_all, read one at a time through an unbuffered channel."""
    send, receive = trio.open_memory_channel[parser_process.ParsedRows](0)
    answers: list[parser_process.ParsedRows] = []
    async with trio.open_nursery() as nursery:
        async def read() -> None:
            async for rows in receive:
                answers.append(rows)
                await trio.sleep(0.01)  # a slow writer: answers still come whole and in order
        nursery.start_soon(read)
        async with send:
            await parser.parse_all(chunks, send)
    return answers


async def test_parse_all_in_a_child_answers_each_chunk_in_order_like_a_thread(tree: Tree) -> None:
    _fill(tree)
    chunks = _one_dir_chunks(tree)
    with trio.fail_after(LIMIT_S):
        async with _in_child(_setup(tree)) as parser:
            assert isinstance(parser, parser_process._ProcessParser)
            in_child = await _parse_all(parser, chunks)
        async with open_parser(_setup(tree), listed_files=5, thread_limiter=trio.CapacityLimiter(1), process_slots=None) as parser:
            in_thread = await _parse_all(parser, chunks)
    assert len(in_child) == len(chunks) + 1  # and finish's
    assert [(r.current_dir, r.added, r.processed) for r in in_child] == [(r.current_dir, r.added, r.processed) for r in in_thread]
    assert sum(r.added for r in in_child) == 7



async def test_the_child_parses_at_a_lower_priority_than_the_server(tree: Tree) -> None:
    # Two big scans' parsers beside the server on 2 cores took the CPU its
    # event loop needed: requests waited. The child's nice value is higher.
    _fill(tree)
    with trio.fail_after(LIMIT_S):
        async with _in_child(_setup(tree)) as parser:
            assert isinstance(parser, parser_process._ProcessParser)
            await parser.parse(_visits(tree))  # answered: the child has set its priority
            child = os.getpriority(os.PRIO_PROCESS, parser._process.pid)
    assert child == min(os.getpriority(os.PRIO_PROCESS, 0) + parser_process.CHILD_NICENESS, 19)

