"""One directory listing -> item drafts (movies, versions, stacks, episodes, extras).

Private to ``reelhouse.media.assembly`` (which documents the rules). Pure:
the listing holds names, sizes and times; nothing is read from disk.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reelhouse.media.assembly._meta import date_ms
from reelhouse.media.assembly._model import (
    COMPANION_SUFFIXES,
    IMAGE_SUFFIXES,
    NFO_EXTENSION,
    VIDEO_OR_STRM,
    CompanionFile,
    DirectoryDrafts,
    FileStat,
    ImageFile,
    ItemDraft,
    Listing,
    ScanRules,
    SeasonRef,
    SeriesRef,
    item_id,
    join_path,
)
from reelhouse.media.assembly._versions import episode_versions, is_theme_audio
from reelhouse.media.companions import match_companions
from reelhouse.media.file_names import readable
from reelhouse.media.local_images import ImageContext, classify_image
from reelhouse.media.naming import (
    EpisodeFile,
    ExtraFile,
    MovieFile,
    MovieName,
    classify,
    extension,
    group_stacks,
    group_versions,
    parse_movie,
    parse_season_folder,
    parse_series_folder,
    season_series_prefix,
    sort_name,
)
from reelhouse.media.nfo import nfo_candidates
from reelhouse.media.probe import StreamType

_Main = tuple[FileStat, MovieFile]


@dataclass(frozen=True, slots=True)
class _Version:
    first: _Main
    parts: tuple[_Main, ...]


@dataclass(frozen=True, slots=True)
class _Unit:
    """One movie: its versions, primary first; ``base`` names it."""

    base: str
    versions: tuple[_Version, ...]


class _Dir:
    """One listing, sorted into videos and the files that go with them."""

    def __init__(self, listing: Listing, rules: ScanRules, *, videos: bool = True) -> None:
        self.listing = listing
        self.rules = rules
        self.abs_dir = listing.abs_dir
        self.mains: list[_Main] = []
        self.episodes: list[tuple[FileStat, EpisodeFile]] = []
        self.extras: list[tuple[FileStat, ExtraFile]] = []
        self.nfos: dict[str, FileStat] = {}
        self.images: list[FileStat] = []
        self.companion_files: list[FileStat] = []
        self._claimed: set[FileStat] = set()  # images named for a video
        prefix = f"{listing.rel_dir}/" if listing.rel_dir else ""
        self._videos = videos
        for file in listing.files:
            self._sort(file, prefix)
        self.video_stems = {
            _stem(f.name).casefold(): _stem(f.name)
            for f, _ in (*self.mains, *self.episodes, *self.extras)
        }
        self._companions = self._match_companions()
        self._stem_images = self._match_images()

    def _sort(self, file: FileStat, prefix: str) -> None:
        ext = extension(file.name)
        if ext in VIDEO_OR_STRM:
            if not self._videos:
                return
            if self.rules.excluded(file, ext, file.name[: -len(ext)]):
                return
            found = classify(prefix + file.name, self.rules.kind)
            if isinstance(found, MovieFile):
                self.mains.append((file, found))
            elif isinstance(found, EpisodeFile):
                self.episodes.append((file, found))
            elif isinstance(found, ExtraFile):
                self.extras.append((file, found))
        elif ext == NFO_EXTENSION:
            self.nfos[file.name.casefold()] = file
        elif ext in IMAGE_SUFFIXES:
            self.images.append(file)
        elif ext in COMPANION_SUFFIXES:
            theme = classify(prefix + file.name, self.rules.kind) if self._videos and is_theme_audio(ext) else None
            if isinstance(theme, ExtraFile):
                self.extras.append((file, theme))  # `theme.mp3`: a ThemeSong extra
            else:
                self.companion_files.append(file)

    def path_of(self, file: FileStat) -> str:
        return join_path(self.abs_dir, file.name)

    def video_id(self, file: FileStat) -> str:
        return item_id(self.rules.library_id, "video", self.path_of(file))

    def nfo(self, names: Iterable[str]) -> FileStat | None:
        for name in names:
            found = self.nfos.get(name.casefold())
            if found is not None:
                return found
        return None

    def companions(self, stem: str) -> tuple[CompanionFile, ...]:
        return self._companions.get(stem.casefold(), ())

    def stem_images(self, stem: str, context: ImageContext) -> list[ImageFile]:
        found: list[ImageFile] = []
        for file in self._stem_images.get(stem.casefold(), ()):
            ref = classify_image(file.name, video_stem=stem, context=context)
            if ref is not None:
                found.append(ImageFile(file, ref.kind.value, ref.index, self.path_of(file)))
        return found

    def named_images(self, context: ImageContext, season: int | None = None) -> list[ImageFile]:
        """Images named for the folder's item (``poster.jpg``), not for a video."""
        found: list[ImageFile] = []
        for file in self.images:
            if file in self._claimed:
                continue
            ref = classify_image(file.name, video_stem=None, context=context)
            if ref is not None and ref.season == season:
                found.append(ImageFile(file, ref.kind.value, ref.index, self.path_of(file)))
        return found

    def _match_companions(self) -> dict[str, tuple[CompanionFile, ...]]:
        by_stem: dict[str, list[FileStat]] = {}
        for file in self.companion_files:
            owner = _longest_prefix(file.name, ".", self.video_stems)
            if owner is not None:
                by_stem.setdefault(owner, []).append(file)
        matched: dict[str, tuple[CompanionFile, ...]] = {}
        for key, files in by_stem.items():
            stem = self.video_stems[key]
            stats = {f.name: f for f in files}
            found = match_companions(stem, stats)
            if not self.rules.external_audio:
                found = [c for c in found if c.kind is not StreamType.AUDIO]
            matched[key] = tuple(CompanionFile(stats[c.file_name], c) for c in found)
        return matched

    def _match_images(self) -> dict[str, list[FileStat]]:
        by_stem: dict[str, list[FileStat]] = {}
        for file in self.images:
            base = _stem(file.name)
            key = base.casefold()
            owner = key if key in self.video_stems else _longest_prefix(base, "-", self.video_stems)
            if owner is not None:
                by_stem.setdefault(owner, []).append(file)
                self._claimed.add(file)
        return by_stem


def _stem(name: str) -> str:
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def _longest_prefix(name: str, separator: str, stems: Mapping[str, str]) -> str | None:
    """The longest casefolded key of ``stems`` that ``name`` starts with,
    followed by ``separator``."""
    folded = name.casefold()
    best: str | None = None
    position = folded.find(separator, 1)
    while position != -1:
        candidate = folded[:position]
        if candidate in stems:
            best = candidate
        position = folded.find(separator, position + 1)
    return best


def assemble_directory(listing: Listing, rules: ScanRules) -> DirectoryDrafts:
    """Drafts for the videos directly in ``listing`` (see ``assemble``)."""
    folder = _Dir(listing, rules)
    movies, stem_owner, folder_movie = _movies(folder)
    episodes, series, seasons = _episodes(folder)
    pairs = zip(folder.episodes, episodes, strict=True)
    stem_owner.update({_stem(f.name).casefold(): item.id for (f, _), item in pairs})
    local_owner = folder_movie or _folder_item(folder, seasons, series)
    extras = _extras(folder, stem_owner, local_owner)
    owners = {folder.abs_dir: folder_movie} if folder_movie else {}
    return DirectoryDrafts(
        items=(*movies, *episodes, *extras),
        series=tuple(series.values()),
        seasons=tuple(seasons.values()),
        owners=owners,
    )


# -- movies ------------------------------------------------------------------


def _movies(folder: _Dir) -> tuple[list[ItemDraft], dict[str, str], str | None]:
    """Movie drafts (primaries, then versions, then later parts), the
    owner id by video stem, and the folder's own movie."""
    rel_dir = folder.listing.rel_dir
    own = [m for m in folder.mains if m[1].folder is not None]
    flat = [m for m in folder.mains if m[1].folder is None]
    own_units = _units(own, rel_dir.rpartition("/")[2] if own else None)
    units = own_units + _units(flat, None)
    folder_unit = _folder_unit(own_units)
    drafts: list[ItemDraft] = []
    later: list[ItemDraft] = []
    stem_owner: dict[str, str] = {}
    folder_movie: str | None = None
    for unit in units:
        is_folder_movie = unit is folder_unit
        name = _unit_name(unit, is_folder_movie)
        primary_id = folder.video_id(unit.versions[0].first[0])
        if is_folder_movie:
            folder_movie = primary_id
        for position, version in enumerate(unit.versions):
            movie = _movie_draft(folder, version, name, primary_id if position else None, is_folder_movie)
            (drafts if position == 0 else later).append(movie)
            later.extend(_part_drafts(folder, version, movie))
            for file, _ in (version.first, *version.parts):
                stem_owner[_stem(file.name).casefold()] = primary_id
        stem_owner.setdefault(unit.base.casefold(), primary_id)
    return drafts + later, stem_owner, folder_movie


def _units(mains: list[_Main], folder_name: str | None) -> list[_Unit]:
    if len(mains) <= 1:  # the common case: nothing to group
        return [_Unit(_stem(m[0].name), (_Version(m, ()),)) for m in mains]
    by_stem: dict[str, _Main] = {}
    units: list[_Unit] = []
    for main in mains:
        stem = _stem(main[0].name)
        if stem in by_stem:  # Movie.mkv and Movie.avi: two movies
            units.append(_Unit(stem, (_Version(main, ()),)))
        else:
            by_stem[stem] = main
    used: set[str] = set()
    for group in group_versions(list(by_stem), folder_name):
        versions = tuple(
            _Version(by_stem[v.stem], tuple(by_stem[p] for p in v.parts)) for v in group.versions
        )
        units.append(_Unit(group.base, versions))
        used.update(s for v in group.versions for s in (v.stem, *v.parts))
    rest = [stem for stem in by_stem if stem not in used]
    for stack in group_stacks(rest):
        parts = tuple(by_stem[s] for s in stack.stems)
        units.append(_Unit(stack.base, (_Version(parts[0], parts[1:]),)))
        used.update(stack.stems)
    units.extend(_Unit(s, (_Version(by_stem[s], ()),)) for s in rest if s not in used)
    units.sort(key=lambda unit: (unit.base.casefold(), unit.base))
    return units


def _unit_name(unit: _Unit, folder_movie: bool) -> MovieName:
    """The folder's name for the folder's movie; else the file's (or the
    stack's or versions') base name."""
    first = unit.versions[0].first[1]
    plain = len(unit.versions) == 1 and not unit.versions[0].parts
    if folder_movie or (plain and first.folder is None):
        return first.name
    return parse_movie(unit.base)


def _folder_unit(own_units: list[_Unit]) -> _Unit | None:
    """The movie a movie folder is named for: its versions, else the first
    movie by name (usually the only one)."""
    if not own_units:
        return None
    versions = [u for u in own_units if len(u.versions) > 1]
    return versions[0] if versions else own_units[0]


def _movie_draft(
    folder: _Dir, version: _Version, name: MovieName, version_of: str | None, folder_movie: bool
) -> ItemDraft:
    file, found = version.first
    stem = _stem(file.name)
    candidates = nfo_candidates(stem, "movie")
    if version.parts and found.stack is not None:
        candidates.insert(1, f"{found.stack.base}.nfo")
    if not folder_movie:
        candidates = [c for c in candidates if c != "movie.nfo"]
    images = folder.stem_images(stem, "movie")
    if folder_movie:
        images += folder.named_images("movie")
    return ItemDraft(
        id=folder.video_id(file),
        type="Movie",
        offline=found.offline,
        format3d=found.format3d,
        path=folder.path_of(file),
        dir_path=folder.abs_dir,
        name=readable(name.title),
        sort_name=sort_name(readable(name.title)),
        file=file,
        strm=found.strm,
        production_year=name.year,
        version_of=version_of,
        nfo=folder.nfo(candidates),
        nfo_kind="movie",
        images=_unique_images(images),
        companions=folder.companions(stem),
    )


def _part_drafts(folder: _Dir, version: _Version, movie: ItemDraft) -> list[ItemDraft]:
    return [
        ItemDraft(
            id=folder.video_id(file),
            type="Video",
            path=folder.path_of(file),
            dir_path=folder.abs_dir,
            name=movie.name,
            sort_name=movie.sort_name,
            file=file,
            strm=found.strm,
            production_year=movie.production_year,
            extra_type="AdditionalPart",
            part_number=number,
            index_number=number,
            owner_id=movie.id,
            companions=folder.companions(_stem(file.name)),
        )
        for number, (file, found) in enumerate(version.parts, start=2)
    ]


def _unique_images(images: list[ImageFile]) -> tuple[ImageFile, ...]:
    """First image of each kind and index wins (named for the video first)."""
    seen: set[tuple[str, int]] = set()
    kept: list[ImageFile] = []
    for image in images:
        key = (image.kind, image.index)
        if key not in seen:
            seen.add(key)
            kept.append(image)
    return tuple(sorted(kept, key=lambda i: (i.kind, i.index)))


# -- episodes ------------------------------------------------------------------


def _episodes(folder: _Dir) -> tuple[list[ItemDraft], dict[str, SeriesRef], dict[str, SeasonRef]]:
    drafts: list[ItemDraft] = []
    series: dict[str, SeriesRef] = {}
    seasons: dict[str, SeasonRef] = {}
    for file, found in folder.episodes:
        series_ref = series_ref_of(folder.listing.root, found, folder.rules.library_id)
        series.setdefault(series_ref.id, series_ref)
        season_ref = _season_ref(folder, found, series_ref)
        if season_ref is not None:
            seasons.setdefault(season_ref.id, season_ref)
        drafts.append(_episode_draft(folder, file, found, series_ref, season_ref))
    return episode_versions(drafts), series, seasons


def series_ref_of(root: str, found: EpisodeFile, library_id: str) -> SeriesRef:
    """The series of an episode: its series folder, else the library root
    when the episode is in a season folder named for no series or names no
    series, else a series named by the file name or by its season folder
    (``The.Show.S01.720p``) alone."""
    if found.series_folder is not None and found.series is not None:
        rel: str | None = found.series_folder
        title, year = found.series.title, found.series.year
    elif found.series is None or (
        found.season_folder is not None and not season_series_prefix(found.season_folder.rpartition("/")[2])
    ):
        rel = ""
        parsed = parse_series_folder(root.rstrip("/").rpartition("/")[2] or root)
        title, year = parsed.title, parsed.year
    else:
        rel, title, year = None, found.series.title, found.series.year
    key = join_path(root, rel) if rel is not None else f"{root}\x00{title.casefold()}"
    return SeriesRef(item_id(library_id, "series", key), root, rel, title, year)


def _season_ref(folder: _Dir, found: EpisodeFile, series: SeriesRef) -> SeasonRef | None:
    if found.season_folder is None:
        return None
    number = parse_season_folder(found.season_folder.rpartition("/")[2])
    if number is None:
        return None
    path = join_path(folder.listing.root, found.season_folder)
    season_id = item_id(folder.rules.library_id, "season", path)
    return SeasonRef(season_id, folder.listing.root, found.season_folder, number, series)


def _episode_draft(
    folder: _Dir, file: FileStat, found: EpisodeFile, series: SeriesRef, season: SeasonRef | None
) -> ItemDraft:
    stem = _stem(file.name)
    name = readable(_episode_name(found, stem))
    return ItemDraft(
        id=folder.video_id(file),
        type="Episode",
        offline=found.offline,
        format3d=found.format3d,
        path=folder.path_of(file),
        dir_path=folder.abs_dir,
        name=name,
        sort_name=name,
        file=file,
        strm=found.strm,
        premiere_date_ms=date_ms(found.air_date),
        index_number=found.episode,
        index_number_end=found.episode_end,
        parent_index_number=found.season,
        parent_id=season.id if season is not None else series.id,
        series_id=series.id,
        season_id=season.id if season is not None else None,
        nfo=folder.nfo(nfo_candidates(stem, "episode")),
        nfo_kind="episode",
        images=_unique_images(folder.stem_images(stem, "episode")),
        companions=folder.companions(stem),
    )


def _episode_name(found: EpisodeFile, stem: str) -> str:
    if found.marker is not None and found.title:
        return found.title
    if found.episode is not None:
        return f"Episode {found.episode}"
    if found.air_date is not None:
        return found.air_date.isoformat()
    return found.title or stem



# -- extras --------------------------------------------------------------------


def _folder_item(folder: _Dir, seasons: dict[str, SeasonRef], series: dict[str, SeriesRef]) -> str | None:
    """The season or series whose own folder this is, when its episodes are here."""
    rel_dir = folder.listing.rel_dir
    for season in seasons.values():
        if season.rel_folder == rel_dir:
            return season.id
    for ref in series.values():
        if ref.rel_folder == rel_dir:
            return ref.id
    return None


def _extras(folder: _Dir, stem_owner: dict[str, str], local_owner: str | None) -> list[ItemDraft]:
    rel_dir = folder.listing.rel_dir
    drafts: list[ItemDraft] = []
    counters: dict[str, int] = {}
    ordered = sorted(folder.extras, key=lambda e: (e[1].extra_type.value, e[1].title.casefold(), e[0].name))
    for file, found in ordered:
        owner = stem_owner.get(found.owner_stem.casefold()) if found.owner_stem else None
        same_folder = (found.owner_folder or "") == rel_dir
        if owner is None and same_folder:
            owner = local_owner
        owner_folder = None if owner else join_path(folder.listing.root, found.owner_folder or "")
        key = owner or owner_folder or ""
        counters[key] = counters.get(key, 0) + 1
        drafts.append(
            ItemDraft(
                id=folder.video_id(file),
                type="Video",
                path=folder.path_of(file),
                dir_path=folder.abs_dir,
                name=readable(found.title),
                sort_name=readable(found.title),
                file=file,
                strm=found.strm,
                extra_type=found.extra_type.value,
                index_number=counters[key],
                owner_id=owner,
                owner_folder=owner_folder,
                companions=folder.companions(_stem(file.name)),
            )
        )
    return drafts
