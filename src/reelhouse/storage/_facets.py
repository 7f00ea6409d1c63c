"""items.facets and items.primary_image: what the value and poster filters read (migration 0027).

``facets`` holds an item's genres, studios and tags as the filters compare
them: :data:`FACET_SEPARATOR`, then for each value the first letter of its
kind, the value folded by the backend's ``lower()`` and the separator (a
value holding the separator is left out; a filter naming one reads
``item_values``).  Triggers keep both columns exact whoever writes
``item_values`` or ``images``.  The scanner also fills them when it inserts
a new item (:func:`new_item_facets`), so on SQLite, whose triggers run once
per row, the values and the poster it writes next find them already there
and each trigger only reads (measured: a batch of new movies with five
values and a poster each cost 1.5x the CPU of the same batch without the
triggers when each trigger wrote the item row).

What 0027 still adds to a 10,000-movie first scan on SQLite, measured on
the writer's own statements (#29): about 0.3 CPU-s, of which the year
index 0.10, the wider name-walk entries 0.05, the value triggers' reads
0.14 and the poster trigger's 0.025.  Skipping the insert triggers while
a marker table held a row saved only 0.06: a trigger whose WHEN reads any
table costs about what the item lookup it spares does.
"""

from __future__ import annotations

import string
from collections.abc import Iterable

FACET_SEPARATOR = "\x1f"
FACET_KINDS = ("genre", "studio", "tag")
# SQLite's lower() folds ASCII letters only; on PostgreSQL the statement
# triggers recompute facets with its own lower() after every insert.
_SQLITE_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def new_item_facets(values: Iterable[tuple[str, str]]) -> str:
    """``facets`` of a new item whose values are ``values`` ((kind, value), in position order)."""
    pieces = [
        kind[0] + value.translate(_SQLITE_LOWER)
        for kind in FACET_KINDS
        for value_kind, value in values
        if value_kind == kind and FACET_SEPARATOR not in value
    ]
    return FACET_SEPARATOR + FACET_SEPARATOR.join(pieces) + FACET_SEPARATOR if pieces else ""
