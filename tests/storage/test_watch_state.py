"""Each member's watch state: marks, play reports, derived series state, resume and next up (both backends)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
import trio

from reelhouse.errors import NotFound
from reelhouse.storage import Store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import ItemPage, list_items, parse_item_query
from reelhouse.storage.members import add_user
from reelhouse.storage.parental_filter import ParentalFilter
from reelhouse.storage.watch_state import (
    ListedItems,
    WatchState,
    next_up_list,
    record_progress,
    resume_list,
    set_favorite,
    set_played,
    watch_states,
)
from tests.catalog_factory import catalog

LIMIT_S = 20


@dataclass
class Shelf:
    films: str
    shows: str
    movie: str
    other_movie: str
    series: str
    season1: str
    season2: str
    episodes: list[str]  # s1e1, s1e2, s2e1, s2e2
    special: str
    second_series: str
    second_episodes: list[str]


async def shelf(store: Store) -> Shelf:
    async with catalog(store) as cat:
        films, shows = cat.library("Films", "movies"), cat.library("Shows", "tvshows")
        movie, other = cat.movie(films, "Arrival"), cat.movie(films, "Blade Runner")
        series = cat.series(shows, "Dark")
        s1, s2 = cat.season(series, 1), cat.season(series, 2)
        episodes = [cat.episode(s1, 1), cat.episode(s1, 2), cat.episode(s2, 1), cat.episode(s2, 2)]
        specials = cat.season(series, 0, name="Specials")
        special = cat.episode(specials, 1)
        cat.extra(episodes[0], "Featurette")  # an extra never counts among the episodes
        cat.episode(s2, 3, missing=True)  # nor a missing one
        second = cat.series(shows, "Lost")
        second_s1 = cat.season(second, 1)
        second_episodes = [cat.episode(second_s1, 1), cat.episode(second_s1, 2)]
    return Shelf(films, shows, movie, other, series, s1, s2, episodes, special, second, second_episodes)


async def member(store: Store, name: str = "ana") -> str:
    return (await add_user(store, name, is_admin=False, password=None)).id


async def progress(store: Store, who: str, item: str, position_ms: int, at_ms: int, *, finished: bool = False,
                   count: bool = False) -> None:  # fmt: skip
    await record_progress(store, who, item, position_ms=position_ms, finished=finished, count_play=count, at_ms=at_ms)


async def test_an_item_never_touched_has_the_default_state(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        states = await watch_states(store, who, [s.movie, "no-such-item"])
    assert states == {s.movie: WatchState(s.movie), "no-such-item": WatchState("no-such-item")}


async def test_reports_keep_the_position_and_a_finished_one_marks_played_and_clears_it(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        await progress(store, who, s.movie, 60_000, 1_000)
        assert (await watch_states(store, who, [s.movie]))[s.movie] == WatchState(
            s.movie, last_played_ms=1_000, position_ms=60_000
        )
        await progress(store, who, s.movie, 5_400_000, 2_000, finished=True, count=True)
        await progress(store, who, s.movie, 5_500_000, 3_000, finished=True)  # the same session: no second play
        state = (await watch_states(store, who, [s.movie]))[s.movie]
    assert state == WatchState(s.movie, played=True, play_count=1, last_played_ms=3_000, position_ms=0)


async def test_marks_follow_the_reference_and_each_member_has_their_own(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        ana, bob = await member(store, "ana"), await member(store, "bob")
        await progress(store, ana, s.movie, 60_000, 1_000)
        await set_played(store, ana, s.movie, True, 2_000)
        await set_favorite(store, ana, s.movie, True)
        marked = (await watch_states(store, ana, [s.movie]))[s.movie]
        assert marked == WatchState(s.movie, played=True, play_count=1, last_played_ms=2_000, favorite=True)
        assert (await watch_states(store, bob, [s.movie]))[s.movie] == WatchState(s.movie)
        await set_played(store, ana, s.movie, False, 3_000)
        unmarked = (await watch_states(store, ana, [s.movie]))[s.movie]
    assert unmarked == WatchState(s.movie, favorite=True)


async def test_a_series_and_a_season_are_played_when_all_their_episodes_are(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        await set_played(store, who, s.season1, True, 5_000)
        states = await watch_states(store, who, [s.series, s.season1, s.season2, *s.episodes])
        assert states[s.season1].played and states[s.season1].unplayed_count == 0
        assert all(states[e].played for e in s.episodes[:2])
        assert not states[s.series].played and states[s.series].unplayed_count == 3  # s2e1, s2e2, the special
        await set_played(store, who, s.series, True, 6_000)
        after = await watch_states(store, who, [s.series, s.season2])
        assert after[s.series] == WatchState(s.series, True, 1, 6_000, 0, False, 0)
        await set_played(store, who, s.episodes[3], False, 7_000)
        again = await watch_states(store, who, [s.series, s.season2])
    assert not again[s.series].played and not again[s.season2].played and again[s.season2].unplayed_count == 1


async def test_states_read_with_their_containers_named_are_the_states_read_without(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        await set_played(store, who, s.season1, True, 5_000)
        await set_favorite(store, who, s.movie, True)
        everything = [s.movie, s.series, s.season1, s.season2, *s.episodes]
        untyped = await watch_states(store, who, everything)
        typed = await watch_states(store, who, everything, containers=[s.series, s.season1, s.season2])
        movies_only = await watch_states(store, who, [s.movie, *s.episodes], containers=[])
    assert typed == untyped and typed[s.series].unplayed_count == 3
    assert movies_only == {i: untyped[i] for i in [s.movie, *s.episodes]}


async def test_a_page_read_with_states_carries_the_members_own_rows(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who, other = await member(store), await member(store, "bo")
        await set_played(store, who, s.movie, True, 1_000)
        await set_favorite(store, who, s.other_movie, True)
        await progress(store, who, s.episodes[0], 30_000, 2_000)
        await set_favorite(store, other, s.episodes[1], True)  # another member's row: not this page's
        query = replace(parse_item_query({"recursive": ["true"], "limit": ["100"]}), member_id=who)
        codec = CursorCodec(b"watch-state-tests")
        page = await list_items(store, query, codec, with_states=True)
        plain = await list_items(store, query, codec)
        expected = await watch_states(store, who, [item.id for item in page.items])
        keyless = await list_items(store, replace(query, member_id=None), codec, with_states=True)
    assert page.items == plain.items and sorted(page.own_states) == sorted([s.movie, s.other_movie, s.episodes[0]])
    for item_id, own in page.own_states.items():
        assert WatchState(item_id, *own) == expected[item_id]
    assert keyless.own_states == {} and keyless.items == plain.items


async def test_resume_lists_items_in_progress_newest_first_in_visible_libraries_in_pages(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        await progress(store, who, s.movie, 60_000, 1_000)
        await progress(store, who, s.episodes[0], 30_000, 3_000)
        await progress(store, who, s.other_movie, 10_000, 2_000)
        await progress(store, who, s.episodes[1], 10_000, 4_000, finished=True, count=True)  # played: not in progress
        first = await resume_list(store, who, None, limit=2)
        assert [x.item_id for x in first.states] == [s.episodes[0], s.other_movie]
        second = await resume_list(store, who, None, limit=2, after=first.next_key)
        assert [x.item_id for x in second.states] == [s.movie] and second.next_key is None
        films_only = await resume_list(store, who, {s.films}, limit=10)
        assert [x.item_id for x in films_only.states] == [s.other_movie, s.movie]
        episodes = await resume_list(store, who, None, limit=10, types=["Episode"])
        assert [x.item_id for x in episodes.states] == [s.episodes[0]]
        assert (await resume_list(store, who, set(), limit=10)).states == []


async def _by_id(store: Store, item_ids: list[str], rule: ParentalFilter | None) -> ItemPage:
    """The items as a page by id reads them (what the Jellyfin lists read before they were read with the list)."""
    query = replace(parse_item_query({"ids": [",".join(item_ids)], "limit": ["100"]}), parental=rule)
    return await list_items(store, query, CursorCodec(b"watch-state-tests"), with_cursor=False, with_names=True)


@pytest.mark.parametrize("blocked", [False, True])
async def test_resume_and_next_up_read_with_their_items_read_them_as_a_page_by_id(store: Store, blocked: bool) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        await progress(store, who, s.movie, 60_000, 1_000)
        await progress(store, who, s.episodes[0], 30_000, 3_000)
        await set_played(store, who, s.episodes[1], True, 4_000)
        await set_played(store, who, s.second_episodes[0], True, 5_000)
        rule = ParentalFilter(blocked_items=(s.series,)) if blocked else None
        listed = ListedItems(rule)
        pages = [await resume_list(store, who, None, limit=1, listed=listed),
                 await next_up_list(store, who, {s.shows}, limit=2, listed=listed)]  # fmt: skip
        plain = [await resume_list(store, who, None, limit=1), await next_up_list(store, who, {s.shows}, limit=2)]
        for page, without in zip(pages, plain, strict=True):
            if page is pages[1] or not blocked:  # resume applies the rule before its page is cut: below
                assert (page.states, page.next_key) == (without.states, without.next_key)
            expected = await _by_id(store, [x.item_id for x in page.states], rule)
            assert page.items == {item.id: item for item in expected.items} and page.names == expected.names
    resumed = [x.item_id for x in pages[0].states]
    assert (resumed, pages[0].next_key is None) == (([s.movie], True) if blocked else ([s.episodes[0]], False))
    assert [x.item_id for x in pages[1].states] == [s.second_episodes[1], s.episodes[2]]
    shown = [s.movie, s.second_episodes[1]] if blocked else [s.episodes[0], s.second_episodes[1], s.episodes[2]]
    assert sorted([*pages[0].items, *pages[1].items]) == sorted(shown)


async def test_resume_narrows_to_a_parent_skips_an_offset_and_counts_the_whole_list(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        for n, item in enumerate((s.movie, s.episodes[0], s.episodes[2], s.second_episodes[0], s.other_movie)):
            await progress(store, who, item, 10_000, 1_000 * (n + 1))
        everything = await resume_list(store, who, None, limit=10, counted=True)
        order = [x.item_id for x in everything.states]
        assert order == [s.other_movie, s.second_episodes[0], s.episodes[2], s.episodes[0], s.movie]
        assert everything.total == 5 and (await resume_list(store, who, None, limit=10)).total is None
        paged = await resume_list(store, who, None, limit=2, offset=1, counted=True)
        assert ([x.item_id for x in paged.states], paged.total) == (order[1:3], 5)
        for parent, wanted in ((s.series, [s.episodes[2], s.episodes[0]]), (s.season2, [s.episodes[2]]),
                               (s.second_series, [s.second_episodes[0]])):  # fmt: skip
            page = await resume_list(store, who, None, limit=10, parent_id=parent, counted=True)
            assert ([x.item_id for x in page.states], page.total) == (wanted, len(wanted)), parent
        rule = ListedItems(ParentalFilter(blocked_items=(s.series,)))
        kept = await resume_list(store, who, None, limit=1, offset=1, counted=True, listed=rule)
        assert ([x.item_id for x in kept.states], kept.total) == ([s.second_episodes[0]], 3)


async def test_next_up_is_the_episode_after_the_furthest_played_one_series_by_latest_play(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        who = await member(store)
        assert (await next_up_list(store, who, None, limit=10)).states == []
        await set_played(store, who, s.episodes[1], True, 1_000)  # s1e2: next is s2e1 (s1e1 skipped over)
        await set_played(store, who, s.second_episodes[0], True, 2_000)
        await progress(store, who, s.second_episodes[1], 40_000, 3_000)  # in progress: still next up
        page = await next_up_list(store, who, None, limit=10)
        assert [x.item_id for x in page.states] == [s.second_episodes[1], s.episodes[2]]
        assert page.states[0].position_ms == 40_000
        one = await next_up_list(store, who, None, limit=10, series_id=s.series)
        assert [x.item_id for x in one.states] == [s.episodes[2]]
        first = await next_up_list(store, who, None, limit=1)
        rest = await next_up_list(store, who, None, limit=1, after=first.next_key)
        assert [x.item_id for x in first.states + rest.states] == [s.second_episodes[1], s.episodes[2]]
        await set_played(store, who, s.second_series, True, 4_000)  # finished: no next episode
        assert [x.item_id for x in (await next_up_list(store, who, None, limit=10)).states] == [s.episodes[2]]
        assert (await next_up_list(store, who, {s.films}, limit=10)).states == []


async def test_the_state_goes_with_the_member_and_with_the_item(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        ana, bob = await member(store, "ana"), await member(store, "bob")
        for who in (ana, bob):
            await set_favorite(store, who, s.movie, True)
            await progress(store, who, s.other_movie, 5_000, 1_000)
        await store.execute("DELETE FROM users WHERE id = ?", (ana,))
        assert await store.fetch_value("SELECT count(*) FROM watch_state WHERE user_id = ?", (ana,)) == 0
        await store.execute("DELETE FROM items WHERE id = ?", (s.movie,))
        rows = await store.fetch_all("SELECT item_id FROM watch_state ORDER BY item_id")
    assert [row["item_id"] for row in rows] == [s.other_movie]


async def test_a_write_for_an_item_that_is_gone_is_not_found(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        who = await member(store)
        for write in (
            set_played(store, who, "gone", True, 1), set_favorite(store, who, "gone", True),
            progress(store, who, "gone", 1, 1),
        ):  # fmt: skip
            with pytest.raises(NotFound):
                await write


CODEC = CursorCodec(b"watch-state-tests-secret")


async def listed(store: Store, member_id: str | None, **params: str) -> list[str]:
    """Ids of a GET /items walk (pages of 2) with ``params`` (``type`` comma-separated), read as ``member_id``."""
    args = {k: v.split(",") if k == "type" else [v] for k, v in {"recursive": "true", **params}.items()}
    query = replace(parse_item_query(args), member_id=member_id)
    ids: list[str] = []
    cursor = None
    while True:
        page = await list_items(store, replace(query, limit=2, cursor=cursor), CODEC)
        ids.extend(item.id for item in page.items)
        if page.next_cursor is None:
            return ids
        cursor = page.next_cursor


async def test_the_user_state_filters_and_sorts_read_the_members_state(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        s = await shelf(store)
        ana, bob = await member(store, "ana"), await member(store, "bob")
        await set_played(store, ana, s.other_movie, True, 2_000)  # Blade Runner
        await set_played(store, ana, s.second_series, True, 3_000)  # Lost, its episodes
        await set_favorite(store, ana, s.movie, True)  # Arrival
        await progress(store, ana, s.movie, 60_000, 1_000)
        movies = {"type": "Movie"}
        assert await listed(store, ana, isPlayed="true", type="Movie,Series") == [s.other_movie, s.second_series]
        assert await listed(store, ana, isPlayed="false", type="Movie,Series") == [s.movie, s.series]
        assert await listed(store, ana, isFavorite="true") == [s.movie]
        assert await listed(store, bob, isFavorite="true") == []
        assert await listed(store, ana, neverPlayed="true", type="Movie,Series") == [s.movie, s.series]
        assert await listed(store, ana, sort="played", **movies) == [s.other_movie, s.movie]
        assert await listed(store, ana, sort="played", order="desc", **movies) == [s.movie, s.other_movie]
        assert await listed(store, ana, sort="favorite", **movies) == [s.movie, s.other_movie]
        assert await listed(store, ana, sort="datePlayed", order="desc", type="Movie,Series") == [
            s.second_series, s.other_movie, s.movie, s.series,  # never played: last in both orders
        ]  # fmt: skip
        assert await listed(store, ana, sort="datePlayed", type="Movie,Series") == [
            s.movie, s.other_movie, s.second_series, s.series,
        ]  # fmt: skip
        assert await listed(store, ana, sort="playCount", order="desc", **movies) == [s.other_movie, s.movie]
        assert await listed(store, ana, sort="seriesDatePlayed", order="desc", type="Series,Movie") == [
            s.second_series, s.series, s.other_movie, s.movie,  # only a played series has one; ties by name, desc
        ]  # fmt: skip
        # A key has no user: nothing is played, and the user-state sorts order by name.
        assert await listed(store, None, isPlayed="true") == []
        assert await listed(store, None, sort="played", order="desc", **movies) == [s.other_movie, s.movie]
