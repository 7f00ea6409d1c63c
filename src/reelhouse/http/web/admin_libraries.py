"""A library's new name or folders, from the console (the reference's API changes only its options).

``PATCH /web/admin/libraries/{id} {name?, paths?}`` asks the library
registry (:mod:`reelhouse.actors.library_change`): a creation's checks (400
with the same codes: ``library_path_not_allowed``, ``path_not_absolute``, an
overlap), and new folders restart the library on them with a full scan.
Answers the Library as ``GET /libraries/{id}`` does.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from quart_schema import hide

from reelhouse.actors.library_change import ChangeLibrary
from reelhouse.storage.libraries import LibraryRecord

from ..activity_recording import log_activity
from ..asks import ask
from ..context import app_context
from ..libraries import get_one
from .admin_gate import require_admin
from .blueprint import blueprint
from .forms import parse_body


class LibraryChange(BaseModel):
    """What to change; an absent (null) field is left as it is (the checks are the registry's)."""

    model_config = ConfigDict(extra="ignore")

    name: str | None = Field(None, max_length=1000)
    paths: list[str] | None = Field(None, max_length=1000)


@blueprint.patch("/admin/libraries/<library_id>")
@hide  # the console, not the API: kept out of the OpenAPI document
async def change_library(library_id: str) -> dict[str, Any]:
    """Rename the library or give it other folders; answers it as the API shows it."""
    require_admin()
    data = await parse_body(LibraryChange)
    record: LibraryRecord = await ask(app_context().actors.libraries, ChangeLibrary(library_id, data.name, data.paths))
    fields = [name for name, given in (("name", data.name is not None), ("paths", data.paths is not None)) if given]
    await log_activity("library.update", "settings", "library", record.id, record.name,
                       {"fields": fields, "paths": list(record.paths)})  # fmt: skip
    return await get_one(record.id)
