"""Listings compare names by their key: case- and accent-insensitive, the same on both backends."""

from __future__ import annotations

import string
from importlib import resources
from typing import Any

import trio
from hypothesis import given
from hypothesis import strategies as st

from reelhouse.storage import Store, migrate, open_store
from reelhouse.storage._name_key import NAME_KEY_TABLE, name_key, postgres_name_key_function
from reelhouse.storage.cursor import CursorCodec
from reelhouse.storage.item_query import list_items, parse_item_query
from tests.catalog_factory import catalog

LIMIT_S = 30
NAME_KEY_MIGRATION = 10
CODEC = CursorCodec(b"name-key-tests-secret")
# In key order: arger, emile, eve, olfass, stras, strasse, zorro, ангел, апрель.
NAMES = ["ärger", "Émile", "Eve", "Ölfass", "Stras", "Straße", "Zorro", "Ангел", "апрель"]


def test_the_key_folds_case_and_accents_and_keeps_punctuation() -> None:
    assert name_key("L'École -- des FEMMES!") == "l'ecole -- des femmes!"
    assert name_key("Straße Ærø ŁÓDŹ") == "strasse aero lodz"
    assert name_key("Ёлки") == "елки"
    assert name_key("E\u0301mile") == "emile"  # decomposed, as macOS writes names


@given(st.text(alphabet=st.sampled_from(string.printable[:95])))
def test_the_key_of_printable_ascii_is_its_lower_case(text: str) -> None:
    assert name_key(text) == text.lower()


def test_the_shipped_postgresql_migration_holds_the_key_function_of_this_module() -> None:
    folder = resources.files("reelhouse.storage") / "migrations"
    postgres = (folder / "0010_items_name_key.postgresql.sql").read_text(encoding="utf-8")
    assert postgres_name_key_function() in postgres


async def _names(store: Store, ids: dict[str, str], **params: Any) -> list[str]:
    query = parse_item_query({k: [v] for k, v in params.items()})
    by_id = {v: k for k, v in ids.items()}
    return [by_id[item.id] for item in (await list_items(store, query, CODEC)).items]


async def _walk(store: Store, ids: dict[str, str], limit: int, **params: Any) -> list[str]:
    by_id = {v: k for k, v in ids.items()}
    seen: list[str] = []
    cursor: str | None = None
    while True:
        extra = {"cursor": [cursor]} if cursor else {}
        query = parse_item_query({"limit": [str(limit)], **extra, **{k: [v] for k, v in params.items()}})
        page = await list_items(store, query, CODEC)
        seen += [by_id[item.id] for item in page.items]
        if page.next_cursor is None:
            return seen
        cursor = page.next_cursor


async def test_names_sort_case_and_accent_insensitively_on_both_backends(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        async with catalog(store) as cat:
            library = cat.library("Films", "movies")
            ids = {name: cat.movie(library, name) for name in reversed(NAMES)}
        assert await _names(store, ids) == NAMES
        assert await _names(store, ids, order="desc") == NAMES[::-1]
        assert await _walk(store, ids, 2) == NAMES
        assert await _walk(store, ids, 2, order="desc") == NAMES[::-1]


async def test_name_filters_compare_keys(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        async with catalog(store) as cat:
            library = cat.library("Films", "movies")
            ids = {name: cat.movie(library, name) for name in NAMES}
        assert await _names(store, ids, initial="E") == ["Émile", "Eve"]
        assert await _names(store, ids, initial="a") == ["ärger"]
        assert await _names(store, ids, initial="#") == ["Ангел", "апрель"]
        assert await _names(store, ids, nameStartsWith="ÉM") == ["Émile"]
        assert await _names(store, ids, nameStartsWith="em") == ["Émile"]
        assert await _names(store, ids, nameStartsWith="STRASS") == ["Straße"]
        assert await _names(store, ids, nameStartsWith="АН") == ["Ангел"]
        assert await _names(store, ids, nameFrom="É", nameBefore="p") == ["Émile", "Eve", "Ölfass"]


async def test_items_written_before_the_migration_get_their_keys(database_url: str) -> None:
    # Every character the key changes, in names of a few characters each.
    changed = "".join(sorted(NAME_KEY_TABLE))
    sort_names = [changed[i : i + 7] for i in range(0, len(changed), 7)] + ["Plain ASCII", "Émile"]
    with trio.fail_after(LIMIT_S):
        async with open_store(database_url) as store:
            await migrate(store, up_to=NAME_KEY_MIGRATION - 1)
            async with catalog(store) as cat:
                library = cat.library("Films", "movies")
            for number, sort_name in enumerate(sort_names):  # raw rows: no name_key column yet
                await store.execute(
                    "INSERT INTO items (id, library_id, type, name, sort_name, date_created, date_modified)"
                    " VALUES (?, ?, 'Movie', ?, ?, 1, 1)",
                    (f"old{number}", library, sort_name, sort_name),
                )
            await migrate(store)
            rows = await store.fetch_all("SELECT sort_name, name_key FROM items")
    assert {row["sort_name"]: row["name_key"] for row in rows} == {s: name_key(s) for s in sort_names}


async def test_q_matches_names_and_original_titles_case_and_accent_insensitively(store: Store) -> None:
    with trio.fail_after(LIMIT_S):
        async with catalog(store) as cat:
            library = cat.library("Films", "movies")
            ids = {name: cat.movie(library, name) for name in NAMES}
            ids["Amélie"] = cat.movie(library, "Amélie", original_title="Le Fabuleux Destin d'Amélie Poulain")
            ids["Spider-Man"] = cat.movie(library, "Spider-Man")
        assert await _names(store, ids, q="EMIL") == ["Émile"]
        assert await _names(store, ids, q="émile") == ["Émile"]
        assert await _names(store, ids, q="strasse") == ["Straße"]
        assert await _names(store, ids, q="ГЕЛ") == ["Ангел"]
        assert await _names(store, ids, q="destin d'amelie") == ["Amélie"]
        assert await _names(store, ids, q="r-m") == ["Spider-Man"]
        assert await _names(store, ids, q="100%") == []
