"""The names downloads really leave (issue #32): one table per shape.

Every name here is made up for these tables. Each case: (path relative to
the library root, library kind, expected attributes of classify()).
"""

from typing import Any

from reelhouse.media.naming import EpisodeMarker, MovieName, SeriesName, StackPart

Case = tuple[str, str, dict[str, Any]]

# A bare episode number after the series name.
BARE_NUMBERS: list[Case] = [
    ("[Lantern] Paper Kites - 13 [1080p].mkv", "tvshows",
     {"series": SeriesName("Paper Kites", None), "episode": 13, "absolute": 13}),
    ("Paper_Kites_001.mkv", "tvshows",
     {"series": SeriesName("Paper Kites", None), "episode": 1, "marker": EpisodeMarker.ABSOLUTE}),
    ("Paper Kites/Paper_Kites_024.mkv", "tvshows", {"episode": 24, "absolute": 24}),
    ("Harbor.Lights.05.The.Storm.720p.mkv", "tvshows",
     {"series": SeriesName("Harbor Lights", None), "episode": 5, "title": "The Storm",
      "marker": EpisodeMarker.BARE}),
    ("Harbor Lights/Harbor.Lights.11.WEB-DL.mkv", "tvshows", {"episode": 11, "title": None}),
    ("Harbor Lights/Harbor Lights 07 Low Tide.mkv", "tvshows", {"episode": 7, "title": "Low Tide"}),
    ("Harbor.Lights.2019.04.720p.mkv", "tvshows",
     {"series": SeriesName("Harbor Lights", 2019), "episode": 4}),
    # a group in front makes a spaced name a release: its number is anime's
    ("[Lantern] Paper Kites 13 [1080p].mkv", "tvshows",
     {"series": SeriesName("Paper Kites", None), "episode": 13, "absolute": 13}),
    # a hand-named title at the root keeps its number; a year is never an episode
    ("Route 66.mkv", "tvshows", {"episode": None, "title": "Route 66"}),
    ("[1080p] Route 66.mkv", "tvshows", {"episode": None, "title": "Route 66"}),
    ("Harbor Lights/Harbor Lights 2016.mkv", "tvshows", {"episode": None}),
    # movies are never read this way
    ("Rocket.88.1999.1080p.mkv", "movies", {"name": MovieName("Rocket 88", 1999)}),
]

# Three- and four-digit codes: season then two digits of episode.
CODES: list[Case] = [
    ("quiet.acres.117.hdtv.mp4", "tvshows",
     {"series": SeriesName("quiet acres", None), "season": 1, "episode": 17, "marker": EpisodeMarker.CODE}),
    ("quiet.acres.2401.mkv", "tvshows", {"season": 24, "episode": 1}),
    ("Quiet Acres/Quiet Acres [401].mkv", "tvshows", {"season": 4, "episode": 1}),
    ("Quiet Acres/Season 3/quiet.acres.305.720p.mkv", "tvshows", {"season": 3, "episode": 5}),
    # a one-word series before the code, a group with a space after it
    ("quiet.305.hdtv-Night Owls.mp4", "tvshows", {"series": SeriesName("quiet", None), "season": 3, "episode": 5}),
    ("Quiet/Saison 3/quiet.305.hdtv-Night Owls.mp4", "tvshows", {"season": 3, "episode": 5}),
    # a code that disagrees with its season folder is an episode number
    ("Quiet Acres/Season 2/quiet.acres.117.mkv", "tvshows", {"season": 2, "episode": 117}),
    # leading zero, large episode parts and years are not codes
    ("quiet.acres.012.mkv", "tvshows", {"season": None, "episode": 12}),
    ("quiet.acres.150.mkv", "tvshows", {"season": None, "episode": 150}),
    ("Quiet Acres/quiet.acres.2011.mkv", "tvshows", {"episode": None}),
    # a group in front makes a bracketed number anime's absolute number
    ("[Lantern] Quiet Acres [121][720p].mkv", "tvshows", {"season": None, "episode": 121, "absolute": 121}),
    # an anime's spaced dash number is never split
    ("Quiet Acres/Quiet Acres - 117.mkv", "tvshows", {"season": None, "episode": 117}),
]

# Release words: languages, editions, sources after a space or a bracket, groups with spaces.
RELEASE_WORDS: list[Case] = [
    ("Copper.Sky.2011.German.DL.1080p.BluRay.x264-GRP.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper Sky 2011 TRUEFRENCH 720p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper Sky (2011) Edition Collector.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper Sky (BD 1080p).mkv", "movies", {"name": MovieName("Copper Sky", None)}),
    ("Copper Sky (2011 BD 1080p).mkv", "movies", {"name": MovieName("Copper Sky", 2011, ("BD 1080p",))}),
    ("Copper Sky (2011 BD 1080p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper.Sky.German.DL.720p.WEB.mkv", "movies", {"name": MovieName("Copper Sky", None)}),
    ("Copper.Sky.Extended.1080p.mkv", "movies", {"name": MovieName("Copper Sky", None)}),
    ("Copper.Sky.2011.1080p.BluRay.x264-Night Owls.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper.Sky.1080p.x264-Night Owls.mkv", "movies", {"name": MovieName("Copper Sky", None)}),
    ("Glass.Orchard.S01E03.German.DL.720p.mkv", "tvshows", {"episode": 3, "title": None}),
    ("Glass.Orchard.S01E03.TRUEFRENCH.mkv", "tvshows", {"episode": 3, "title": None}),
    ("Glass Orchard - S01E03 - The Old Well (WEB 1080p).mkv", "tvshows", {"title": "The Old Well"}),
    ("Glass.Orchard.S01E03.VOSTFR.WEB.mkv", "tvshows", {"title": None}),
    ("Glass.Orchard.S01E03.2019.1080p.mkv", "tvshows", {"title": None}),
    ("Glass.Orchard.S01E03.The.Final.Extended.mkv", "tvshows", {"title": "The Final Extended"}),
    ("Copper Sky.2011.1080p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper.Sky.2011.iTALiAN.BDRip.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper Sky (2011) VOSTFR.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper.Sky.VOSTFR.mkv", "movies", {"name": MovieName("Copper Sky", None)}),
    # a release's second title after AKA
    ("Copper.Sky.AKA.Amber.Road.2011.1080p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper Sky AKA Amber Road 2011.mkv", "movies", {"name": MovieName("Copper Sky AKA Amber Road", 2011)}),
    # an edition of two words before a release's year
    ("Copper.Sky.Edition.Collector.2011.1080p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper.Sky.Directors.Cut.2011.720p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Copper Sky Extended Edition 2011.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    # the same words inside a title stay
    ("The German Clockmaker (2014).mkv", "movies", {"name": MovieName("The German Clockmaker", 2014)}),
    ("The.Final.Cut.2004.1080p.mkv", "movies", {"name": MovieName("The Final Cut", 2004)}),
    # a hand-spaced name ending with a language word keeps it; a tag no title uses goes
    ("The Good German.mkv", "movies", {"name": MovieName("The Good German", None)}),
    ("The Good German/The Good German.mkv", "movies", {"name": MovieName("The Good German", None)}),
    ("Glass Orchard/Season 1/Glass Orchard - S01E02 - The Good German.mkv", "tvshows",
     {"title": "The Good German"}),
    ("Copper Sky VOSTFR.mkv", "movies", {"name": MovieName("Copper Sky", None)}),
    ("The.Special.Edition.2011.mkv", "movies", {"name": MovieName("The Special Edition", 2011)}),
    ("The.Extended.Family.2014.720p.mkv", "movies", {"name": MovieName("The Extended Family", 2014)}),
]

# A year kept in a series name is the series' year.
SERIES_YEARS: list[Case] = [
    ("Night.Ferry.2005.S04E06.720p.mkv", "tvshows",
     {"series": SeriesName("Night Ferry", 2005), "season": 4, "episode": 6}),
    ("night.ferry.2019.s01e02.mkv", "tvshows", {"series": SeriesName("night ferry", 2019)}),
    # a hand-spaced name keeps its number (`Station 1999` may be the title)
    ("Station 1999 - S01E02.mkv", "tvshows", {"series": SeriesName("Station 1999", None)}),
    ("Night Ferry (2005)/Season 4/Night.Ferry.2005.S04E06.mkv", "tvshows",
     {"series": SeriesName("Night Ferry", 2005)}),
]

# Site and uploader prefixes before the title.
PREFIXES: list[Case] = [
    ("[ www.SomeSite.com ] - Copper Sky (2011).mkv", "movies", {"name": MovieName("Copper Sky", 2011, ())}),
    ("www.SomeSite.org - Copper.Sky.2011.720p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("www.SomeSite.net.Copper.Sky.2011.720p.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("(somesite.to) Copper Sky 2011.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("Fr - Copper Sky 2011.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("German - Copper Sky 2011.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
    ("VOSTFR - Glass Orchard - 13.mkv", "tvshows", {"series": SeriesName("Glass Orchard", None), "episode": 13}),
    ("SomeSite.com - Glass.Orchard.S02E01.mkv", "tvshows",
     {"series": SeriesName("Glass Orchard", None), "season": 2, "episode": 1}),
    ("[www.SomeSite.cc]Glass.Orchard.S02E01.mkv", "tvshows", {"series": SeriesName("Glass Orchard", None)}),
    # a dotted title is no site
    ("Mr.Fox.2011.mkv", "movies", {"name": MovieName("Mr Fox", 2011)}),
]

# Several episodes in one file.
MULTI_EPISODES: list[Case] = [
    ("Glass.Orchard.S01E01+02.mkv", "tvshows", {"season": 1, "episode": 1, "episode_end": 2}),
    ("Glass.Orchard.S01E01+E02.720p.mkv", "tvshows", {"episode": 1, "episode_end": 2}),
    ("Glass.Orchard.S14E00.and.S14E01.mkv", "tvshows", {"season": 14, "episode": 0, "episode_end": 1}),
    ("Glass Orchard S02E05 & E06.mkv", "tvshows", {"episode": 5, "episode_end": 6}),
    ("Glass Orchard/Glass Orchard - 003-004.mkv", "tvshows", {"episode": 3, "episode_end": 4, "absolute": 3}),
    ("Glass.Orchard.05-06.mkv", "tvshows", {"episode": 5, "episode_end": 6}),
    # `and` before a bare number is a title
    ("Glass Orchard - S01E05 and 6 Friends.mkv", "tvshows", {"episode": 5, "episode_end": None}),
]

# The release folder above an obfuscated file name.
RELEASE_FOLDERS: list[Case] = [
    ("Glass.Orchard.S12E02.720p-GRP/161219_06.mkv", "tvshows",
     {"series": SeriesName("Glass Orchard", None), "series_folder": None, "season": 12, "episode": 2}),
    ("TV/Glass.Orchard.S03E04.Dusk.1080p-GRP/a8f3e9c1d2b4.mkv", "tvshows",
     {"series": SeriesName("Glass Orchard", None), "series_folder": None, "season": 3, "episode": 4,
      "title": "Dusk"}),
    ("Glass Orchard/Glass.Orchard.S03E04.1080p-GRP/x7k2m9q4.mkv", "tvshows",
     {"series_folder": "Glass Orchard", "season": 3, "episode": 4}),
    ("Glass.Orchard.S03E04.1080p-GRP/161219_06.mkv", "mixed", {"season": 3, "episode": 4}),
    # a named file keeps its own marker
    ("Glass.Orchard.S03E04.1080p-GRP/Glass.Orchard.S03E05.mkv", "tvshows", {"episode": 5}),
    ("Copper.Sky.1080p.BluRay-GRP/abc123xyz.mkv", "movies",
     {"name": MovieName("Copper Sky", None), "folder": "Copper.Sky.1080p.BluRay-GRP"}),
    ("Copper.Sky.2011.1080p-GRP/161219_06.mkv", "movies", {"name": MovieName("Copper Sky", 2011)}),
]

# Season folders in other languages and forms, and bare numbers under a series.
SEASON_FOLDERS: list[Case] = [
    ("Glass Orchard/Saison 12/01.mkv", "tvshows", {"season": 12, "episode": 1}),
    ("Glass Orchard/Staffel 3/Folge 4.mkv", "tvshows", {"season": 3, "episode": 4}),
    ("Glass Orchard/Temporada 2/Glass Orchard 2x04.mkv", "tvshows", {"season": 2, "episode": 4}),
    ("Glass Orchard/Season 2 Complete/Glass Orchard - 04.mkv", "tvshows", {"season": 2, "episode": 4}),
    ("Glass Orchard/Temporada 2 Completa/E05.mkv", "tvshows", {"season": 2, "episode": 5}),
    ("Glass Orchard/Season 2 Disc 1/Glass Orchard S02E03.mkv", "tvshows", {"season_folder": "Glass Orchard/Season 2 Disc 1"}),
    ("Glass Orchard/2nd Season/03.mkv", "tvshows", {"season": 2, "episode": 3}),
    ("Glass Orchard/Temp.3/03.mkv", "tvshows", {"season": 3}),
    ("Glass Orchard/2/Glass Orchard - 04.mkv", "tvshows",
     {"series": SeriesName("Glass Orchard", None), "season_folder": "Glass Orchard/2", "season": 2, "episode": 4}),
    ("Glass Orchard/02/04 - Dusk.mkv", "tvshows", {"season": 2, "episode": 4, "title": "Dusk"}),
    ("Glass Orchard/Season 1/2/Glass Orchard - 04.mkv", "tvshows", {"season_folder": "Glass Orchard/Season 1", "season": 1}),
    # a bare number at the root is no season (nothing above it names a series)
    ("2/Glass Orchard - S01E04.mkv", "tvshows", {"season_folder": None, "season": 1}),
    # a season folder is never the series
    ("Season 3/Glass Orchard S03E01.mkv", "tvshows", {"series_folder": None, "season": 3}),
    # a pack of several seasons names its series before the range
    ("Glass Orchard S01-S03/Season 2/S02E01.mkv", "tvshows", {"series": SeriesName("Glass Orchard", None)}),
    ("Glass.Orchard.S01-S05.Complete.1080p/Season 1/E01.mkv", "tvshows",
     {"series": SeriesName("Glass Orchard", None)}),
    ("Glass Orchard Staffel 1-3 German DL/Staffel 2/Folge 1.mkv", "tvshows",
     {"series": SeriesName("Glass Orchard", None), "season": 2, "episode": 1}),
    ("Glass Orchard Seasons 1 to 4/Season 4/E02.mkv", "tvshows", {"series": SeriesName("Glass Orchard", None)}),
    ("Glass Orchard - Staffel 1-3 (2010)/Staffel 2/Folge 1.mkv", "tvshows", {"series": SeriesName("Glass Orchard", 2010)}),
]

# Parts inside a version, and stacks that are not stacks.
EPISODE_STACKS: list[Case] = [
    ("Glass Orchard/Season 1/Glass Orchard - S01E01 - 1080p part1.mkv", "tvshows",
     {"episode": 1, "stack": StackPart("Glass Orchard - S01E01 - 1080p", 1), "title": None}),
    ("Glass Orchard/Season 1/Glass Orchard S01E01-cd2.mkv", "tvshows",
     {"episode": 1, "stack": StackPart("Glass Orchard S01E01", 2), "title": None}),
    ("Glass Orchard/Season 1/Glass.Orchard.S01E01.part1.720p.mkv", "tvshows",
     {"stack": StackPart("Glass.Orchard.S01E01.720p", 1)}),
    # a title's `Part 2` and a letter are the episode's title, never a part
    ("Glass Orchard/Season 1/Glass Orchard - S01E05 - The Flood Part 2.mkv", "tvshows",
     {"stack": None, "title": "The Flood Part 2"}),
    ("Glass Orchard/Season 1/Glass Orchard - S01E06 - B.mkv", "tvshows", {"stack": None, "title": "B"}),
    ("Glass Orchard/Season 1/Glass Orchard - S01E05 - The Flood - Part 2.mkv", "tvshows",
     {"stack": None, "title": "The Flood - Part 2"}),
    # after a title, a part glued to its number or a disc word is a part; the title stays
    ("Glass Orchard/Season 1/Glass Orchard - S01E01 - Pilot - part1.mkv", "tvshows",
     {"stack": StackPart("Glass Orchard - S01E01 - Pilot", 1), "title": "Pilot"}),
    ("Glass Orchard/Season 1/Glass.Orchard.S01E01.Pilot.part2.720p.mkv", "tvshows",
     {"stack": StackPart("Glass.Orchard.S01E01.Pilot.720p", 2), "title": "Pilot"}),
    ("Glass Orchard/Season 1/Glass Orchard - S01E01 - Pilot cd2.mkv", "tvshows",
     {"stack": StackPart("Glass Orchard - S01E01 - Pilot", 2), "title": "Pilot"}),
    ("Copper Sky (2011)/Copper Sky (2011) - 1080p - part2.mkv", "movies",
     {"version_label": "1080p", "stack": StackPart("Copper Sky (2011) - 1080p", 2)}),
]

# Series names with dots or underscores, kept where the user wrote them that way.
SERIES_AS_WRITTEN: list[Case] = [
    ("Mr. Lantern/Season 1/mr.lantern.s01e01.mkv", "tvshows", {"series": SeriesName("Mr. Lantern", None)}),
    ("Dr. Vale, Harbor Doctor/Season 1/S01E01.mkv", "tvshows",
     {"series": SeriesName("Dr. Vale, Harbor Doctor", None)}),
    ("Star Voyage_ Outpost/Season 1/S01E01.mkv", "tvshows", {"series": SeriesName("Star Voyage_ Outpost", None)}),
    ("P.A.C.T. (2019)/Season 1/S01E01.mkv", "tvshows", {"series": SeriesName("P.A.C.T.", 2019)}),
    # a release-style folder is a release name: its separators are spaces
    ("Glass.Orchard/Season 1/S01E01.mkv", "tvshows", {"series": SeriesName("Glass Orchard", None)}),
    ("Glass_Orchard/Season 1/S01E01.mkv", "tvshows", {"series": SeriesName("Glass Orchard", None)}),
    ("Agents.of.P.A.C.T/Season 1/S01E01.mkv", "tvshows", {"series": SeriesName("Agents of P.A.C.T", None)}),
]

# `.disc` stubs, 3D tags, theme songs and videos.
DISC_3D_THEMES: list[Case] = [
    ("Copper Sky (2011)/Copper Sky (2011).disc", "movies", {"offline": True, "name": MovieName("Copper Sky", 2011)}),
    ("Glass Orchard/Season 1/Glass Orchard S01E02.disc", "tvshows", {"offline": True, "episode": 2}),
    ("Copper.Sky.2011.3d.hsbs.1080p.mkv", "movies", {"format3d": "HSBS", "name": MovieName("Copper Sky", 2011)}),
    ("Copper Sky (2011).3d.sbs.mkv", "movies", {"format3d": "HSBS"}),
    ("Copper Sky (2011) 3D.FTAB.mkv", "movies", {"format3d": "FTAB"}),
    ("Copper Sky (2011)/theme.mp3", "movies", {"extra_type": "ThemeSong", "owner_folder": "Copper Sky (2011)"}),
    ("Copper Sky (2011)/theme-music/opening.flac", "movies", {"extra_type": "ThemeSong"}),
    ("Copper Sky (2011)/backdrops/loop.mp4", "movies", {"extra_type": "ThemeVideo"}),
    ("Glass Orchard/theme-videos/intro.mkv", "tvshows", {"extra_type": "ThemeVideo", "owner_folder": "Glass Orchard"}),
]

# Absolute numbering (anime): the number is kept as written.
ABSOLUTE: list[Case] = [
    ("[Lantern] Paper Kites - 1050 [1080p].mkv", "tvshows", {"episode": 1050, "absolute": 1050, "season": None}),
    ("Paper Kites/[Lantern]_Paper_Kites_-_027v2_[720p].mkv", "tvshows", {"absolute": 27}),
    ("Paper Kites/Paper Kites - 099.mkv", "tvshows", {"absolute": 99}),
    ("Paper Kites/Paper Kites #12.mkv", "tvshows", {"absolute": 12}),
    # a season before the number makes it that season's episode
    ("[Lantern] Paper Kites S2 - 05 [1080p].mkv", "tvshows",
     {"series": SeriesName("Paper Kites", None), "season": 2, "episode": 5, "absolute": None}),
    ("Paper Kites/Paper Kites Season 2 - 05.mkv", "tvshows", {"season": 2, "episode": 5, "absolute": None}),
    ("[Lantern] Paper Kites 2nd Season - 05v2 [1080p].mkv", "tvshows",
     {"series": SeriesName("Paper Kites", None), "season": 2, "episode": 5}),
    ("[Lantern] Paper Kites S02 - 05-06 [1080p].mkv", "tvshows", {"season": 2, "episode": 5, "episode_end": 6}),
    # `Season` without a number is the title's
    ("[Lantern] Paper Kites - The Final Season - 01 [1080p].mkv", "tvshows",
     {"series": SeriesName("Paper Kites - The Final Season", None), "season": None, "absolute": 1}),
]

# (absolute number, the provider's episodes per season, season and episode)
SEASON_OF_ABSOLUTE: list[tuple[int, dict[int, int], tuple[int, int] | None]] = [
    (1, {1: 12, 2: 13}, (1, 1)),
    (12, {1: 12, 2: 13}, (1, 12)),
    (14, {1: 12, 2: 13}, (2, 2)),
    (25, {1: 12, 2: 13}, (2, 13)),
    (26, {1: 12, 2: 13}, None),
    (3, {0: 5, 1: 12}, (1, 3)),
    (0, {1: 12}, None),
    (5, {}, None),
]

# (path, kind, at least, below): how sure each kind of name is.
CONFIDENCE: list[tuple[str, str, float, float]] = [
    ("Copper Sky (2011)/Copper Sky (2011).mkv", "movies", 0.9, 1.01),
    ("Copper.Sky.2011.1080p.mkv", "movies", 0.9, 1.01),
    ("Copper Sky.mkv", "movies", 0.5, 0.9),
    ("Copper.Sky.1080p.BluRay-GRP/abc123xyz.mkv", "movies", 0.5, 0.9),
    ("a8f3e9c1d2b4.mkv", "movies", 0.0, 0.5),
    ("161219_06.mkv", "movies", 0.0, 0.5),
    ("Glass Orchard/Season 1/Glass Orchard - S01E02.mkv", "tvshows", 0.9, 1.01),
    ("Glass Orchard/Season 1/E02.mkv", "tvshows", 0.8, 0.9),
    ("Glass Orchard/Glass Orchard - 012.mkv", "tvshows", 0.7, 0.9),
    ("quiet.acres.117.hdtv.mp4", "tvshows", 0.4, 0.6),
    ("[Lantern] Paper Kites S2 - 05 [1080p].mkv", "tvshows", 0.7, 0.9),
    ("Glass Orchard/Season 1/quiet.acres.117.mkv", "tvshows", 0.8, 0.9),
    ("Glass Orchard/Season 1/Dusk.mkv", "tvshows", 0.0, 0.5),
    ("Glass.Orchard.S12E02.720p-GRP/161219_06.mkv", "tvshows", 0.5, 0.9),
    ("Copper Sky (2011)/extras/Interview.mkv", "movies", 0.9, 1.01),
]
