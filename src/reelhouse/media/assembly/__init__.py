"""Assembly: from a directory listing and its parsed names to item drafts, pure.

``_assemble`` is the entry (:func:`assemble_directory` and the records it
returns); ``_dir`` one directory's items, ``_folders`` series and season
folders, ``_meta`` metadata from NFO files and names, ``_versions`` multiple
versions and theme media, ``_model`` the data types.
"""

from ._assemble import (
    resolve_owner,
)
from ._dir import (
    assemble_directory,
)
from ._folders import (
    season_draft,
    season_path,
    series_draft,
    series_path,
)
from ._meta import (
    MAX_STRM_BYTES,
    container_of,
    external_streams,
    fingerprint,
    image_record,
    metadata_from_nfo,
    person_id,
    strm_target,
)
from ._model import (
    RELEVANT_SUFFIXES,
    FileStat,
    ImageRecord,
    ItemDraft,
    ItemRecord,
    Listing,
    Metadata,
    ScanRules,
    SeasonRef,
    SeriesRef,
    item_id,
    join_path,
)

__all__ = [
    "MAX_STRM_BYTES",
    "RELEVANT_SUFFIXES",
    "FileStat",
    "ImageRecord",
    "ItemDraft",
    "ItemRecord",
    "Listing",
    "Metadata",
    "ScanRules",
    "SeasonRef",
    "SeriesRef",
    "assemble_directory",
    "container_of",
    "external_streams",
    "fingerprint",
    "image_record",
    "item_id",
    "join_path",
    "metadata_from_nfo",
    "person_id",
    "resolve_owner",
    "season_draft",
    "season_path",
    "series_draft",
    "series_path",
    "strm_target",
]
