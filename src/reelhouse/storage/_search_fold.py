"""Search folding: the one case- and accent-insensitive form of a name.

Search compares folded names with a folded query, so the fold must be the
same function everywhere it runs: in Python (the query), in SQLite triggers
and in a PostgreSQL function (the stored names).  It is defined once here,
as a character table, and the SQL in the ``0003_search`` migrations is
generated from that table (:func:`sqlite_fold_steps`,
:func:`postgres_fold_function`); a test keeps the shipped migrations equal
to what this module generates.

The fold, character by character, then on the whole string:

- ASCII letters to lower case; letters of Latin, Greek and Cyrillic
  (:data:`FOLDED_BLOCKS`) to their lower-case base letter: accents and other
  marks are dropped (``É`` -> ``e``, ``ß`` -> ``ss``, ``Ł`` -> ``l``,
  ``Ж`` -> ``ж``); combining marks (decomposed input) are deleted;
- common punctuation (:data:`SPACE_CHARACTERS`) becomes a space, so
  ``Spider-Man`` and ``spider man`` fold alike and every word starts after a
  space;
- runs of spaces shrink (two passes of "two spaces -> one", so up to eight
  in a row become one), leading and trailing spaces go.

Letters of other scripts (CJK, Arabic, Hebrew...) have no case to fold and
are kept as they are.  The table is built from ``unicodedata`` (NFKD
decompositions of existing characters are frozen by Unicode's stability
policy, so it does not drift between Python versions).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

FOLDED_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x00C0, 0x0250),  # Latin-1 Supplement letters, Latin Extended-A and -B
    (0x0370, 0x0500),  # Greek and Coptic, Cyrillic
    (0x1E00, 0x1F00),  # Latin Extended Additional (Vietnamese, Welsh...)
)
COMBINING_MARKS = (0x0300, 0x0370)
"""Deleted: decomposed accents (file names written on macOS are NFD)."""
SPACE_CHARACTERS = "\x1f-_.,:;!?'\"()[]{}/\\\u00a1\u00ab\u00b7\u00bb\u00bf\u2013\u2014\u2018\u2019\u201c\u201d\u2026"
"""Punctuation that separates words: each becomes a space."""
SPECIAL_LETTERS: Mapping[str, str] = {
    "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o", "đ": "d", "Đ": "d",
    "ð": "d", "Ð": "d", "ł": "l", "Ł": "l", "þ": "th", "Þ": "th", "ħ": "h", "Ħ": "h",
    "ŧ": "t", "Ŧ": "t", "ı": "i", "ŋ": "n", "Ŋ": "n", "ſ": "s", "ĸ": "k",
}
"""Letters without a decomposition that readers still see as a base letter."""
COLLAPSE_PASSES = 2
MAX_KEY_LENGTH = 200
"""Characters of a folded name kept for search (PostgreSQL caps an index row at 2.7 kB)."""
SQLITE_STEP_SIZE = 20
"""Replacements per SQLite UPDATE step: SQLite's parser overflows its stack near 30 nested calls."""
SEPARATOR = "\x1f"
"""Joins the folded fields in SQLite's staging row; folded to a space inside a field."""


def _letter_fold(char: str) -> str:
    if char in SPECIAL_LETTERS:
        return SPECIAL_LETTERS[char]
    stripped = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return stripped.casefold()


def _build_table() -> dict[str, str]:
    table: dict[str, str] = {chr(c): chr(c).lower() for c in range(ord("A"), ord("Z") + 1)}
    table.update(dict.fromkeys(SPACE_CHARACTERS, " "))
    table.update({chr(c): "" for c in range(*COMBINING_MARKS)})
    for start, end in FOLDED_BLOCKS:
        for code in range(start, end):
            char = chr(code)
            if unicodedata.category(char)[0] == "L" and char not in table:
                table[char] = _letter_fold(char)
    table.update(SPECIAL_LETTERS)
    return _close(table)


def _close(table: dict[str, str]) -> dict[str, str]:
    """Map every character straight to its final form (no output holds a key)."""
    def final(text: str) -> str:
        while any(c in table and table[c] != c for c in text):
            text = "".join(table.get(c, c) for c in text)
        return text

    closed = {key: final(value) for key, value in table.items()}
    return {key: value for key, value in closed.items() if value != key}


FOLD_TABLE: Mapping[str, str] = _build_table()
_TRANSLATION = str.maketrans(dict(FOLD_TABLE))


def fold(text: str) -> str:
    """The folded form of ``text`` (see the module doc); pure and total."""
    folded = text.translate(_TRANSLATION)
    for _ in range(COLLAPSE_PASSES):
        folded = folded.replace("  ", " ")
    return folded.strip(" ")


def search_key(text: str) -> str:
    """What search stores and compares: the fold cut to :data:`MAX_KEY_LENGTH`, no trailing space."""
    return fold(text)[:MAX_KEY_LENGTH].rstrip(" ")


# -- SQL generation (the migrations hold its output) ---------------------------


def sqlite_fold_steps(column: str) -> list[str]:
    """Expressions applied in turn to ``column`` by SQLite's staging trigger.

    The first step lower-cases ASCII (SQLite's ``lower`` folds only ASCII)
    and spaces the ASCII punctuation; the next ones (run only on text with
    a non-ASCII character) replace the rest of the table; the last
    collapses spaces.  The separator is not replaced: the trigger turns it
    into a space inside each field before joining them, and trims each field
    after splitting.
    """
    ascii_keys = sorted(k for k in FOLD_TABLE if k.isascii() and not k.isupper() and k != SEPARATOR)
    other_keys = sorted(k for k in FOLD_TABLE if not k.isascii())
    steps = [_sqlite_replaces(f"lower({column})", ascii_keys)]
    for start in range(0, len(other_keys), SQLITE_STEP_SIZE):
        steps.append(_sqlite_replaces(column, other_keys[start : start + SQLITE_STEP_SIZE]))
    collapse = column
    for _ in range(COLLAPSE_PASSES):
        collapse = f"replace({collapse}, '  ', ' ')"
    steps.append(collapse)
    return steps


def sqlite_search_key(column: str) -> str:
    """A SQLite expression equal to :func:`search_key` of ``column``.

    Printable-ASCII text (nearly every name) is folded in SQL; anything
    else calls ``reelhouse_fold``, the Python function the Store registers.
    A scan writes from a worker thread while other threads run Python, and
    each call of a Python function from SQL waits for the GIL: the SQL path
    keeps a batch of inserts from trading the GIL back and forth per row.
    """
    ascii_keys = sorted(k for k in FOLD_TABLE if " " <= k <= "~" and not k.isupper())
    folded = _sqlite_replaces(f"lower({column})", ascii_keys)
    for _ in range(COLLAPSE_PASSES):
        folded = f"replace({folded}, '  ', ' ')"
    fast = f"rtrim(substr(trim({folded}, ' '), 1, {MAX_KEY_LENGTH}), ' ')"
    # GLOB stops at a NUL character; instr() sees the whole text.
    other = f"{column} GLOB '*[^ -~]*' OR instr({column}, char(0)) > 0"
    return f"CASE WHEN {other} THEN reelhouse_fold({column})\n        ELSE {fast} END"


def _sqlite_replaces(expression: str, keys: list[str]) -> str:
    for key in keys:
        expression = f"replace({expression}, char({ord(key)}), {_sqlite_literal(FOLD_TABLE[key])})"
    return expression


def _sqlite_literal(text: str) -> str:
    if (text.isascii() and text.replace(" ", "").isalnum()) or text in ("", " "):
        return f"'{text}'"
    return f"char({', '.join(str(ord(c)) for c in text)})"


def postgres_fold_function(name: str = "reelhouse_fold") -> str:
    """``CREATE FUNCTION name(text)``: the fold as an immutable SQL function.

    The characters map as :func:`postgres_translate` maps them.
    ``translate`` costs a scan of its character list per input character,
    so printable-ASCII text (the common case) takes a short list of its
    own.  Not STRICT: the planner inlines only functions it can prove
    strict, and a CASE defeats the proof (NULL folds to NULL all the same).  Characters are written as
    ``U&'\\XXXX'`` escapes: the migration text then holds no ``?`` (the
    PostgreSQL store rewrites it as a placeholder), ``;`` or ``--``.
    """
    printable = sorted(k for k, v in FOLD_TABLE.items() if len(v) == 1 and " " <= k <= "~")
    fast = _pg_translate(printable, FOLD_TABLE)
    full = postgres_translate(FOLD_TABLE)
    expression = f"CASE WHEN t ~ '^[ -~]*$' THEN {fast}\n        ELSE {full} END"
    for _ in range(COLLAPSE_PASSES):
        expression = f"replace({expression}, '  ', ' ')"
    return (
        f"CREATE FUNCTION {name}(t text) RETURNS text\n"
        "LANGUAGE sql IMMUTABLE PARALLEL SAFE\n"
        f"AS $$ SELECT btrim({expression}, ' ') $$"
    )


def postgres_translate(table: Mapping[str, str]) -> str:
    """SQL that maps each character of ``t`` as ``table`` does.

    One ``translate`` for the one-to-one and deleting entries, ``replace``
    for the few that become two letters.
    """
    singles = sorted(k for k, v in table.items() if len(v) == 1)
    deleted = sorted(k for k, v in table.items() if not v)
    doubles = sorted(k for k, v in table.items() if len(v) > 1)
    expression = _pg_translate(singles + deleted, table)
    for key in doubles:
        expression = f"replace({expression}, {_pg_literal(key)}, {_pg_literal(table[key])})"
    return expression


def _pg_translate(keys: list[str], table: Mapping[str, str]) -> str:
    """``translate(t, keys, their values)``; keys mapping to nothing come last."""
    source = _pg_literal("".join(keys))
    target = _pg_literal("".join(table[k] for k in keys))
    return f"translate(t,\n        {source},\n        {target})"


def _pg_literal(text: str) -> str:
    if text.isascii() and all(c.isalnum() or c == " " for c in text):
        return f"'{text}'"
    return "U&'" + "".join(f"\\{ord(c):04X}" for c in text) + "'"
