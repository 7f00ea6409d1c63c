"""Search over names on both backends: ranking, folding, scope, limits, upkeep."""

from __future__ import annotations

import itertools
import unicodedata
from importlib import resources

import pytest
import trio

from reelhouse.storage import Statement, Store, migrate, open_store
from reelhouse.storage import search as search_module
from reelhouse.storage._migrations import load_migrations, render
from reelhouse.storage._search_fold import FOLD_TABLE, fold, postgres_fold_function, search_key, sqlite_fold_steps
from reelhouse.storage.search import search

LIMIT_S = 20
SEARCH_MIGRATION = 3
_ids = itertools.count()


async def add_library(store: Store, library_id: str = "lib") -> None:
    await store.execute(
        "INSERT INTO libraries (id, name, collection_type, created_at, updated_at) VALUES (?, ?, 'movies', 1, 1)",
        (library_id, library_id),
    )


async def add_item(
    store: Store,
    name: str,
    *,
    item_id: str | None = None,
    sort_name: str | None = None,
    original_title: str | None = None,
    item_type: str = "Movie",
    missing: int = 0,
    owner_id: str | None = None,
    extra_type: str | None = None,
) -> str:
    item_id = item_id or f"i{next(_ids):04d}"
    await store.execute(
        "INSERT INTO items (id, library_id, type, name, sort_name, original_title, missing, owner_id,"
        " extra_type, production_year, date_created, date_modified) VALUES (?, 'lib', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (item_id, item_type, name, sort_name or name, original_title, missing, owner_id, extra_type,
         2001, 1_700_000_000_000, 1),
    )
    return item_id


async def add_person(store: Store, name: str, *, person_id: str | None = None, image_tag: str | None = None) -> str:
    person_id = person_id or f"p{next(_ids):04d}"
    await store.execute(
        "INSERT INTO people (id, name, sort_name, image_tag, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 1)",
        (person_id, name, name, image_tag),
    )
    return person_id


async def names(store: Store, q: str, limit: int = 20) -> list[str]:
    with trio.fail_after(LIMIT_S):
        return [hit.name for hit in (await search(store, q, limit)).items]


@pytest.fixture
async def catalogue(store: Store) -> Store:
    await add_library(store)
    return store


# -- ranking ---------------------------------------------------------------------


async def test_exact_then_prefix_then_word_prefix_then_inside(catalogue: Store) -> None:
    for name in ("Midnight Run", "The Night", "Nightcrawler", "Night", "A Night Out", "Knights"):
        await add_item(catalogue, name)
    assert await names(catalogue, "night") == [
        "Night",  # exact
        "Nightcrawler",  # prefix
        "A Night Out", "The Night",  # a word starts with it (by sort name)
        "Knights", "Midnight Run",  # inside a word
    ]


async def test_ties_break_by_folded_sort_name_then_id(catalogue: Store) -> None:
    await add_item(catalogue, "Star B", item_id="b2", sort_name="star")
    await add_item(catalogue, "Star A", item_id="b1", sort_name="Star")
    await add_item(catalogue, "Star C", item_id="a9", sort_name="Apple")
    hits = await search(catalogue, "star", 10)
    assert [hit.id for hit in hits.items] == ["a9", "b1", "b2"]


async def test_an_item_ranks_by_the_better_of_name_and_original_title(catalogue: Store) -> None:
    await add_item(catalogue, "Le Fabuleux Destin", original_title="Amélie")
    await add_item(catalogue, "Amélie et les autres")
    assert await names(catalogue, "amelie") == ["Le Fabuleux Destin", "Amélie et les autres"]


async def test_original_title_alone_finds_an_item(catalogue: Store) -> None:
    await add_item(catalogue, "Spirited Away", original_title="Sen to Chihiro no Kamikakushi")
    assert await names(catalogue, "chihiro") == ["Spirited Away"]


async def test_a_query_under_three_characters_matches_prefixes_only(catalogue: Store) -> None:
    for name in ("Up", "Upgrade", "Soup", "Pick Up"):
        await add_item(catalogue, name)
    assert await names(catalogue, "up") == ["Up", "Upgrade"]


async def test_several_words_match_as_one_phrase(catalogue: Store) -> None:
    for name in ("Dark Star", "Star Dark", "The Dark Star Rises"):
        await add_item(catalogue, name)
    assert await names(catalogue, "dark star") == ["Dark Star", "The Dark Star Rises"]


# -- folding ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "query"),
    [
        ("Amélie", "amelie"),
        ("école", "ÉCOLE"),
        ("Ecole", "école"),
        ("e\u0301cole du soir", "ecole"),  # decomposed accent (NFD file names)
        ("Straße", "strasse"),
        ("Ærø", "aero"),
        ("Москва", "МОСКВА"),
        ("Spider-Man: Homecoming", "spider man homecoming"),
        ("Mr. Robot", "mr robot"),
        ("Phở Việt", "pho viet"),
    ],
)
async def test_case_accents_and_punctuation_do_not_matter(catalogue: Store, stored: str, query: str) -> None:
    await add_item(catalogue, stored)
    assert await names(catalogue, query) == [stored]


async def test_very_long_names_are_stored_cut_and_found_by_their_start(catalogue: Store) -> None:
    long_name = "Long " + "Ж" * 3000
    await add_item(catalogue, long_name, original_title="\U0001f600" * 3000, sort_name="ж" * 3000)
    assert await names(catalogue, "long жжж") == [long_name]


async def test_a_query_of_only_punctuation_matches_nothing(catalogue: Store) -> None:
    await add_item(catalogue, "!!!")
    assert await names(catalogue, "!!!") == []


@pytest.mark.parametrize("query", ["abc\x00", "\x00", "abc\x00def", "ab\x00"])
async def test_a_query_holding_nul_matches_nothing_instead_of_failing(catalogue: Store, query: str) -> None:
    await add_item(catalogue, "abcdef")
    await add_person(catalogue, "abc def")
    with trio.fail_after(LIMIT_S):
        hits = await search(catalogue, query, 20)
    assert (hits.items, hits.people) == ([], [])


@pytest.mark.parametrize("query", ["100%", "a_b", '"quoted" *', "back\\slash"])
async def test_wildcards_and_query_syntax_in_the_query_are_plain_text(catalogue: Store, query: str) -> None:
    await add_item(catalogue, "Give 100% of a_b")
    await add_item(catalogue, 'The "quoted" * star')
    await add_item(catalogue, "back\\slash")
    await add_item(catalogue, "Give 1000 of axb")
    found = await names(catalogue, query)
    assert len(found) == 1 and fold(query) in fold(found[0])


# -- scope and limits --------------------------------------------------------------


async def test_missing_items_extras_and_additional_parts_are_not_found(catalogue: Store) -> None:
    owner = await add_item(catalogue, "Heat")
    await add_item(catalogue, "Heat (missing copy)", missing=1)
    await add_item(catalogue, "Heat trailer", owner_id=owner, extra_type="Trailer", item_type="Video")
    await add_item(catalogue, "Heat part 2", owner_id=owner, extra_type="AdditionalPart", item_type="Video")
    assert await names(catalogue, "heat") == ["Heat"]


async def test_limit_caps_items_and_people_separately(catalogue: Store) -> None:
    for n in range(5):
        await add_item(catalogue, f"Alien {n}")
        await add_person(catalogue, f"Alien Person {n}")
    hits = await search(catalogue, "alien", 3)
    assert [hit.name for hit in hits.items] == ["Alien 0", "Alien 1", "Alien 2"]
    assert [hit.name for hit in hits.people] == ["Alien Person 0", "Alien Person 1", "Alien Person 2"]


async def test_the_limit_is_filled_across_ranks_in_order(catalogue: Store) -> None:
    for name in ("Ant", "Antz", "Giant", "The Ant Bully", "Pants"):
        await add_item(catalogue, name)
    assert await names(catalogue, "ant", 3) == ["Ant", "Antz", "The Ant Bully"]
    assert await names(catalogue, "ant", 4) == ["Ant", "Antz", "The Ant Bully", "Giant"]


async def test_dense_tiers_read_in_sort_order_give_the_same_hits(
    catalogue: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("Midnight", "The Night", "Nightcrawler", "Night", "A Night Out", "Knights", "Up", "Upgrade"):
        await add_item(catalogue, name, original_title=f"Original {name}")
        await add_person(catalogue, f"{name} Person")
    queries = ("night", "ight", "up", "n", "original night", "zzz")
    sparse = [await search(catalogue, q, 4) for q in queries]
    monkeypatch.setattr(search_module, "DENSE_CANDIDATES", 1)  # every tier with a candidate is dense
    assert [await search(catalogue, q, 4) for q in queries] == sparse


async def test_a_limit_below_one_is_refused(catalogue: Store) -> None:
    with pytest.raises(ValueError):
        await search(catalogue, "x", 0)


# -- people ----------------------------------------------------------------------


async def test_people_are_found_ranked_with_image_tag_and_main_role(catalogue: Store) -> None:
    films = [await add_item(catalogue, f"Film {n}") for n in range(3)]
    keanu = await add_person(catalogue, "Keanu Reeves", image_tag="abc123")
    await add_person(catalogue, "Reeves")
    credits = [(films[0], keanu, "Director"), (films[1], keanu, "Actor"), (films[2], keanu, "Actor")]
    await catalogue.execute_many("INSERT INTO credits (item_id, person_id, kind) VALUES (?, ?, ?)", credits)
    hits = await search(catalogue, "reeves", 10)
    assert [(p.name, p.image_tag, p.role) for p in hits.people] == [
        ("Reeves", None, None),
        ("Keanu Reeves", "abc123", "Actor"),
    ]


async def test_a_tie_between_roles_goes_to_the_earlier_person_kind(catalogue: Store) -> None:
    film_a, film_b = await add_item(catalogue, "A"), await add_item(catalogue, "B")
    person = await add_person(catalogue, "Clint Eastwood")
    await catalogue.execute_many(
        "INSERT INTO credits (item_id, person_id, kind) VALUES (?, ?, ?)",
        [(film_a, person, "Director"), (film_b, person, "Composer")],
    )
    (hit,) = (await search(catalogue, "eastwood", 5)).people
    assert hit.role == "Director"


# -- item hits -------------------------------------------------------------------


async def test_an_item_hit_carries_its_summary_and_poster_tag(catalogue: Store) -> None:
    item = await add_item(catalogue, "Arrival", original_title="Story of Your Life")
    await catalogue.execute(
        "INSERT INTO images (item_id, kind, idx, path, tag) VALUES (?, 'primary', 0, '/p.jpg', 'tag1')", (item,)
    )
    (hit,) = (await search(catalogue, "arrival", 5)).items
    assert (hit.id, hit.library_id, hit.type, hit.image_tag, hit.has_poster) == (item, "lib", "Movie", "tag1", True)
    assert (hit.production_year, hit.original_title, hit.date_created_ms) == (2001, "Story of Your Life", 1_700_000_000_000)
    assert hit.locked is False and hit.extra_type is None


# -- upkeep by triggers ------------------------------------------------------------


async def test_renames_missing_flags_and_deletes_follow_the_catalogue(catalogue: Store) -> None:
    item = await add_item(catalogue, "Old Name")
    person = await add_person(catalogue, "Someone Old")
    await catalogue.execute("UPDATE items SET name = ?, sort_name = ? WHERE id = ?", ("New Name", "new name", item))
    await catalogue.execute("UPDATE people SET name = ? WHERE id = ?", ("Someone New", person))
    assert await names(catalogue, "old") == [] and await names(catalogue, "new name") == ["New Name"]
    assert [p.name for p in (await search(catalogue, "someone", 5)).people] == ["Someone New"]
    await catalogue.execute("UPDATE items SET missing = 1 WHERE id = ?", (item,))
    assert await names(catalogue, "new name") == []
    await catalogue.execute("UPDATE items SET missing = 0 WHERE id = ?", (item,))
    assert await names(catalogue, "new name") == ["New Name"]
    await catalogue.execute("DELETE FROM libraries WHERE id = 'lib'")  # cascades to its items
    await catalogue.execute("DELETE FROM people WHERE id = ?", (person,))
    hits = await search(catalogue, "new", 5)
    assert hits.items == [] and hits.people == []


async def test_an_upsert_that_changes_nothing_keeps_the_item_found(catalogue: Store) -> None:
    item = await add_item(catalogue, "Solaris")
    await catalogue.execute(
        "INSERT INTO items (id, library_id, type, name, sort_name, date_created, date_modified)"
        " VALUES (?, 'lib', 'Movie', 'Solaris', 'Solaris', 1, 2)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name, date_modified = excluded.date_modified",
        (item,),
    )
    assert await names(catalogue, "solaris") == ["Solaris"]


async def test_items_written_before_the_migration_are_indexed_by_it(database_url: str) -> None:
    with trio.fail_after(LIMIT_S):
        async with open_store(database_url) as store:
            await migrate(store, up_to=SEARCH_MIGRATION - 1)
            await add_library(store)
            await add_item(store, "Before Search")
            await add_person(store, "Early Person")
            await migrate(store)
            hits = await search(store, "early before", 5), await search(store, "before", 5)
            people = await search(store, "early", 5)
    assert hits[0].items == [] and [h.name for h in hits[1].items] == ["Before Search"]
    assert [p.name for p in people.people] == ["Early Person"]


async def test_postgresql_answers_alike_without_its_trigram_indexes(catalogue: Store) -> None:
    if catalogue.backend != "postgresql":
        pytest.skip("the trigram indexes are PostgreSQL's optional part")
    for name in ("Midnight Run", "The Night", "Nightcrawler", "Night", "Knights"):
        await add_item(catalogue, name)
    await add_person(catalogue, "Night Owl")
    with_indexes = await search(catalogue, "night", 10)
    for index in ("search_items_name_trgm", "search_items_title_trgm", "search_people_name_trgm"):
        await catalogue.execute(f"DROP INDEX {index}")  # as when pg_trgm could not be had
    assert await search(catalogue, "night", 10) == with_indexes


# -- the fold and the migrations -----------------------------------------------------


def test_fold_lowercases_drops_accents_and_spaces_punctuation() -> None:
    assert fold("  L'École -- des   Femmes!  ") == "l ecole des femmes"
    assert fold("ΆΘΗΝΑ") == "αθηνα"
    assert fold("東京物語") == "東京物語"


def test_no_fold_output_holds_a_character_the_fold_would_change() -> None:
    for key, value in FOLD_TABLE.items():
        assert not any(char in FOLD_TABLE for char in value), key


def test_every_accented_latin_letter_folds_to_ascii() -> None:
    letters = [chr(c) for c in range(0xC0, 0x250) if unicodedata.category(chr(c)) in ("Lu", "Ll")]
    decomposable = [c for c in letters if unicodedata.decomposition(c).startswith("00")]
    assert decomposable and all(fold(c).isascii() for c in decomposable)


def _migration_text(backend: str) -> str:
    folder = resources.files("reelhouse.storage") / "migrations"
    return (folder / f"0003_search.{backend}.sql").read_text(encoding="utf-8")


def test_the_shipped_migrations_hold_the_fold_this_module_generates() -> None:
    sqlite_text = _migration_text("sqlite")
    for step in sqlite_fold_steps("t"):
        assert f"UPDATE search_fold SET t = {step} WHERE id = NEW.id;" in sqlite_text
    assert postgres_fold_function() in _migration_text("postgresql")


def test_the_search_migration_has_one_file_per_backend() -> None:
    (migration,) = [m for m in load_migrations() if m.name == "search"]
    assert migration.sql == ""
    assert "fts5" in migration.sql_for("sqlite") and "pg_trgm" in migration.sql_for("postgresql")


def test_render_keeps_trigger_bodies_and_dollar_quotes_whole() -> None:
    sql = (
        "CREATE TABLE t (x TEXT);\n"
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN\n  UPDATE t SET x = 'a';\n  DELETE FROM t;\nEND;\n"
        "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; SELECT 2 $$ LANGUAGE sql;\n"
        "CREATE INDEX i ON t (x)"
    )
    statements = render(sql, "sqlite")
    assert len(statements) == 4
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END")
    assert statements[2].endswith("LANGUAGE sql")


# -- many rows in one statement (the scan's batches) ------------------------------------

_MANY_ITEMS = (
    "INSERT INTO items (id, library_id, type, name, sort_name, original_title, missing, owner_id, extra_type,"
    " date_created, date_modified) VALUES (?, 'lib', ?, ?, ?, ?, ?, ?, ?, 1, 1)"
    " ON CONFLICT (id) DO UPDATE SET name = excluded.name, sort_name = excluded.sort_name"
)
_MANY_PEOPLE = "INSERT INTO people (id, name, sort_name, created_at, updated_at) VALUES (?, ?, ?, 1, 1)"


async def test_items_and_people_written_many_at_once_get_their_search_rows(catalogue: Store) -> None:
    # Regression (0026): on PostgreSQL a statement trigger fills the search
    # tables from all of a statement's inserted rows; each row keeps its keys.
    rows = [
        ("m1", "Movie", "Amélie: Le Fabuleux", "Amelie", "Le Fabuleux Destin", 0, None, None),
        ("m2", "Movie", "Heat", "Heat", None, 0, None, None),
        ("m3", "Movie", "Gone", "Gone", None, 1, None, None),  # missing: not searchable
        ("m4", "Video", "Heat trailer", "Heat trailer", None, 0, "m2", "Trailer"),  # an extra: not either
    ]
    people = [("p1", "Zoë Kravitz", "Kravitz, Zoë"), ("p2", "Jean Reno", "Reno, Jean")]
    await catalogue.transaction([Statement(_MANY_ITEMS, many=rows), Statement(_MANY_PEOPLE, many=people)])
    found = await catalogue.fetch_all("SELECT item_id, name_f, title_f, sort_f FROM search_items ORDER BY item_id")
    assert [tuple(r) for r in found] == [
        ("m1", search_key("Amélie: Le Fabuleux"), search_key("Le Fabuleux Destin"), search_key("Amelie")),
        ("m2", "heat", "", "heat"),
    ]
    found = await catalogue.fetch_all("SELECT person_id, name_f, sort_f FROM search_people ORDER BY person_id")
    assert [tuple(r) for r in found] == [
        ("p1", search_key("Zoë Kravitz"), search_key("Kravitz, Zoë")),
        ("p2", "jean reno", "reno jean"),
    ]
    # The same statement again: the conflicting rows update (the update trigger), nothing doubles.
    renamed = [("m2", "Movie", "Heat 2", "Heat 2", None, 0, None, None), ("m5", "Movie", "Ronin", "Ronin", None, 0, None, None)]
    await catalogue.transaction([Statement(_MANY_ITEMS, many=renamed)])
    found = await catalogue.fetch_all("SELECT item_id, name_f FROM search_items ORDER BY item_id")
    assert [tuple(r) for r in found] == [("m1", search_key("Amélie: Le Fabuleux")), ("m2", "heat 2"), ("m5", "ronin")]
    assert await names(catalogue, "ronin") == ["Ronin"]
