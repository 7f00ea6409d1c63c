"""Library options: the stored model, its JSON names, validation of an update and its hints.

``_options`` is the entry (effective values, presets, hints); ``_model`` the
data types; ``_fields`` field names and bounds; ``_update`` applying a
partial update.
"""

from ._fields import (
    TIB,
)
from ._model import (
    CAMEL_NAMES,
    LibraryOptions,
    LibraryPresetField,
    parse_collection_type,
)
from ._options import (
    effective,
    effective_media_info_timing,
    effective_read_concurrency,
)
from ._update import (
    CAP_BACKGROUND,
    CAP_IMAGES,
    CAP_MOVIE_METADATA,
    CAP_RECOGNIZER,
    CAP_SEGMENTS,
    CAP_SERIES_METADATA,
    PARENTAL_CONTROLS_FEATURE,
    PluginInfo,
    UpdateHints,
    UpdateOutcome,
    apply_update,
    compute_hints,
    is_scraping,
)

__all__ = [
    "CAMEL_NAMES",
    "CAP_BACKGROUND",
    "CAP_IMAGES",
    "CAP_MOVIE_METADATA",
    "CAP_RECOGNIZER",
    "CAP_SEGMENTS",
    "CAP_SERIES_METADATA",
    "PARENTAL_CONTROLS_FEATURE",
    "TIB",
    "LibraryOptions",
    "LibraryPresetField",
    "PluginInfo",
    "UpdateHints",
    "UpdateOutcome",
    "apply_update",
    "compute_hints",
    "effective",
    "effective_media_info_timing",
    "effective_read_concurrency",
    "is_scraping",
    "parse_collection_type",
]
