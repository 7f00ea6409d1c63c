"""items.facets and items.primary_image stay exact through every writer (both backends).

The genre, studio, tag and poster filters read two columns of ``items``
(migration 0027) instead of ``item_values`` and ``images``; triggers keep
them in step with those tables whoever writes them.  Each test writes
through one real path (the scanner's batch, an NFO edited and rescanned, a
provider match, a collection's poster, a tool's own SQL), then checks every
item's columns against the rows they summarize, and that the filters find
what ``item_values`` and ``images`` say.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import trio

from reelhouse.media.assembly import ImageRecord
from reelhouse.media.nfo import NfoData
from reelhouse.media.provider_fields import FieldPlan
from reelhouse.storage import Statement, Store, migrate, open_store
from reelhouse.storage._migrations import load_migrations
from reelhouse.storage.catalog import write_batch
from reelhouse.storage.collections import BoxSetRow, save_collection_name
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import list_items, parse_item_query
from reelhouse.storage.provider_apply import ScrapeMark, apply_statements, load_targets

from .test_catalog import LIB, ROOT, library, records

LIMIT_S = 20
SEPARATOR = "\x1f"
CODEC = CursorCodec(b"item-facets-tests-secret")
NFO = NfoData(kind="movie", title="A", genres=("Drama", "Sci-Fi", "DRAMA"), studios=("Blue Films",), tags=("heist", "100%", "Épique"))
MARK = ScrapeMark("tmdb", "1", "matched", 5000)
VALUE_INSERT = "INSERT INTO item_values (item_id, kind, value, position) VALUES (?, ?, ?, ?)"


def poster(kind: str = "primary", name: str = "poster") -> ImageRecord:
    return ImageRecord(f"{ROOT}/A (2001)-{name}.jpg", kind, 0, f"tag-{name}", 2, 3, 10, 7)


async def assert_exact(store: Store) -> None:
    """Every item's facets and primary_image say what item_values and images hold."""
    items = await store.fetch_all("SELECT id, facets, primary_image FROM items")
    values = await store.fetch_all(
        "SELECT item_id, substr(kind, 1, 1) || lower(value) AS piece FROM item_values"
        " WHERE kind IN ('genre', 'studio', 'tag')"
    )
    posters = {row[0] for row in await store.fetch_all("SELECT item_id FROM images WHERE kind = 'primary'")}
    assert items
    for item in items:
        # A value holding the separator is left out (its filter reads item_values).
        pieces = {row["piece"] for row in values if row["item_id"] == item["id"] and SEPARATOR not in row["piece"]}
        stored = item["facets"].strip(SEPARATOR)
        assert (set(stored.split(SEPARATOR)) if stored else set()) == pieces, item  # presence counts, not how often
        assert item["primary_image"] == (1 if item["id"] in posters else 0), item


async def listed(store: Store, **filters: str) -> list[str]:
    """The ids of the library's first page under ``filters``."""
    params: dict[str, Any] = {"libraryId": [LIB], **{name: [value] for name, value in filters.items()}}
    page = await list_items(store, parse_item_query(params), CODEC)
    return [item.id for item in page.items]


async def listed_by_values(store: Store, kind: str, name: str) -> list[str]:
    """The library's items with value ``name`` of ``kind`` as item_values compares it (lower() both sides)."""
    rows = await store.fetch_all(
        "SELECT DISTINCT item_id FROM item_values WHERE kind = ? AND lower(value) = lower(CAST(? AS TEXT))", (kind, name)
    )
    return [row[0] for row in rows]


async def scanned(store: Store, meta: NfoData | None = NFO, images: tuple[ImageRecord, ...] = (poster(),)) -> str:
    await library(store)
    (record,) = records("A (2001).mkv", meta=meta)
    await write_batch(store, LIB, [replace(record, images=images)], now_ms=1000)
    return record.draft.id


async def rescanned(store: Store, meta: NfoData | None, images: tuple[ImageRecord, ...]) -> None:
    (record,) = records("A (2001).mkv", meta=meta, new=False)
    await write_batch(store, LIB, [replace(record, images=images)], now_ms=2000)


async def test_a_first_scan_records_the_values_and_the_poster(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        movie = await scanned(store)
        await assert_exact(store)
        assert await listed(store, genreId="drama") == [movie]
        assert await listed(store, studioId="BLUE FILMS") == [movie]
        assert await listed(store, tagId="100%") == [movie]
        assert await listed(store, tagId="100") == []  # a whole value, never a part of one
        assert await listed(store, genreId="Sci") == []
        assert await listed(store, tagId="Épique") == await listed_by_values(store, "tag", "Épique") == [movie]
        assert await listed(store, tagId="épique") == await listed_by_values(store, "tag", "épique")  # lower() decides
        assert await listed(store, attention="noPoster") == []
        assert await listed(store, hasPrimaryImage="true") == [movie]


async def test_an_nfo_edited_and_rescanned_replaces_the_values_and_a_removed_poster_is_gone(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        movie = await scanned(store)
        await rescanned(store, NfoData(kind="movie", title="A", genres=("Comedy",)), (poster("backdrop", "fanart"),))
        await assert_exact(store)
        assert await listed(store, genreId="Drama") == []
        assert await listed(store, genreId="Comedy") == [movie]
        assert await listed(store, studioId="Blue Films") == []
        assert await listed(store, attention="noPoster") == [movie]
        await rescanned(store, None, (poster(),))  # no NFO this time: the values stay, the poster is back
        await assert_exact(store)
        assert await listed(store, genreId="comedy") == [movie]
        assert await listed(store, attention="noPoster") == []


async def test_a_provider_match_replaces_values_and_adds_or_drops_posters(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        movie = await scanned(store, meta=None, images=())
        assert await listed(store, attention="noPoster") == [movie]
        (target,) = await load_targets(store, movie)
        plan = FieldPlan(values={"genre": ("Horror", "Drama"), "tag": ("Slasher",)})
        await store.transaction(apply_statements(target, plan, MARK, images=[poster(name="provider")]))
        await assert_exact(store)
        assert await listed(store, genreId="horror") == [movie]
        assert await listed(store, tagId="slasher") == [movie]
        assert await listed(store, attention="noPoster") == []
        (target,) = await load_targets(store, movie)
        plan = FieldPlan(values={"genre": ("Western",)})
        await store.transaction(apply_statements(target, plan, MARK, dropped_images=[("primary", 0)]))
        await assert_exact(store)
        assert await listed(store, genreId="horror") == []
        assert await listed(store, genreId="western") == [movie]
        assert await listed(store, tagId="slasher") == [movie]  # a kind the match did not name is kept
        assert await listed(store, attention="noPoster") == [movie]


async def test_a_collections_poster_and_a_tools_own_writes_keep_the_columns(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        movie = await scanned(store, meta=None, images=())
        await store.execute(
            "INSERT INTO items (id, library_id, type, name, sort_name, name_key, date_created, date_modified)"
            " VALUES ('box', ?, 'BoxSet', 'Box', 'Box', 'box', 0, 0)", (LIB,))  # fmt: skip
        box = BoxSetRow("box", LIB, "Box", "tmdb", "9", locked_name=False)
        await save_collection_name(store, box, "Box", None, 3000, image=("/data/box.jpg", "t", 1, 1, 1, 1))
        await assert_exact(store)
        rows = [(movie, "genre", "Noir", 0), (movie, "country", "France", 1), (movie, "genre", "A\x1fB", 2)]
        await store.transaction([Statement(VALUE_INSERT, many=rows)])  # one bulk statement
        await store.execute("UPDATE item_values SET value = 'Neo-Noir' WHERE item_id = ? AND value = 'Noir'", (movie,))
        await assert_exact(store)
        assert await listed(store, genreId="neo-noir") == [movie]
        assert await listed(store, genreId="A\x1fB") == [movie]  # a name holding the separator: item_values
        await store.execute("DELETE FROM item_values WHERE item_id = ? AND kind = 'genre'", (movie,))
        await store.execute("UPDATE images SET kind = 'backdrop' WHERE item_id = 'box'")
        await assert_exact(store)
        assert await listed(store, genreId="neo-noir") == []
        assert await store.fetch_value("SELECT primary_image FROM items WHERE id = 'box'") == 0


async def test_the_migration_fills_both_columns_for_items_already_stored(database_url: str) -> None:
    facets_version = next(m.version for m in load_migrations() if m.name == "item_facets")
    with trio.fail_after(LIMIT_S):
        async with open_store(database_url) as store:
            await migrate(store, up_to=facets_version - 1)
            await library(store)
            for item in ("a", "b"):
                await store.execute(
                    "INSERT INTO items (id, library_id, type, name, sort_name, name_key, date_created, date_modified)"
                    " VALUES (?, ?, 'Movie', ?, ?, ?, 0, 0)", (item, LIB, item, item, item))  # fmt: skip
            rows = [("a", "genre", "Drama", 0), ("a", "studio", "Blue Films", 1), ("a", "country", "France", 2)]
            await store.transaction([Statement(VALUE_INSERT, many=rows)])
            await store.execute(
                "INSERT INTO images (item_id, kind, idx, path, tag, width, height, size, mtime, source)"
                " VALUES ('b', 'primary', 0, '/m/b.jpg', 't', 1, 1, 1, 1, 'local')")  # fmt: skip
            await migrate(store)
            await assert_exact(store)
            assert await listed(store, genreId="drama") == ["a"]
            assert await listed(store, attention="noPoster") == ["a"]
