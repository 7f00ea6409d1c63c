"""ContentDirectory:1 ``SortCriteria`` (section 2.5.7) read into the one order the catalogue gives.

``SortCriteria`` is a comma-separated list of properties, each with ``+``
(ascending) or ``-`` (descending), such as ``+dc:title`` or
``-dc:date,+dc:title``.  What the catalogue can order by is
:data:`SORT_CAPABILITIES` (``GetSortCapabilities``):

- ``dc:title``: the title (the catalogue's sort name, case- and
  accent-insensitively);
- ``dc:date``: the year (an item without one comes last), then the title;
- ``upnp:originalTrackNumber``, ``upnp:episodeNumber``, ``upnp:episodeSeason``:
  season and episode number (an episode), the index number otherwise;
- ``res@size``, ``res@duration``, ``res@resolution``: the primary file's
  size, the runtime, the video's width.

A listing has one order, so the first criterion of those properties
chooses it; ties break by title in the same direction, as the catalogue
breaks them.  A property outside the list (``upnp:class``, which
televisions often send first, ``upnp:artist``...) is passed over, as
minidlna and gerbera pass them over, rather than failing the Browse.
A criterion without a sign is ascending (some clients leave it out).
A malformed list (an empty criterion, a name that is not a property, one
longer than :data:`MAX_SORT_CHARS`) is error 709.  Pure: the query is
built by ``http/dlna``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .soap import SoapError

INVALID_SORT_CRITERIA = 709
MAX_SORT_CHARS = 1024
# DIDL property -> the catalogue's sort (ItemQuery.sort).
CATALOGUE_SORTS = {
    "dc:title": "name",
    "dc:date": "year",
    "upnp:originalTrackNumber": "index",
    "upnp:episodeNumber": "index",
    "upnp:episodeSeason": "index",
    "res@size": "size",
    "res@duration": "runtime",
    "res@resolution": "resolution",
}
SORT_CAPABILITIES = ",".join(CATALOGUE_SORTS)
_PROPERTY = re.compile(r"[A-Za-z_][\w.-]*(?::[\w.-]+)?(?:@[\w:.-]+)?|@[\w:.-]+")


@dataclass(frozen=True, slots=True)
class Order:
    """The catalogue's sort (``"name"``, ``"year"``...) and its direction."""

    sort: str
    descending: bool = False

    @property
    def order(self) -> str:
        return "desc" if self.descending else "asc"


def parse_sort(text: str) -> Order | None:
    """The order ``text`` asks for; None for none (each list's own order); SoapError 709 when malformed."""
    if len(text) > MAX_SORT_CHARS:
        raise SoapError(INVALID_SORT_CRITERIA, "The sort criteria are too long.")
    if not text.strip():
        return None
    chosen: Order | None = None
    for criterion in text.split(","):
        criterion = criterion.strip()
        descending = criterion.startswith("-")
        name = criterion[1:] if criterion[:1] in ("+", "-") else criterion
        if not _PROPERTY.fullmatch(name):
            raise SoapError(INVALID_SORT_CRITERIA, "The sort criteria are not well-formed.")
        if chosen is None and name in CATALOGUE_SORTS:
            chosen = Order(CATALOGUE_SORTS[name], descending)
    return chosen
