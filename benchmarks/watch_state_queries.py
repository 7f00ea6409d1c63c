"""A member's watch state over a 20,000-item catalogue: the reads a player's home screen makes.

Fills a fresh SQLite database (and a PostgreSQL schema when the server at
PG_URL answers) with ``--items`` items (``_catalog_rows.fill_catalog``), a
member who has played the first episodes of a few hundred series, has
movies in progress and favourites, then reads, in one run, in-process
(the store, no HTTP):

- ``name_page``: the first GET /items page (40, name order, recursive), the
  baseline;
- ``sort_<s>``: the first page sorted by each user-state sort for the member;
- ``is_played`` / ``is_favorite``: the first page filtered on them;
- ``resume`` and ``next_up``: the first page of each (40);
- ``states_100``: ``watch_states`` of 100 items (a page's user data).

Each figure is the median of ``--rounds`` reads in milliseconds, and as a
ratio to ``name_page`` measured in the same run. Prints JSON; exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

from _catalog_rows import fill_catalog, write_posters
from reelhouse.storage import Statement, Store, migrate, open_store
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import list_items, parse_item_query
from reelhouse.storage.members import add_user
from reelhouse.storage.watch_state import next_up_list, resume_list, watch_states

PG_URL = "postgresql://root@127.0.0.1:5432/test"
CODEC = CursorCodec(b"watch-state-benchmark-secret")
SORTS = ("played", "favorite", "datePlayed", "playCount", "seriesDatePlayed")
SERIES_WATCHED = 300
EPISODES_WATCHED = 3
IN_PROGRESS = 200
FAVOURITES = 200


async def _member_state(store: Store) -> str:
    """A member with SERIES_WATCHED series started, IN_PROGRESS movies in progress, FAVOURITES favourites."""
    member = (await add_user(store, f"bench-{uuid.uuid4().hex[:8]}", is_admin=False, password=None)).id
    series = [r["id"] for r in await store.fetch_all("SELECT id FROM items WHERE type = 'Series' ORDER BY id")]
    played: list[str] = []
    for series_id in series[:SERIES_WATCHED]:
        rows = await store.fetch_all(
            "SELECT id FROM items WHERE series_id = ? AND type = 'Episode' AND owner_id IS NULL"
            " ORDER BY parent_index_number, index_number LIMIT ?", (series_id, EPISODES_WATCHED))  # fmt: skip
        played.extend(r["id"] for r in rows)
    movies = [r["id"] for r in await store.fetch_all(
        "SELECT id FROM items WHERE type = 'Movie' AND version_of IS NULL ORDER BY id LIMIT ?",
        (IN_PROGRESS + FAVOURITES,))]  # fmt: skip
    insert = "INSERT INTO watch_state (user_id, item_id, played, play_count, last_played_at, position_ms, favorite)"
    rows = [(member, item, 1, 1, 1_700_000_000_000 + n, 0, 0) for n, item in enumerate(played)]
    rows += [(member, item, 0, 0, 1_700_100_000_000 + n, 60_000, 0) for n, item in enumerate(movies[:IN_PROGRESS])]
    rows += [(member, item, 0, 0, None, 0, 1) for item in movies[IN_PROGRESS:]]
    await store.transaction([Statement(f"{insert} VALUES (?, ?, ?, ?, ?, ?, ?)", many=rows)])
    return member


async def _median_ms(read: Callable[[], Awaitable[Any]], rounds: int) -> float:
    await read()  # warm the caches and the statement cache
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await read()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


async def _measure(store: Store, member: str, rounds: int) -> dict[str, Any]:
    def page(**params: str) -> Callable[[], Awaitable[Any]]:
        query = replace(parse_item_query({k: [v] for k, v in {"recursive": "true", **params}.items()}),
                        member_id=member)  # fmt: skip
        return lambda: list_items(store, query, CODEC)

    ids = [r["id"] for r in await store.fetch_all("SELECT id FROM items ORDER BY id LIMIT 100")]
    reads: dict[str, Callable[[], Awaitable[Any]]] = {"name_page": page()}
    reads.update({f"sort_{sort}": page(sort=sort, order="desc") for sort in SORTS})
    reads["is_played"] = page(isPlayed="true")
    reads["is_favorite"] = page(isFavorite="true")
    reads["resume"] = lambda: resume_list(store, member, None, limit=40)
    reads["next_up"] = lambda: next_up_list(store, member, None, limit=40)
    reads["states_100"] = lambda: watch_states(store, member, ids)
    figures: dict[str, float] = {}
    for name, read in reads.items():
        figures[name] = await _median_ms(read, rounds)
        print(f"{store.backend} {name}: {figures[name]} ms", file=sys.stderr, flush=True)
    base = figures["name_page"] or 0.01
    return {"ms": figures, "ratio_to_name_page": {k: round(v / base, 2) for k, v in figures.items()}}


async def _run_backend(url: str, items: int, rounds: int, work: Path) -> dict[str, Any]:
    async with open_store(url) as store:
        await migrate(store)
        await fill_catalog(store, items, work / "media", write_posters(work / "posters"))
        print(f"{store.backend}: {items} items written", file=sys.stderr, flush=True)
        member = await _member_state(store)
        if store.backend == "postgresql":
            await store.fetch_all("VACUUM (ANALYZE) items, watch_state")
        return await _measure(store, member, rounds)


async def main(items: int, rounds: int) -> dict[str, Any]:
    results: dict[str, Any] = {"items": items, "rounds": rounds}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        results["sqlite"] = await _run_backend(f"sqlite:///{work / 'bench.db'}", items, rounds, work)
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        try:
            results["postgresql"] = await _run_backend(f"{PG_URL}?schema={schema}", items, rounds, work)
        except Exception as exc:  # any failure: PostgreSQL is skipped, and said why
            results["postgresql"] = {"skipped": f"{type(exc).__name__}: {exc}"}
        finally:
            try:
                async with open_store(PG_URL) as store:
                    await store.fetch_all(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            except Exception:
                pass
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(json.dumps(trio.run(main, args.items, args.rounds), indent=2))
