"""Episode stems and season folders."""

import datetime

# (stem, season, episode, episode_end, series_hint, title)
SEASON_EPISODE: list[tuple[str, int, int, int | None, str | None, str | None]] = [
    ("Dark - S01E01 - Secrets", 1, 1, None, "Dark", "Secrets"),
    ("Show S01E02", 1, 2, None, "Show", None),
    ("Show.S01E02.720p.HDTV.x264-GRP", 1, 2, None, "Show", None),
    ("Show.S01E02.Title.Name.720p.HDTV", 1, 2, None, "Show", "Title Name"),
    ("show.s01e02.hdtv.x264-lol", 1, 2, None, "show", None),
    ("Show - s1e2", 1, 2, None, "Show", None),
    ("Show s1e2 Title", 1, 2, None, "Show", "Title"),
    ("S01E02", 1, 2, None, None, None),
    ("s01e02", 1, 2, None, None, None),
    ("S01E02 - Title", 1, 2, None, None, "Title"),
    ("Show S01 E02", 1, 2, None, "Show", None),
    ("Show S01.E02", 1, 2, None, "Show", None),
    ("Show S01_E02", 1, 2, None, "Show", None),
    ("Show S01-E02", 1, 2, None, "Show", None),
    ("Show.S2010E05", 2010, 5, None, "Show", None),
    ("Show S00E01 - Special", 0, 1, None, "Show", "Special"),
    ("Show S01E100", 1, 100, None, "Show", None),
    ("Show S10E01", 10, 1, None, "Show", None),
    ("9-1-1 S01E01", 1, 1, None, "9-1-1", None),
    ("9-1-1.S02E05.1080p.WEB", 2, 5, None, "9-1-1", None),
    ("The.Office.US.S02E03.720p", 2, 3, None, "The Office US", None),
    ("Marvels.Agents.of.S.H.I.E.L.D.S01E01.720p", 1, 1, None, "Marvels Agents of S.H.I.E.L.D.", None),
    ("S.W.A.T.2017.S01E01.720p", 1, 1, None, "S.W.A.T. 2017", None),
    ("Doctor Who (2005) - S01E01 - Rose", 1, 1, None, "Doctor Who (2005)", "Rose"),
    ("Show (2019) S01E01", 1, 1, None, "Show (2019)", None),
    ("Mr. Robot - S01E01 - eps1.0_hellofriend.mov", 1, 1, None, "Mr. Robot", "eps1.0_hellofriend.mov"),
    ("Show - S01E01 - Title [1080p]", 1, 1, None, "Show", "Title"),
    ("[Group] Show - S01E01 [1080p]", 1, 1, None, "Show", None),
    ("Show S01E01 - 1080p", 1, 1, None, "Show", None),
    ("Show S01E01-1080p", 1, 1, None, "Show", None),
    ("Show - S01E03 - The Interview", 1, 3, None, "Show", "The Interview"),
    ("Game of Thrones - S08E06 - The Iron Throne", 8, 6, None, "Game of Thrones", "The Iron Throne"),
    ("Twin Peaks S03E01 Part 1", 3, 1, None, "Twin Peaks", "Part 1"),
    ("Breaking.Bad.S05E14.Ozymandias.1080p.BluRay.x264-ROVERS", 5, 14, None, "Breaking Bad", "Ozymandias"),
    ("The Simpsons - S35E01 - Thirty Five Years of Simpsons", 35, 1, None, "The Simpsons",
     "Thirty Five Years of Simpsons"),
    ("Se7en S01E01", 1, 1, None, "Se7en", None),
    ("1923 - S01E01 - 1923", 1, 1, None, "1923", "1923"),
    ("The Office (US) - S01E01 - Pilot", 1, 1, None, "The Office (US)", "Pilot"),
    ("Show.Name.S01E01.1080p.AMZN.WEB-DL.DDP5.1.H.264-NTb", 1, 1, None, "Show Name", None),
    ("Show Name - S01E01 - Pilot (1080p BluRay x265 Silence)", 1, 1, None, "Show Name", "Pilot"),
    ("The Mandalorian S02E01 Chapter 9 The Marshal 2160p DSNP WEB-DL", 2, 1, None, "The Mandalorian",
     "Chapter 9 The Marshal"),
    ("Planet Earth II - S01E01 - Islands", 1, 1, None, "Planet Earth II", "Islands"),
    ("24 - S01E01 - 12_00 A.M.-1_00 A.M.", 1, 1, None, "24", "12_00 A.M.-1_00 A.M."),
    ("House.M.D.S01E01.720p", 1, 1, None, "House M.D.", None),
    ("Show.Name.2019.S01E01", 1, 1, None, "Show Name 2019", None),
    ("Show - S01E01v2 - Title", 1, 1, None, "Show", "Title"),
    # an `x` between season and episode after the S
    ("Show S01x02", 1, 2, None, "Show", None),
    ("Show - S01xE02 - Title", 1, 2, None, "Show", "Title"),
    ("show.s01x01.hdtv", 1, 1, None, "show", None),
    ("Show S03xE10-E11", 3, 10, 11, "Show", None),
    # multi-episode files
    ("Show S01E01-E02", 1, 1, 2, "Show", None),
    ("Show S01E01E02", 1, 1, 2, "Show", None),
    ("Show S01E01-02", 1, 1, 2, "Show", None),
    ("Show S01E01-02 Title", 1, 1, 2, "Show", "Title"),
    ("Show S01E01-E02-E03", 1, 1, 3, "Show", None),
    ("Show S01E01E02E03", 1, 1, 3, "Show", None),
    ("Show - S01E01-S01E02 - Title", 1, 1, 2, "Show", "Title"),
    ("Show S01E01 - E02", 1, 1, 2, "Show", None),
    ("Show.S01E01.E02.720p", 1, 1, 2, "Show", None),
    ("Show S01E05-06 Title", 1, 5, 6, "Show", "Title"),
    ("Show - S02E09-E10 - Two Parter", 2, 9, 10, "Show", "Two Parter"),
    ("show.s03e01e02.hdtv", 3, 1, 2, "show", None),
    # not a second episode: lower, or a bare number after spaces
    ("Show S01E05 - 2 Broke Girls", 1, 5, None, "Show", "2 Broke Girls"),
]

# (stem, season, episode, episode_end, series_hint, title)
CROSS: list[tuple[str, int, int, int | None, str | None, str | None]] = [
    ("Show 1x02", 1, 2, None, "Show", None),
    ("Show - 1x02 - Title", 1, 2, None, "Show", "Title"),
    ("show.1x02.hdtv", 1, 2, None, "show", None),
    ("Show 1x02-03", 1, 2, 3, "Show", None),
    ("Show 1x02-1x03", 1, 2, 3, "Show", None),
    ("Show 1x02x03", 1, 2, 3, "Show", None),
    ("Show - 1x02-03 - Title", 1, 2, 3, "Show", "Title"),
    ("10x05", 10, 5, None, None, None),
    ("Show 2x10 Title", 2, 10, None, "Show", "Title"),
    ("Show [1x02]", 1, 2, None, "Show", None),
    ("1x2", 1, 2, None, None, None),
    # year-numbered seasons
    ("Show 2009x03", 2009, 3, None, "Show", None),
    ("Show - 2009x03 - Title", 2009, 3, None, "Show", "Title"),
    ("Quiz.1998x112.PDTV", 1998, 112, None, "Quiz", None),
    # chains and ranges: the last episode ends the range
    ("Show - 02x03 - 02x04 - 02x15 - Title", 2, 3, 15, "Show", "Title"),
    ("02x03-E15 - Title", 2, 3, 15, None, "Title"),
    ("Show 3x01-3x02", 3, 1, 2, "Show", None),
    ("Show 1x01 - E02 - Title", 1, 1, 2, "Show", "Title"),
    # a spaced bare number after the marker is a title, not a range
    ("Show 1x05 - 2 Broke Girls", 1, 5, None, "Show", "2 Broke Girls"),
]

# (stem, season, episode, series_hint, title)
WORDS: list[tuple[str, int, int, str | None, str | None]] = [
    ("Show Season 1 Episode 2", 1, 2, "Show", None),
    ("Show - Season 01 Episode 05 - Title", 1, 5, "Show", "Title"),
    ("Show Series 2 Episode 3", 2, 3, "Show", None),
    ("Staffel 1 Folge 2", 1, 2, None, None),
    ("Show Saison 2 Episode 7", 2, 7, "Show", None),
    ("Show.Season.3.Episode.4.720p", 3, 4, "Show", None),
]

# (stem, air date, series_hint, title)
DATED: list[tuple[str, datetime.date, str | None, str | None]] = [
    ("The Daily Show 2021.03.04", datetime.date(2021, 3, 4), "The Daily Show", None),
    ("The Daily Show - 2021-03-04 - Guest Name", datetime.date(2021, 3, 4), "The Daily Show", "Guest Name"),
    ("the.daily.show.2021.03.04.guest.name.720p.web", datetime.date(2021, 3, 4), "the daily show",
     "guest name"),
    ("Last Week Tonight 2023 05 14", datetime.date(2023, 5, 14), "Last Week Tonight", None),
    ("Show 2021_03_04", datetime.date(2021, 3, 4), "Show", None),
    ("Jeopardy 2020-1-6", datetime.date(2020, 1, 6), "Jeopardy", None),
    ("2019-12-31 - New Year Special", datetime.date(2019, 12, 31), None, "New Year Special"),
    ("Late Show 1999.02.28", datetime.date(1999, 2, 28), "Late Show", None),
    ("The.Tonight.Show.Starring.Jimmy.Fallon.2024.01.15.Guest.720p.WEB.h264-EDITH",
     datetime.date(2024, 1, 15), "The Tonight Show Starring Jimmy Fallon", "Guest"),
    # year last: day first, month first only when day first cannot be
    ("Show 04.03.2021", datetime.date(2021, 3, 4), "Show", None),
    ("Show - 15-01-2020 - Guest", datetime.date(2020, 1, 15), "Show", "Guest"),
    ("Show 03.15.2021", datetime.date(2021, 3, 15), "Show", None),
    ("Tagesschau 1.2.2019", datetime.date(2019, 2, 1), "Tagesschau", None),
    # compact year-month-day
    ("Show 20210304", datetime.date(2021, 3, 4), "Show", None),
    ("show.20190715.guest.720p", datetime.date(2019, 7, 15), "show", "guest"),
    # month names
    ("Show - 4 March 2021", datetime.date(2021, 3, 4), "Show", None),
    ("Show March 4, 2021 - Guest", datetime.date(2021, 3, 4), "Show", "Guest"),
    ("Show 1st Jan 2020", datetime.date(2020, 1, 1), "Show", None),
    ("Show.Sept.30.2018.720p", datetime.date(2018, 9, 30), "Show", None),
]

# (stem, episode, series_hint, title): an episode number without a season
EPISODE_ONLY: list[tuple[str, int, str | None, str | None]] = [
    ("Episode 12", 12, None, None),
    ("Show - E12", 12, "Show", None),
    ("Show Ep 5 - Title", 5, "Show", "Title"),
    ("Show.E05.720p", 5, "Show", None),
    ("Show Ep.07", 7, "Show", None),
    ("Show - Episode 3 - Title", 3, "Show", "Title"),
    ("Folge 8", 8, None, None),
]

# (stem, episode, episode_end, series_hint, title): ranges without a season
# (Korean and other whole-season releases)
EPISODE_RANGES: list[tuple[str, int, int, str | None, str | None]] = [
    ("Show.E01-E16.1080p.WEB-DL", 1, 16, "Show", None),
    ("Drama E01-16", 1, 16, "Drama", None),
    ("Show - Ep 03-04 - Title", 3, 4, "Show", "Title"),
    ("Show E05-E06 Title", 5, 6, "Show", "Title"),
]

# (stem, absolute, series_hint, title): anime and absolute numbering
ABSOLUTE: list[tuple[str, int, str | None, str | None]] = [
    ("[Group] Show - 012 [1080p]", 12, "Show", None),
    ("[HorribleSubs] One Piece - 1071 [1080p]", 1071, "One Piece", None),
    ("[Group]_Show_-_05v2_[720p][ABCD1234]", 5, "Show", None),
    ("[SubsPlease] Frieren - 01 (1080p) [ABCDEF12]", 1, "Frieren", None),
    ("Show - 012", 12, "Show", None),
    ("Show - 102", 102, "Show", None),
    ("Naruto Shippuden - 500 - The Hidden Leaf Story", 500, "Naruto Shippuden", "The Hidden Leaf Story"),
    ("Show - 07 - Title", 7, "Show", "Title"),
    ("Show - #12", 12, "Show", None),
    ("Band of Brothers - 01 - Currahee", 1, "Band of Brothers", "Currahee"),
    ("[Erai-raws] Shingeki no Kyojin - The Final Season - 01 [1080p][Multiple Subtitle]", 1,
     "Shingeki no Kyojin - The Final Season", None),
    ("[Group] Title - 13", 13, "Title", None),
    # a bracketed number after the group
    ("[Group] Title [21]", 21, "Title", None),
    ("[Group] Title [21][1080p]", 21, "Title", None),
    ("[Group] Title [05v2] [720p]", 5, "Title", None),
]

# (stem, episode, title): a number leading the stem, for files in season folders
LEADING: list[tuple[str, int, str | None]] = [
    ("01 - Pilot", 1, "Pilot"),
    ("01", 1, None),
    ("01.Pilot", 1, "Pilot"),
    ("1. Pilot", 1, "Pilot"),
    ("102 - Title", 102, "Title"),
    ("7 Days Later", 7, "Days Later"),
]

# (stem, season, episode, episode_end, title): a leading pair. A rising pair
# is a range here; classify() reads it as season and episode outside a
# season folder. A falling pair can only be season and episode.
LEADING_PAIRS: list[tuple[str, int | None, int, int | None, str | None]] = [
    ("02-03 - Title", None, 2, 3, "Title"),
    ("4-12 - Title", None, 4, 12, "Title"),
    ("4-2 - Title", 4, 2, None, "Title"),
    ("01-02", None, 1, 2, None),
]

NOT_EPISODES: list[str] = [
    "Arrival (2016)",
    "Movie Title",
    "Blade.Runner.2049.2017.1080p",
    "The Matrix 1999 1080p",
    "Se7en",
    "S.W.A.T.",
    "Pulp Fiction (1994) - 1080p",
    "Movie (2010) - 4K",
    "Movie 1920x1080",
    "Show 2021-02-30",
    "Show - 2019",
    "Apocalypse Now",
    "Season of the Witch",
    "Escape from New York",
    "Film 2048x858",
    "Show.S01.x264-GRP",
    "Show 31.02.2021",
    "Movie [2010]",
    "[Group] Title",
]

SEASON_FOLDERS: list[tuple[str, int | None]] = [
    ("Season 1", 1),
    ("Season 01", 1),
    ("Season 001", 1),
    ("season 1", 1),
    ("SEASON 10", 10),
    ("Season1", 1),
    ("Season.02", 2),
    ("Season_03", 3),
    ("S1", 1),
    ("S01", 1),
    ("s02", 2),
    ("Series 2", 2),
    ("Staffel 2", 2),
    ("Saison 3", 3),
    ("Temporada 4", 4),
    ("Stagione 5", 5),
    ("Seizoen 6", 6),
    ("Season 2021", 2021),
    ("Season 1 (2010)", 1),
    ("Season 1 [Blu-ray]", 1),
    ("Season 1 - Blu-ray", 1),
    ("  Season 1  ", 1),
    ("Specials", 0),
    ("specials", 0),
    ("Special", 0),
    ("Season 0", 0),
    ("Season 00", 0),
    ("S00", 0),
    # other languages and scripts, the word first
    ("Sezon 2", 2),
    ("Sezona 3", 3),
    ("Sezóna 4", 4),
    ("Sezonul 5", 5),
    ("Säsong 6", 6),
    ("Sæson 7", 7),
    ("Sesong 8", 8),
    ("Kausi 9", 9),
    ("Évad 1", 1),
    ("Сезон 2", 2),
    ("сезон 03", 3),
    ("시즌 4", 4),
    ("시즌4", 4),
    ("シーズン5", 5),
    ("シーズン 6", 6),
    ("Temporada 07", 7),
    ("STAGIONE 8", 8),
    # the number first, and Chinese
    ("1. évad", 1),
    ("2 сезон", 2),
    ("3. Staffel", 3),
    ("第1季", 1),
    ("第 2 季", 2),
    ("第三季", 3),
    ("第十二季", 12),
    # series-prefixed season folders
    ("Stargate SG-1 Season 1", 1),
    ("Doctor Who Series 4", 4),
    ("Dark Staffel 2", 2),
    ("Sherlock S1", 1),
    ("Friends - Season 10", 10),
    ("进击的巨人 第3季", 3),
    # release-style season folders
    ("Show.S04.PDTV.x264-GRP", 4),
    ("The.Wonder.Years.S04.PDTV.x264-JCH", 4),
    ("Show.Name.S02.1080p.BluRay.x264", 2),
    ("Show S03 Complete 720p", 3),
    ("Show.S01.German.DL.720p.WEB.h264-GRP", 1),
    ("Show.Season.2.720p.WEB", 2),
    ("Season 1 1080p", 1),
    # series folders and others are not seasons
    ("Doctor Who (2005)", None),
    ("Show.S01.Extended.Cut", None),
    ("Stargate SG-1", None),
    ("Babylon 5", None),
    ("Sezonul", None),
    ("Season of the Witch", None),
    ("Series 7 The Contenders", None),
    ("1", None),
    ("01", None),
    ("S1m0ne", None),
    ("Seasons", None),
    ("Extras", None),
    ("Season One", None),
]
