"""The name key: how item listings order and compare sort names.

Listings order by name (and break every other sort's ties by it),
case-insensitively.  SQLite's ``lower()`` folds ASCII only, so ``Émile``
sorted after ``Zorro`` there, and PostgreSQL's order followed the
database's collation: the two backends disagreed, and neither put an
accented name among its letter.  Each item therefore stores
``items.name_key``, written with the row (:func:`name_key` of its sort
name), and every name comparison (sort, cursor, ``nameFrom``,
``nameBefore``, ``nameStartsWith``, ``initial``) meets that column with a
parameter keyed the same way.  Both backends compare it byte-wise
(PostgreSQL declares the column ``COLLATE "C"``), so the order is the same.

The key folds letters exactly as search does (:mod:`._search_fold`): ASCII
and the Latin, Greek and Cyrillic letters to their lower-case base letter
(``É`` -> ``e``, ``ß`` -> ``ss``), combining marks deleted; unlike search,
punctuation and spaces are kept, so the key of printable ASCII is its
``lower()``.  Migration 0010 filled the column for existing rows with the
same table, generated as SQL by :func:`postgres_name_key_function`, which
PostgreSQL keeps; SQLite's connections register :func:`name_key` under the
same name.  :func:`sql_name_key` keys other text columns in a query (the
``q`` filter's names and original titles).
"""

from __future__ import annotations

from collections.abc import Mapping

from ._search_fold import FOLD_TABLE, SPACE_CHARACTERS, postgres_translate

NAME_KEY_TABLE: Mapping[str, str] = {k: v for k, v in FOLD_TABLE.items() if k not in SPACE_CHARACTERS}
_TRANSLATION = str.maketrans(dict(NAME_KEY_TABLE))


def name_key(text: str) -> str:
    """The key of a sort name (see the module doc); pure and total."""
    return text.translate(_TRANSLATION)


def sql_name_key(expression: str, backend: str) -> str:
    """SQL for the key of a text ``expression``: ``lower()`` where it is
    ASCII (the key is the same there), the key function only for the rest,
    on either backend.

    Text is ASCII when it has as many bytes as characters: cheaper than a
    pattern (measured on SQLite, 100,000 names: 65 ms against 85 ms for
    GLOB).  SQLite's ``length()`` stops at a NUL, which sends such text to
    the key function: slower, still right.
    """
    keyed, lowered = f"reelhouse_name_key({expression})", f"lower({expression})"
    if backend == "sqlite":
        ascii_only = f"length(CAST({expression} AS BLOB)) = length({expression})"
    else:
        ascii_only = f"octet_length({expression}) = char_length({expression})"
    return f"CASE WHEN {ascii_only} THEN {lowered} ELSE {keyed} END"


def postgres_name_key_function(name: str = "reelhouse_name_key") -> str:
    """``CREATE FUNCTION name(text)``: :func:`name_key` as an immutable SQL function."""
    return (
        f"CREATE FUNCTION {name}(t text) RETURNS text\n"
        "LANGUAGE sql IMMUTABLE PARALLEL SAFE\n"
        f"AS $$ SELECT {postgres_translate(NAME_KEY_TABLE)} $$"
    )
