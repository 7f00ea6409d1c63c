"""VersionedMemory: answers kept while no write committed, on SQLite; none kept on PostgreSQL."""

from __future__ import annotations

import trio

from reelhouse.storage.versioned_memory import VersionedMemory

LIMIT_S = 20


class Lookups:
    """A lookup that counts its calls and answers what it is told."""

    def __init__(self, answer: str | None = "answer") -> None:
        self.answer = answer
        self.calls = 0

    async def __call__(self) -> str | None:
        self.calls += 1
        return self.answer


async def test_an_answer_is_kept_until_a_write_commits_on_sqlite_only(store) -> None:
    memory: VersionedMemory[str, str] = VersionedMemory(store, 10)
    lookup = Lookups()
    with trio.fail_after(LIMIT_S):
        await store.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY)")
        for _ in range(3):
            assert await memory.find("k", lookup) == "answer"
        assert lookup.calls == (1 if store.backend == "sqlite" else 3)
        await store.execute("INSERT INTO notes (id) VALUES (1)")
        lookup.answer = "changed"
        assert await memory.find("k", lookup) == "changed"


async def test_no_answer_is_not_kept(store) -> None:
    memory: VersionedMemory[str, str] = VersionedMemory(store, 10)
    lookup = Lookups(answer=None)
    with trio.fail_after(LIMIT_S):
        assert await memory.find("k", lookup) is None
        assert await memory.find("k", lookup) is None
    assert lookup.calls == 2


async def test_forgotten_answers_are_looked_up_again(store) -> None:
    memory: VersionedMemory[str, str] = VersionedMemory(store, 10)
    first, second = Lookups("a"), Lookups("b")
    with trio.fail_after(LIMIT_S):
        await memory.find("a", first)
        await memory.find("b", second)
        memory.forget(["a"])
        await memory.find("a", first)
        await memory.find("b", second)
        memory.forget_all()
        await memory.find("b", second)
    if store.backend == "sqlite":
        assert (first.calls, second.calls) == (2, 2)


async def test_a_lookup_that_raced_a_forget_is_not_kept(store) -> None:
    memory: VersionedMemory[str, str] = VersionedMemory(store, 10)
    calls = 0

    async def racing() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            memory.forget(["k"])  # the answer changed while it was being read
        return f"answer {calls}"

    with trio.fail_after(LIMIT_S):
        assert await memory.find("k", racing) == "answer 1"
        assert await memory.find("k", racing) == "answer 2"
        assert await memory.find("k", racing) == ("answer 2" if store.backend == "sqlite" else "answer 3")


async def test_at_most_maxsize_answers_are_kept_the_least_recently_used_leaving(store) -> None:
    memory: VersionedMemory[str, str] = VersionedMemory(store, 3)
    lookups = {key: Lookups(key) for key in "abcde"}
    with trio.fail_after(LIMIT_S):
        for key in "abcd":  # d pushes out a, the least recently used
            await memory.find(key, lookups[key])
        await memory.find("b", lookups["b"])  # b used again: c is now the least recent
        await memory.find("e", lookups["e"])  # pushes out c
        for key in "abcde":
            await memory.find(key, lookups[key])
    if store.backend == "sqlite":
        assert {key: lookup.calls for key, lookup in lookups.items()} == {"a": 2, "b": 1, "c": 2, "d": 2, "e": 2}
