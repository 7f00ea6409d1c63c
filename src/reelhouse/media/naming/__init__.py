"""Naming rules: what the files under a library root are, from their names.

Pure functions over names and paths relative to the library root, built on
compiled regular expressions; nothing here reads the file system, blocks
or can be cancelled half-way. Fast enough for the scanner's parse step
(``benchmarks/naming_speed.py``: about 75,000 tidy paths and 40,000
release-style paths a second of one core's CPU time; the slowest of
20,000 names built to be slow takes about 0.3 ms).

The rules follow the conventions users already have (Jellyfin, Kodi and
Plex naming guides, release names). ``docs/naming.md`` is the user's page:
every convention with examples, and the choices where conventions
conflict. The private modules hold the rules by concept:

``_files``
    Videos (55 containers, ``.strm`` pointers, ``.disc`` stubs: an offline
    disc, an item with nothing to play), samples (``sample``, ``-sample``,
    ``.sample``, ``_sample``, `` - sample``, ``sample(s)/`` folders),
    extras by suffix (``-trailer`` ... ``-extra``; a trailer also after
    ``.``, ``_`` or a spaced dash) and folder, theme media (``theme.mp3``,
    ``theme-music/``: ThemeSong; ``backdrops/``, ``theme-videos/``:
    ThemeVideo; extras of the item whose folder holds them).
``_episodes`` / ``_dates``
    Episode markers, strongest first: ``S01E02`` (also ``S01x02``,
    ``S01xE02``) with multi-episode chains; ``1x02`` and year-numbered
    ``2009x03`` with chains (``02x03 - 02x04 - 02x15``, ``02x03-E15``);
    ``Season 1 Episode 2``; dates (year first; year last day first, month
    first only when day first is impossible; ``20210304``; month names);
    ``E12`` and ranges ``E01-E16``; absolute ``Show - 012`` and
    ``[Group] Show [21]`` (with a season before it, ``Show S2 - 05``, the
    season's episode); a leading number or pair (``01 - Pilot``,
    ``02-03 - Title``); chains ``S01E01+02``, ``.and.S01E02``, ``003-004``.
    An anime's dash number is never split into season and episode.
    :func:`parse_trailing_number` reads ``The Simpsons 12`` for files in a
    series folder.
``_numbers``
    Bare numbers after the series name (``Show.Name.05``, ``Show_Name_001``)
    and release codes (``show.name.117`` is 1x17), read where the folders or
    the library say episode; :func:`season_of_absolute` places an absolute
    number by the provider's episodes per season.
``_seasons``
    Season folders in 20+ languages and scripts, number-first
    (``1. évad``) and Chinese (``第1季``) forms, series-prefixed
    (``Stargate SG-1 Season 1``) and release-style (``Show.S04.x264-GRP``)
    folders, ``Season 2 Disc 1``, ``2nd Season``; ``Specials`` is 0; a
    bare number is a season only under a series folder (``_episode_files``).
``_titles`` / ``_text``
    Movie and series titles and years: ``Title (Year)``, release names cut
    at their first junk word, the last bracketed year wins, bare years only
    where they can be years (not the first word, not a full date, not far
    in the future), known release groups glued on (``Movie-HDC``); series
    folders drop season markers (``The.Show.S01``) and ``Complete Series``;
    release tags (``German.DL``, ``Edition Collector``) before the junk go
    too. ``_prefixes``: site and language prefixes (``[ www.Site.com ] -``,
    ``Fr -``).
``_groups`` / ``_versions``
    Multi-part stacks (``cd1``, ``part1``, ``(Disc 01)``, ``]part1``,
    lettered ``-a``; an episode's ``part1`` after its title) and versions
    of one movie (``- 1080p``, ``[Final Cut]``, ``_4K``, ``.UHD``; a lone
    letter is another film) or of one episode (the same episode with
    different labels).
``_3d``
    3D formats (``HSBS``, ``FSBS``, ``HTAB``, ``FTAB``, ``MVC``, or ``3D``)
    recorded on the version, never in titles; ``3D`` inside a title
    (``Step Up 3D``) stays the title's.
``_classify`` / ``_episode_files`` / ``_results``
    :func:`classify`: one path -> movie, episode, extra or skipped, with
    the folders read for context (season folders, series folders,
    grandparent season folders, a movie's own folder, the release folder
    above an obfuscated file).
``_confidence``
    A confidence on every parse; below :data:`LOW_CONFIDENCE` a work's name
    is a guess, left to the scrape queue's identify step.

Sort names drop a leading ``The``, ``A`` or ``An`` (:func:`sort_name`).
"""

from __future__ import annotations

from reelhouse.media.naming._classify import classify, clear_caches
from reelhouse.media.naming._confidence import series_folder_confidence
from reelhouse.media.naming._episodes import (
    STRONG_MARKERS,
    EpisodeMarker,
    EpisodeName,
    parse_episode,
)
from reelhouse.media.naming._files import (
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
from reelhouse.media.naming._groups import (
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
from reelhouse.media.naming._numbers import season_of_absolute
from reelhouse.media.naming._results import (
    LOW_CONFIDENCE,
    Classified,
    EpisodeFile,
    ExtraFile,
    FileKind,
    LibraryKind,
    MovieFile,
    SkippedFile,
    SkipReason,
)
from reelhouse.media.naming._seasons import parse_season_folder, season_series_prefix
from reelhouse.media.naming._titles import (
    MovieName,
    SeriesName,
    parse_movie,
    parse_series_folder,
    sort_name,
)
from reelhouse.media.naming._versions import group_episode_stacks, group_episode_versions

__all__ = [
    "DISC_STUB_EXTENSION",
    "LOW_CONFIDENCE",
    "STRM_EXTENSION",
    "STRONG_MARKERS",
    "THEME_AUDIO_EXTENSIONS",
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
    "clear_caches",
    "extension",
    "extra_suffix",
    "extra_type_of",
    "extras_folder_type",
    "group_episode_stacks",
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
    "season_of_absolute",
    "season_series_prefix",
    "series_folder_confidence",
    "sort_name",
    "split_version",
    "stack_part",
]
