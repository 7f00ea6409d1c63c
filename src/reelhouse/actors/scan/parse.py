"""The parse step of a scan: walked directories -> item records to write.

:class:`Parser` runs in a worker thread, one batch of directories per call,
always in walk order (parents before children), and keeps what later
batches need: this scan's listings, the series and seasons already
drafted, the owners of extras, and the ids it has seen. It reads only
what changed: a draft whose fingerprint equals the stored one (and whose
item is not missing) is seen and skipped without opening a file.

A file that cannot be read (an NFO, an image, a ``.strm``), one that
resolves outside the library's roots (read through
:mod:`reelhouse.storage.confined_files`), an NFO that is malformed or
hostile, or an image file that is not an image (its first bytes are no
known image format) becomes a scan error; the item is still indexed (an
unusable ``.strm`` is not: it has nowhere to point to).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from reelhouse.media.assembly import (
    MAX_STRM_BYTES,
    ImageRecord,
    ItemDraft,
    ItemRecord,
    Listing,
    Metadata,
    ScanRules,
    SeasonRef,
    SeriesRef,
    assemble_directory,
    container_of,
    external_streams,
    fingerprint,
    image_record,
    join_path,
    metadata_from_nfo,
    resolve_owner,
    season_draft,
    season_path,
    series_draft,
    series_path,
    strm_target,
)
from reelhouse.media.containment import Confinement
from reelhouse.media.local_images import sniff_image_type
from reelhouse.media.naming import parse_season_folder, parse_series_folder
from reelhouse.media.nfo import MAX_NFO_BYTES, NfoError, parse_nfo
from reelhouse.storage.catalog import IndexedItem, ScanErrorRow, ScanIndex

from .walk import DirVisit, WalkError, list_directory, read_file, read_whole


@dataclass(slots=True)
class ParsedBatch:
    """Records to write (parents first) and errors, from one parse call."""

    records: list[ItemRecord] = field(default_factory=list)
    errors: list[ScanErrorRow] = field(default_factory=list)
    cleared: list[str] = field(default_factory=list)  # paths whose old errors are gone
    processed: int = 0
    current_dir: str | None = None
    current_path: str | None = None


class Parser:
    """The thread-side state of one scan's parse step (one thread at a time).

    ``rewrite`` ignores fingerprints (every item is written again);
    ``probe_changed`` marks new and changed local files for probing;
    ``within``: where the files it reads may resolve.
    """

    def __init__(
        self, rules: ScanRules, index: ScanIndex, *, rewrite: bool, probe_changed: bool, within: Confinement
    ) -> None:
        self.rules = rules
        self.within = within
        self.index = index
        self.rewrite = rewrite
        self.probe_changed = probe_changed
        self.seen: set[str] = set()
        self.unchanged_dirs: list[str] = []
        self.listings: dict[str, Listing] = {}
        self._files_by_dir = index.files_by_dir()
        self._folders = index.folders_by_path()
        self._drafted: set[str] = set()  # series and seasons handled by this scan
        self._drafted_paths: dict[str, str] = {}  # their folders -> their ids
        self._owners: dict[str, str] = {}  # absolute folder -> owner of extras below it
        self._deferred: list[ItemDraft] = []

    # -- batches -----------------------------------------------------------

    def parse(self, visits: Iterable[DirVisit]) -> ParsedBatch:
        out = ParsedBatch()
        for visit in visits:
            out.processed += 1
            out.current_dir = visit.path
            if visit.listing is None:
                self._unchanged(visit.path)
            else:
                self._directory(visit.path, visit.listing, out)
        return out

    def finish(self) -> ParsedBatch:
        """Extras whose owner is in another directory, now that all are known."""
        out = ParsedBatch()
        deferred, self._deferred = self._deferred, []
        for draft in deferred:
            assert draft.owner_folder is not None
            self._consider(resolve_owner(draft, self._owner(draft.owner_folder)), out)
        return out

    def seen_ids(self) -> set[str]:
        """Every item this scan found, including those in unchanged directories
        and the series and seasons their episodes belong to."""
        return self.seen

    def _unchanged(self, path: str) -> None:
        for item in self._files_by_dir.get(path, ()):
            self.seen.add(item.id)
            if not item.missing:
                self._see_parents(item.series_id, item.season_id)

    def _see_parents(self, *ids: str | None) -> None:
        self.seen.update(i for i in ids if i is not None)

    def _directory(self, path: str, listing: Listing, out: ParsedBatch) -> None:
        self.listings[path] = listing
        self._clear(out, path)
        drafts = assemble_directory(listing, self.rules)
        self._owners.update(drafts.owners)
        known = self._folders.get(path)
        if known is not None:
            self._rebuild_known_folder(known, listing, out)
        for series in drafts.series:
            self._series(series, out)
        for season in drafts.seasons:
            self._season(season, out)
        for draft in drafts.items:
            if draft.owner_folder is not None:
                owner = self._owner(draft.owner_folder)
                if owner is None:
                    self._deferred.append(draft)
                    continue
                draft = resolve_owner(draft, owner)
            self._consider(draft, out)

    # -- series and seasons ----------------------------------------------------

    def _series(self, ref: SeriesRef, out: ParsedBatch) -> None:
        if ref.id in self._drafted:
            return
        self._drafted.add(ref.id)
        path = series_path(ref)
        listing = None
        if path is not None:
            self._drafted_paths[path] = ref.id
            listing = self.listings.get(path)
            if listing is None and self._present(ref.id):
                self.seen.add(ref.id)  # folder unchanged since the last scan
                return
            listing = listing or self._listing(ref.root, ref.rel_folder, out)
        self._consider(series_draft(ref, listing, self.rules), out)

    def _season(self, ref: SeasonRef, out: ParsedBatch) -> None:
        if ref.id in self._drafted:
            return
        self._drafted.add(ref.id)
        self._series(ref.series, out)
        path = season_path(ref)
        self._drafted_paths[path] = ref.id
        if path not in self.listings and self._present(ref.id):
            self.seen.add(ref.id)
            return
        listing = self._listing(ref.root, ref.rel_folder, out)
        series_folder = ref.series.rel_folder
        series_listing = self._listing(ref.root, series_folder, out) if series_folder is not None else None
        self._consider(season_draft(ref, listing, series_listing, self.rules), out)

    def _rebuild_known_folder(self, known: IndexedItem, listing: Listing, out: ParsedBatch) -> None:
        """A listed folder that holds a stored series or season: draft it again
        (its NFO or images may have changed) even when no episode did."""
        if known.type == "Series":
            title = parse_series_folder(_basename(listing.abs_dir) or listing.abs_dir)
            self._series(SeriesRef(known.id, listing.root, listing.rel_dir, title.title, title.year), out)
            return
        series = self.index.items.get(known.series_id or "")
        number = parse_season_folder(_basename(listing.abs_dir))
        if series is None or series.path is None or number is None or not _under(series.path, listing.root):
            return
        rel = series.path[len(listing.root) :].lstrip("/")
        title = parse_series_folder(_basename(series.path) or series.path)
        ref = SeriesRef(series.id, listing.root, rel, title.title, title.year)
        self._season(SeasonRef(known.id, listing.root, listing.rel_dir, number, ref), out)

    def _listing(self, root: str, rel: str | None, out: ParsedBatch) -> Listing | None:
        """This scan's listing of a folder, else a fresh one (kept for reuse)."""
        if rel is None:
            return None
        path = join_path(root, rel)
        found = self.listings.get(path)
        if found is None:
            found, errors = list_directory(root, rel, self.within)
            out.errors.extend(ScanErrorRow(e.path, e.error) for e in errors)
            if found is not None:
                self.listings[path] = found
        return found

    def _present(self, item_id: str) -> bool:
        stored = self.index.items.get(item_id)
        return stored is not None and not stored.missing

    def _owner(self, folder: str) -> str | None:
        """The item owning extras below ``folder``: its movie, season or series."""
        owner = self._owners.get(folder)
        if owner is not None:
            return owner
        owner = self._drafted_paths.get(folder)
        if owner is not None:
            return owner
        known = self._folders.get(folder)
        if known is not None and not known.missing:
            return known.id
        movies = [
            i for i in self._files_by_dir.get(folder, ())
            if i.type == "Movie" and i.version_of is None and not i.missing
        ]  # fmt: skip
        return movies[0].id if len(movies) == 1 else None

    # -- items -------------------------------------------------------------------

    def _consider(self, draft: ItemDraft, out: ParsedBatch) -> None:
        """Seen; and written when new, changed, missing or rewritten."""
        mark = fingerprint(draft, self.rules)
        stored = self.index.items.get(draft.id)
        if stored is not None and not self.rewrite and not stored.missing and stored.scan_hash == mark:
            self._see(draft)
            return
        record = self._record(draft, mark, stored, out)
        if record is not None:
            self._see(draft)
            out.records.append(record)
            out.current_path = draft.path or out.current_path
            if self.index.error_paths:
                nfo = join_path(draft.dir_path, draft.nfo.name) if draft.nfo else None
                self._clear(out, draft.path, nfo, *(image.path for image in draft.images))

    def _clear(self, out: ParsedBatch, *paths: str | None) -> None:
        """Forget earlier errors of paths that read fine now."""
        failed = {e.path for e in out.errors}
        out.cleared.extend(p for p in paths if p in self.index.error_paths and p not in failed)

    def _see(self, draft: ItemDraft) -> None:
        self.seen.add(draft.id)
        self._see_parents(draft.series_id, draft.season_id)

    def _record(self, draft: ItemDraft, mark: str, stored: IndexedItem | None, out: ParsedBatch) -> ItemRecord | None:
        file = draft.file
        changed = stored is None or (
            file is not None and (stored.file_size != file.size or stored.file_mtime != file.mtime_ms)
        )
        source_path = draft.path
        if draft.strm and draft.path is not None:
            source_path = self._strm(draft.path, out)
            if source_path is None:
                return None
        local_file = file is not None and not draft.strm and not draft.offline
        return ItemRecord(
            draft=draft,
            fingerprint=mark,
            is_new=stored is None,
            meta=self._metadata(draft, out),
            images=self._images(draft, out),
            streams=external_streams(draft),
            source_path=source_path,
            container=container_of(file.name) if file is not None else "",
            file_changed=changed,
            probe=self.probe_changed and local_file and changed,
        )

    def _metadata(self, draft: ItemDraft, out: ParsedBatch) -> Metadata | None:
        if draft.nfo is None or not self.rules.use_nfo or draft.nfo_kind is None:
            return None
        path = join_path(draft.dir_path, draft.nfo.name)
        try:
            data = read_file(path, MAX_NFO_BYTES, self.within)
            return metadata_from_nfo(draft, parse_nfo(data, draft.nfo_kind))  # type: ignore[arg-type]
        except NfoError as exc:
            out.errors.append(ScanErrorRow(path, f"The NFO file was not used: {exc.message}."))
        except OSError as exc:
            out.errors.append(ScanErrorRow(path, f"The NFO file could not be read: {_describe(exc)}."))
        return None

    def _images(self, draft: ItemDraft, out: ParsedBatch) -> tuple[ImageRecord, ...]:
        found: list[ImageRecord] = []
        for image in draft.images:
            path = image.path
            stored = self.index.images.get(path)
            if stored is not None and stored.size == image.file.size and stored.mtime == image.file.mtime_ms:
                found.append(
                    ImageRecord(
                        path, image.kind, image.index, stored.tag, stored.width, stored.height,
                        image.file.size, image.file.mtime_ms,
                    )
                )
                continue
            try:
                data = read_whole(path, self.within)
            except OSError as exc:
                out.errors.append(ScanErrorRow(path, f"The image could not be read: {_describe(exc)}."))
                continue
            if sniff_image_type(data) is None:
                not_image = "The file is not an image (JPEG, PNG, WebP, GIF or BMP); it is not used."
                out.errors.append(ScanErrorRow(path, not_image))
                continue
            found.append(image_record(path, image.kind, image.index, image.file.size, image.file.mtime_ms, data))
        return tuple(found)

    def _strm(self, path: str, out: ParsedBatch) -> str | None:
        try:
            return strm_target(read_file(path, MAX_STRM_BYTES, self.within))
        except ValueError as exc:
            out.errors.append(ScanErrorRow(path, f"The .strm file was not used: {exc}."))
        except OSError as exc:
            out.errors.append(ScanErrorRow(path, f"The .strm file could not be read: {_describe(exc)}."))
        return None


def walk_error_rows(errors: Iterable[WalkError]) -> list[ScanErrorRow]:
    return [ScanErrorRow(e.path, e.error) for e in errors]


def _basename(path: str) -> str:
    return path.rstrip("/").rpartition("/")[2]


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _describe(exc: OSError) -> str:
    return f"{exc.strerror or type(exc).__name__} (errno {exc.errno})" if exc.errno is not None else str(exc)
