"""SQLite's search triggers fold printable ASCII in SQL, equal to search_key()."""

from __future__ import annotations

import sqlite3
import string
from importlib import resources

from hypothesis import given, settings
from hypothesis import strategies as st

from reelhouse.storage._search_fold import search_key, sqlite_search_key

PRINTABLE = st.text(alphabet=st.sampled_from(string.printable[:95]), max_size=260)
ANY_TEXT = st.text(max_size=60)


def _sql_key(text: str | None) -> str | None:
    conn = sqlite3.connect(":memory:")
    calls: list[str] = []

    def python_fold(value: str) -> str:
        calls.append(value)
        return search_key(value)

    conn.create_function("reelhouse_fold", 1, python_fold, deterministic=True)
    result = conn.execute(f"SELECT {sqlite_search_key('?1')}", (text,)).fetchone()[0]
    _sql_key.python_calls = len(calls)  # type: ignore[attr-defined]
    return result  # type: ignore[no-any-return]


@settings(max_examples=300)
@given(PRINTABLE)
def test_printable_ascii_folds_in_sql_exactly_like_search_key(text: str) -> None:
    assert _sql_key(text) == search_key(text)
    assert _sql_key.python_calls == 0  # type: ignore[attr-defined]


@given(ANY_TEXT)
def test_any_other_text_folds_like_search_key_through_python(text: str) -> None:
    assert _sql_key(text) == search_key(text)


def test_punctuation_runs_and_long_names_fold_in_sql() -> None:
    for text in ("Spider-Man: No Way Home", "  A  ..  b ", "Mr. & Mrs. Smith (2005)", "x" * 199 + " y", ""):
        assert _sql_key(text) == search_key(text)
    assert _sql_key(None) is None


def test_text_with_a_nul_character_folds_through_python() -> None:
    # Regression: GLOB stops at NUL, so "\x00" took the ASCII path and folded to "".
    for text in ("\x00", "a\x00b"):
        assert _sql_key(text) == search_key(text)


def test_the_shipped_triggers_hold_the_expression_this_module_generates() -> None:
    folder = resources.files("reelhouse.storage") / "migrations"
    text = (folder / "0007_search_fold_in_sql.sqlite.sql").read_text(encoding="utf-8")
    for column in ("NEW.name", "coalesce(NEW.original_title, '')", "NEW.sort_name"):
        assert sqlite_search_key(column) in text
    assert text.count("THEN reelhouse_fold(") == 10  # 3 + 3 item fields, 2 + 2 person fields
