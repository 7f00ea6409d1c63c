"""Naming rules: what the files under a library root are, from their names.

Pure functions over names and paths relative to the library root, built on
compiled regular expressions; nothing here reads the file system, blocks
or can be cancelled half-way. Fast enough for the scanner's parse step
(``benchmarks/naming_speed.py``: well over 50,000 paths a second).

The rules follow the conventions users already have (Jellyfin, Kodi and
Plex naming guides). Where those disagree or are ambiguous, Reelhouse's
choice is stated here.

Videos
    ``VIDEO_EXTENSIONS`` (55 containers) and ``.strm`` pointer files.
    Dot-files (``._Movie.mkv``) and dot-folders are hidden, files under
    ``VIDEO_TS``/``BDMV`` are disc pieces, ``backdrops``/``theme-music``
    hold theme media: :func:`classify` skips all of these.

Sample rule (api-decisions)
    A stem ``sample``, a stem ending ``-sample`` / ``.sample``, or a file in
    a ``sample`` / ``samples`` folder is never indexed.

Movies
    ``Title (Year)`` in a folder or flat; release names
    (``Title.2010.1080p.BluRay.x264-GRP``: dots and underscores become
    spaces, dotted acronyms like ``S.W.A.T.`` stay); ``[tags]`` and
    ``{ids}`` anywhere. The last parenthesised year wins
    (``2001 A Space Odyssey (1968)``). A bare year counts when it is not
    the first word and lies before the release junk (``1917`` alone is a
    title; ``1917.2019.1080p`` is 1917 of 2019); bare years more than five
    years ahead stay in the title (``Blade Runner 2049``). A movie in its
    own folder (the folder has a year, or the stem starts with the folder's
    title) takes its name from the folder.

Series
    Markers, strongest first: ``S01E02`` / ``s1e2`` / ``S01.E02``;
    multi-episode ``S01E01-E02``, ``S01E01E02``, ``S01E01-02``,
    ``S01E01-S01E02``; ``1x02`` (``1x02-03``); ``Season 1 Episode 2``;
    dated ``2021-03-04`` / ``2021.03.04`` (year first only: ``04.03.2021``
    is ambiguous between day-first and month-first and is not a date);
    ``E12`` / ``Episode 12``; absolute ``Show - 012`` (anime,
    ``[Group] Show - 012 [1080p]``); a leading number (``01 - Pilot``).
    Absolute numbers are only read after `` - `` (or ``_-_``), where they
    cannot be a year or a resolution.
    Ambiguous: ``Season 1/Show - 102.mkv``. Kodi would read S01E02; Reelhouse
    never splits a bare number: it is episode 102 (absolute 102) of season
    1. Splitting would misfile every anime episode 100-199 kept in a
    ``Season 1`` folder, while the literal reading still sorts a
    ``101, 102, ...`` season in order.
    Season folders: ``Season 1``, ``Season 01``, ``S1``, ``S01``,
    ``Series 1``, ``Staffel 2``, ``Saison 3``, ``Temporada 4`` (and a few
    more languages); ``Specials`` and ``Season 00`` are season 0; a bare
    number is not a season folder. Episodes may sit directly under the
    series folder. The season in the file name wins over the folder's.

Extras
    Suffixes ``-trailer``, ``-behindthescenes``, ``-deleted``,
    ``-featurette``, ``-interview``, ``-scene``, ``-short``, ``-clip``,
    ``-other``, optionally numbered (``-trailer2``); a trailer also as
    ``.trailer`` / ``_trailer`` (Kodi), other types only after ``-`` so
    that ``The.Interview`` stays a title; folders ``extras``, ``trailers``, ``behind the scenes``,
    ``deleted scenes``, ``featurettes``, ``interviews``, ``scenes``,
    ``shorts``, ``clips``, ``other`` anywhere below the item folder (an
    extras-named folder at the library root is a collection, not extras);
    ``trailer.mkv`` alone in an item folder. A ``.trailer`` on a name with
    an episode marker (``Show.S01E05.The.Trailer``) is a title.

Multi-part stacks
    ``cd1``, ``dvd1``, ``part1``, ``pt1``, ``disc1``/``disk1`` and lettered
    ``-a``/``-b`` (or ``part a``), grouped by :func:`group_stacks` only when
    2+ parts with the same base run 1, 2, ... without a gap. The first part
    is the item; later parts are its ``AdditionalPart`` parts.

Versions
    ``Movie (2010) - 1080p``, ``Movie (2010) - 4K``, ``Movie (2010) -
    Director's Cut`` (or ``Movie (2010) [4K]``) in one folder are versions
    of one movie (:func:`group_versions`). Primary: the plain name if
    present, else the highest resolution in the label, else the label first
    alphabetically (case-insensitive).

Sort names
    A leading ``The``, ``A`` or ``An`` is dropped (:func:`sort_name`).
"""

from __future__ import annotations

from reelhouse.media._naming_classify import (
    Classified,
    EpisodeFile,
    ExtraFile,
    FileKind,
    LibraryKind,
    MovieFile,
    SkippedFile,
    SkipReason,
    classify,
)
from reelhouse.media._naming_episodes import (
    STRONG_MARKERS,
    EpisodeMarker,
    EpisodeName,
    parse_episode,
)
from reelhouse.media._naming_seasons import parse_season_folder, season_series_prefix
from reelhouse.media._naming_files import (
    DISC_STUB_EXTENSION,
    STRM_EXTENSION,
    THEME_AUDIO_EXTENSIONS,
    VIDEO_EXTENSIONS,
    ExtraSuffix,
    ExtraType,
    extension,
    extra_suffix,
    extra_type_of,
    extras_folder_type,
    is_sample,
    is_video,
)
from reelhouse.media._naming_groups import (
    Stack,
    StackPart,
    Version,
    VersionGroup,
    group_stacks,
    group_versions,
    resolution_rank,
    split_version,
    stack_part,
)
from reelhouse.media._naming_versions import group_episode_versions
from reelhouse.media._naming_titles import (
    MovieName,
    SeriesName,
    parse_movie,
    parse_series_folder,
    sort_name,
)

__all__ = [
    "DISC_STUB_EXTENSION",
    "STRM_EXTENSION",
    "THEME_AUDIO_EXTENSIONS",
    "STRONG_MARKERS",
    "VIDEO_EXTENSIONS",
    "Classified",
    "EpisodeFile",
    "EpisodeMarker",
    "EpisodeName",
    "ExtraFile",
    "ExtraSuffix",
    "ExtraType",
    "FileKind",
    "LibraryKind",
    "MovieFile",
    "MovieName",
    "SeriesName",
    "SkipReason",
    "SkippedFile",
    "Stack",
    "StackPart",
    "Version",
    "VersionGroup",
    "classify",
    "extension",
    "extra_suffix",
    "extra_type_of",
    "extras_folder_type",
    "group_episode_versions",
    "group_stacks",
    "group_versions",
    "is_sample",
    "is_video",
    "parse_episode",
    "parse_movie",
    "parse_season_folder",
    "parse_series_folder",
    "resolution_rank",
    "season_series_prefix",
    "sort_name",
    "split_version",
    "stack_part",
]
