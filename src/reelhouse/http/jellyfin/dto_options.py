"""Jellyfin's DtoOptions parameters: what a client asks to be left out of the BaseItemDtos of a list.

- ``EnableUserData=false``: no ``UserData`` (and the member's watch state is not read);
- ``EnableImages=false``: no ``ImageTags`` nor ``BackdropImageTags``;
- ``EnableImageTypes`` (comma-separated ImageTypes): only those types' tags
  (``Backdrop`` for ``BackdropImageTags``);
- ``ImageTypeLimit``: at most that many tags of each type (0: none).

As Jellyfin, a value it would refuse (a boolean other than true/false, a
limit that is not a whole number) is 400 naming the parameter.  Keys of
``args`` are lower case (:func:`.item_query.lowered_args`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .item_query import count, flag, split

BACKDROP = "backdrop"


@dataclass(frozen=True, slots=True)
class DtoOptions:
    user_data: bool = True
    images: bool = True
    image_type_limit: int | None = None
    image_types: frozenset[str] | None = None  # lower case

    @property
    def plain(self) -> bool:
        """Nothing to leave out of the DTOs (most requests)."""
        return self.images and self.image_type_limit is None and self.image_types is None


def dto_options(args: Mapping[str, str]) -> DtoOptions:
    types = split(args.get("enableimagetypes"))
    limit = count(args, "imagetypelimit", "ImageTypeLimit", -1)
    return DtoOptions(
        user_data=bool(flag(args, "enableuserdata", "EnableUserData", default=True)),
        images=bool(flag(args, "enableimages", "EnableImages", default=True)),
        image_type_limit=None if limit < 0 else limit,
        image_types=frozenset(t.lower() for t in types) if types else None,
    )


def shape(dtos: Iterable[dict[str, Any]], options: DtoOptions) -> None:
    """Leave out of ``dtos`` (in place) the image tags ``options`` does not want."""
    if options.plain:
        return
    for dto in dtos:
        if not options.images:
            dto.pop("ImageTags", None)
            dto.pop("BackdropImageTags", None)
            continue
        wanted, limit = options.image_types, options.image_type_limit
        if "ImageTags" in dto:
            dto["ImageTags"] = {
                kind: tag for kind, tag in dto["ImageTags"].items()
                if (wanted is None or kind.lower() in wanted) and (limit is None or limit > 0)
            }  # fmt: skip
        if "BackdropImageTags" in dto:
            backdrops = dto["BackdropImageTags"] if wanted is None or BACKDROP in wanted else []
            dto["BackdropImageTags"] = backdrops if limit is None else backdrops[:limit]
