"""Realistic catalogue rows written straight into a Store, for tests.

Libraries, movies, series, seasons, episodes, extras, additional parts,
versions, box sets, media sources with streams, images, people, credits and
genre/studio/tag/country values, following the scanner's conventions (see
``reelhouse.storage.item_query``): extras are ``Video`` items with
``owner_id`` and ``extra_type`` (``AdditionalPart`` for later parts of a
stack, ``index_number`` = part number); version members carry
``version_of``; episodes carry ``series_id``, ``season_id`` (None directly
under a series) and ``parent_index_number``; JSON columns take Python values.

Calls queue rows and return ids at once; ``await factory.flush()`` writes
every queued row in one transaction, parents first. ``async with
catalog(store) as cat:`` flushes on exit::

    async with catalog(store) as cat:
        lib = cat.library("Films")
        arrival = cat.movie(lib, "Arrival", production_year=2016)
        cat.media(arrival, width=3840, height=2160, hdr_format="dolbyVision")
        cat.image(arrival, "primary")

Timestamps come from a clock starting at :data:`START_MS` that advances one
second per created row, so ``dateAdded`` follows creation order unless given.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from reelhouse.storage import Statement, Store
from reelhouse.storage.catalog import name_key

START_MS = 1_700_000_000_000
STEP_MS = 1_000
_JSON_COLUMNS = frozenset({"extra", "provider_ids", "locked_fields"})
_BOOL_COLUMNS = frozenset({"missing", "has_nfo", "lock_data", "probe_pending"})


class CatalogFactory:
    """Queues catalogue rows for one Store (see the module docstring)."""

    def __init__(self, store: Store, *, start_ms: int = START_MS) -> None:
        self.store = store
        self._statements: list[Statement] = []
        self._clock = itertools.count(start_ms, STEP_MS)
        self._serial = itertools.count(1)
        self._salt = secrets.token_hex(8)  # two factories on one store never share an id
        self._items: dict[str, dict[str, Any]] = {}

    async def flush(self) -> None:
        """Write every queued row (one transaction)."""
        statements, self._statements = self._statements, []
        if statements:
            await self.store.transaction(_batched(statements))

    def now(self) -> int:
        """The next timestamp of the factory's clock."""
        return next(self._clock)

    def new_id(self, prefix: str = "") -> str:
        """A fresh id: 22 characters of ``[A-Za-z0-9_-]`` like the scanner's."""
        digest = hashlib.blake2b(f"{self._salt}{prefix}{next(self._serial)}".encode(), digest_size=16).hexdigest()
        return (prefix + digest)[:22]

    # -- libraries and items ------------------------------------------------

    def library(self, name: str = "Library", collection_type: str = "mixed", *, id: str | None = None) -> str:
        library_id = id or self.new_id("lib")
        at = self.now()
        self._add(
            "INSERT INTO libraries (id, name, collection_type, options, created_at, updated_at)"
            " VALUES (?, ?, ?, '{}', ?, ?)",
            (library_id, name, collection_type, at, at),
        )
        self._add(
            "INSERT INTO library_paths (library_id, path, position) VALUES (?, ?, 0)",
            (library_id, f"/media/{library_id}"),
        )
        return library_id

    def item(self, library_id: str, item_type: str, name: str, **columns: Any) -> str:
        """Any item; ``columns`` are items columns (JSON ones as Python values)."""
        at = self.now()
        new_id = columns.pop("id", None) or self.new_id()
        row: dict[str, Any] = {
            "id": new_id,
            "library_id": library_id,
            "type": item_type,
            "name": name,
            "sort_name": name,
            "path": f"/media/{library_id}/{name}-{new_id}",
            "date_created": at,
            "date_modified": at,
        }
        row.update(columns)
        row.setdefault("name_key", name_key(row["sort_name"]))
        for column in _JSON_COLUMNS & row.keys():
            if not isinstance(row[column], str):
                row[column] = json.dumps(row[column])
        for column in _BOOL_COLUMNS & row.keys():
            row[column] = int(row[column])
        names = ", ".join(row)
        self._add(f"INSERT INTO items ({names}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values()))
        self._items[row["id"]] = row
        return str(row["id"])

    def movie(self, library_id: str, name: str, **columns: Any) -> str:
        return self.item(library_id, "Movie", name, **columns)

    def series(self, library_id: str, name: str, **columns: Any) -> str:
        return self.item(library_id, "Series", name, path=columns.pop("path", f"/media/{library_id}/{name}"), **columns)

    def season(self, series_id: str, number: int, **columns: Any) -> str:
        series = self._items[series_id]
        columns.setdefault("name", f"Season {number}")
        return self.item(
            series["library_id"], "Season", columns.pop("name"),
            parent_id=series_id, series_id=series_id, index_number=number, **columns,
        )  # fmt: skip

    def episode(self, parent_id: str, number: int, **columns: Any) -> str:
        """An episode of a season, or directly of a series when ``parent_id`` is one."""
        parent = self._items[parent_id]
        if parent["type"] == "Season":
            placement = {
                "series_id": parent["series_id"], "season_id": parent_id,
                "parent_index_number": parent["index_number"],
            }  # fmt: skip
        else:
            placement = {"series_id": parent_id, "season_id": None}
        placement.update(columns)
        name = placement.pop("name", f"Episode {number}")
        return self.item(parent["library_id"], "Episode", name, parent_id=parent_id, index_number=number, **placement)

    def extra(self, owner_id: str, extra_type: str = "Trailer", name: str | None = None, **columns: Any) -> str:
        owner = self._items[owner_id]
        return self.item(
            owner["library_id"], "Video", name or f"{owner['name']} {extra_type}",
            owner_id=owner_id, extra_type=extra_type, **columns,
        )  # fmt: skip

    def part(self, owner_id: str, number: int, **columns: Any) -> str:
        """Part ``number`` (from 2) of a multi-part video."""
        owner = self._items[owner_id]
        return self.item(
            owner["library_id"], "Video", f"{owner['name']} part {number}", owner_id=owner_id,
            extra_type="AdditionalPart", index_number=number, part_number=number, **columns,
        )  # fmt: skip

    def version(self, primary_id: str, name: str | None = None, **columns: Any) -> str:
        primary = self._items[primary_id]
        return self.item(
            primary["library_id"], primary["type"], name or primary["name"],
            version_of=primary_id, parent_id=primary.get("parent_id"), **columns,
        )  # fmt: skip

    # -- media ----------------------------------------------------------------

    def source(self, item_id: str, *, container: str = "mkv", position: int = 0, remote: bool = False,
               probed: bool = True, size: int = 1_000_000_000, bitrate: int = 8_000_000,
               path: str | None = None, **columns: Any) -> str:  # fmt: skip
        source_id = self.new_id("src")
        row = {
            "id": source_id, "item_id": item_id,
            "path": path or f"{self._items[item_id]['path']}.{container}",
            "container": container, "size": size, "bitrate": bitrate, "remote": int(remote),
            "probed_at": self.now() if probed else None, "position": position, **columns,
        }  # fmt: skip
        self._add(f"INSERT INTO media_sources ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values()))
        return source_id

    def stream(self, source_id: str, stream_type: str, codec: str, idx: int, **columns: Any) -> None:
        row = {"source_id": source_id, "idx": idx, "type": stream_type, "codec": codec, **columns}
        for column in ("is_external", "is_default", "is_forced"):
            if column in row:
                row[column] = int(row[column])
        self._add(f"INSERT INTO media_streams ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values()))

    def media(self, item_id: str, *, width: int | None = 1920, height: int | None = 1080,
              video_codec: str = "h264", audio_codec: str = "aac", audio_language: str | None = "eng",
              subtitles: Sequence[tuple[str, str | None, bool]] = (), color_transfer: str | None = None,
              hdr_format: str | None = None, **source: Any) -> str:  # fmt: skip
        """A primary source with one video and one audio stream and ``subtitles``.

        ``subtitles``: (codec, language, external) per track.
        """
        source_id = self.source(item_id, **source)
        if width is not None or height is not None:
            self.stream(source_id, "Video", video_codec, 0, width=width, height=height,
                        color_transfer=color_transfer, hdr_format=hdr_format)  # fmt: skip
        self.stream(source_id, "Audio", audio_codec, 1, language=audio_language, channels=6)
        for n, (codec, language, external) in enumerate(subtitles):
            idx = n if external else n + 2
            self.stream(source_id, "Subtitle", codec, idx, language=language, is_external=external,
                        external_path=f"/subs/{source_id}.{n}.srt" if external else None)  # fmt: skip
        return source_id

    def image(self, item_id: str, kind: str = "primary", idx: int = 0, *, tag: str | None = None,
              width: int | None = 1000, height: int | None = 1500, extra: dict[str, Any] | None = None,
              path: str | None = None, source: str = "local") -> str:  # fmt: skip
        tag = tag or self.new_id("tag")[:12]
        self._add(
            "INSERT INTO images (item_id, kind, idx, path, tag, width, height, size, mtime, source, extra)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (item_id, kind, idx, path or f"/img/{item_id}/{kind}{idx}.jpg", tag, width, height, 1000, self.now(),
             source, json.dumps(extra or {})),
        )  # fmt: skip
        return tag

    # -- people and values ----------------------------------------------------

    def person(self, name: str, *, image_tag: str | None = None) -> str:
        person_id = self.new_id("p")
        at = self.now()
        self._add(
            "INSERT INTO people (id, name, sort_name, image_tag, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            (person_id, name, name, image_tag, at, at),
        )
        return person_id

    def credit(self, item_id: str, person_id: str, kind: str = "Actor", role: str = "", order: int = 0) -> None:
        self._add(
            "INSERT INTO credits (item_id, person_id, kind, role, sort_order) VALUES (?, ?, ?, ?, ?)",
            (item_id, person_id, kind, role, order),
        )

    def member(self, boxset_id: str, item_id: str) -> None:
        """``item_id`` in the BoxSet ``boxset_id`` (collection_items)."""
        self._add("INSERT INTO collection_items (collection_id, item_id, added_at) VALUES (?, ?, ?)",
                  (boxset_id, item_id, self.now()))

    def values(self, item_id: str, kind: str, *values: str) -> None:
        """Genres, studios, tags or countries (``kind`` genre/studio/tag/country), in order."""
        self._add(
            "INSERT INTO item_values (item_id, kind, value, position) VALUES (?, ?, ?, ?)",
            many=[(item_id, kind, value, n) for n, value in enumerate(values)],
        )

    def _add(self, sql: str, params: tuple[Any, ...] = (), *, many: list[tuple[Any, ...]] | None = None) -> None:
        self._statements.append(Statement(sql, params, many))


def _batched(statements: list[Statement]) -> list[Statement]:
    """Consecutive inserts with the same SQL as one executemany (order kept)."""
    batched: list[Statement] = []
    for statement in statements:
        rows = list(statement.many) if statement.many is not None else [statement.params]
        last = batched[-1] if batched else None
        if last is not None and last.sql == statement.sql:
            batched[-1] = Statement(last.sql, many=[*(last.many or ()), *rows])
        elif rows:
            batched.append(Statement(statement.sql, many=rows))
    return batched


@asynccontextmanager
async def catalog(store: Store) -> AsyncIterator[CatalogFactory]:
    """A factory whose queued rows are written when the block ends."""
    factory = CatalogFactory(store)
    yield factory
    await factory.flush()
