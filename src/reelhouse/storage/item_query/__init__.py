"""Item queries: GET /items and its kin as SQL on both backends.

``_query`` runs a listing (:func:`list_items`); ``_params`` parses the
query string into an :class:`ItemQuery` (``_model``); ``_filters`` builds the
WHERE clause, ``_sorts`` the order and keyset paging, ``_member`` the
member-state conditions, ``_render`` the summary columns and rows.
"""

from ._files import (
    FilesPage,
    ItemFiles,
    list_with_files,
)
from ._filters import (
    ATTENTION,
    LIKE_ESCAPE,
    like_escape,
)
from ._model import (
    IMAGE_KINDS,
    ITEM_SORTS,
    MAX_IDS,
    MAX_LIMIT,
    ItemQuery,
)
from ._params import (
    parse_item_query,
)
from ._query import (
    ItemKey,
    ItemPage,
    list_item_keys,
    list_items,
    rating_levels,
)
from ._render import (
    NAME_EXTRAS,
    PAGE_EXTRAS,
    SUMMARY_COLUMNS,
    ItemSummary,
    names_of_row,
    summary_of,
)

__all__ = [
    "ATTENTION",
    "IMAGE_KINDS",
    "ITEM_SORTS",
    "LIKE_ESCAPE",
    "MAX_IDS",
    "MAX_LIMIT",
    "NAME_EXTRAS",
    "PAGE_EXTRAS",
    "SUMMARY_COLUMNS",
    "FilesPage",
    "ItemFiles",
    "ItemKey",
    "ItemPage",
    "ItemQuery",
    "ItemSummary",
    "like_escape",
    "list_item_keys",
    "list_items",
    "list_with_files",
    "names_of_row",
    "parse_item_query",
    "rating_levels",
    "summary_of",
]
