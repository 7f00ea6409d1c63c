"""OpenAPI models of PATCH /libraries/{id}/options and its answer.

They document; they do not validate: the body is read as sent and checked
by the reference's rules in ``media/library_options/_update.py`` (pydantic's lax
coercion would accept ``"true"`` for a boolean, which those rules refuse).
Built from :class:`LibraryOptions`, so a new setting is documented at once.
"""

from __future__ import annotations

import dataclasses
from typing import Any, get_type_hints

from pydantic import create_model

from reelhouse.media.library_options import LibraryOptions, LibraryPresetField

from .schema import ApiModel


def _settable_fields() -> dict[str, Any]:
    hints = get_type_hints(LibraryOptions)
    fields: dict[str, Any] = {}
    for field in dataclasses.fields(LibraryOptions):
        kind = hints[field.name]
        if field.name == "remote_allowed_hosts":
            fields[field.name] = (list[str], ...)  # rule 1: required, replaces the list
        else:
            fields[field.name] = (kind | None, None)  # omitted or null: kept
    fields["follow_storage"] = (list[LibraryPresetField] | None, None)
    return fields


LibraryOptionsUpdate = create_model(
    "LibraryOptionsUpdate",
    __base__=ApiModel,
    __doc__=(
        "The reference's LibraryOptionsUpdate: remoteAllowedHosts is required and replaces the list; "
        "every other field omitted (or null) keeps its value; followStorage resets preset fields."
    ),
    **_settable_fields(),
)


class LibraryWithHints(ApiModel):
    """A Library (as GET /libraries/{id} answers) with the settings update hints."""

    id: str
    name: str
    paths: list[str]
    collection_type: str
    options: dict[str, Any]
    covers: dict[str, Any] | None = None
    item_count: int | None = None
    last_scanned_at: str | None = None
    has_strm_sources: bool | None = None
    strm_plugin_enabled: bool | None = None
    scrape_pending: int | None = None
    rescan_suggested: bool
    rescan_rewrite: bool
    nfo_sync_suggested: bool
    remote_reads_suggested: bool
    scrape_requeue_suggested: bool
    scrape_requeue_count: int | None = None
