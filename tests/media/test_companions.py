"""companions: external subtitle and audio files named after a video."""

from __future__ import annotations

import pytest

from reelhouse.media.companions import (
    Companion,
    match_companion,
    match_companions,
    owner_stem,
)
from reelhouse.media.probe import StreamType

STEM = "Arrival (2016)"
SUB = StreamType.SUBTITLE
AUDIO = StreamType.AUDIO


@pytest.mark.parametrize(
    ("file_name", "kind", "codec", "language", "title", "default", "forced", "hi"),
    [
        ("Arrival (2016).srt", SUB, "subrip", None, None, False, False, False),
        ("Arrival (2016).en.srt", SUB, "subrip", "eng", None, False, False, False),
        ("Arrival (2016).eng.forced.srt", SUB, "subrip", "eng", None, False, True, False),
        ("Arrival (2016).forced.eng.srt", SUB, "subrip", "eng", None, False, True, False),
        ("Arrival (2016).en.sdh.srt", SUB, "subrip", "eng", None, False, False, True),
        ("Arrival (2016).en.hi.srt", SUB, "subrip", "eng", None, False, False, True),
        ("Arrival (2016).en.cc.vtt", SUB, "webvtt", "eng", None, False, False, True),
        ("Arrival (2016).default.en.ass", SUB, "ass", "eng", None, True, False, False),
        ("Arrival (2016).de.ssa", SUB, "ssa", "ger", None, False, False, False),
        ("Arrival (2016).deu.vtt", SUB, "webvtt", "ger", None, False, False, False),
        ("Arrival (2016).fr.sup", SUB, "hdmv_pgs_subtitle", "fre", None, False, False, False),
        ("Arrival (2016).fra.idx", SUB, "dvd_subtitle", "fre", None, False, False, False),
        ("Arrival (2016).sub", SUB, "microdvd", None, None, False, False, False),
        ("Arrival (2016).pt-BR.srt", SUB, "subrip", "por", None, False, False, False),
        ("Arrival (2016).English.srt", SUB, "subrip", "eng", None, False, False, False),
        ("Arrival (2016).Deutsch.Forced.SRT", SUB, "subrip", "ger", None, False, True, False),
        ("Arrival (2016).foreign.srt", SUB, "subrip", None, None, False, True, False),
        ("Arrival (2016).en.Signs & Songs.ass", SUB, "ass", "eng", "Signs & Songs",
         False, False, False),
        ("Arrival (2016).Director.Commentary.en.srt", SUB, "subrip", "eng",
         "Director.Commentary", False, False, False),
        # the last language token wins
        ("Arrival (2016).en.fr.srt", SUB, "subrip", "fre", None, False, False, False),
        ("Arrival (2016).English.de.srt", SUB, "subrip", "ger", None, False, False, False),
        ("Arrival (2016).de.forced.en.srt", SUB, "subrip", "eng", None, False, True, False),
        ("Arrival (2016).Commentary.en.sdh.srt", SUB, "subrip", "eng", "Commentary", False, False, True),
        ("Arrival (2016).hi.srt", SUB, "subrip", None, None, False, False, True),
        ("Arrival (2016).en.default.forced.srt", SUB, "subrip", "eng", None, True, True, False),
        # more subtitle formats
        ("Arrival (2016).en.smi", SUB, "sami", "eng", None, False, False, False),
        ("Arrival (2016).sami", SUB, "sami", None, None, False, False, False),
        ("Arrival (2016).de.mks", SUB, None, "ger", None, False, False, False),
        ("Arrival (2016).en.mka", AUDIO, None, "eng", None, False, False, False),
        ("Arrival (2016).de.Commentary.mka", AUDIO, None, "ger", "Commentary",
         False, False, False),
        ("Arrival (2016).ac3", AUDIO, "ac3", None, None, False, False, False),
        ("Arrival (2016).ja.eac3", AUDIO, "eac3", "jpn", None, False, False, False),
        ("Arrival (2016).es.dts", AUDIO, "dts", "spa", None, False, False, False),
        ("Arrival (2016).it.aac", AUDIO, "aac", "ita", None, False, False, False),
        ("Arrival (2016).nl.flac", AUDIO, "flac", "dut", None, False, False, False),
        ("Arrival (2016).ko.m4a", AUDIO, None, "kor", None, False, False, False),
        ("Arrival (2016).pl.mp3", AUDIO, "mp3", "pol", None, False, False, False),
        ("Arrival (2016).ru.opus", AUDIO, "opus", "rus", None, False, False, False),
        ("Arrival (2016).sv.ogg", AUDIO, None, "swe", None, False, False, False),
        ("arrival (2016).EN.SRT", SUB, "subrip", "eng", None, False, False, False),
    ],
)  # fmt: skip
def test_companion_tokens_give_language_flags_and_title(
    file_name: str, kind: StreamType, codec: str | None, language: str | None,
    title: str | None, default: bool, forced: bool, hi: bool,
) -> None:  # fmt: skip
    assert match_companion(STEM, file_name) == Companion(
        file_name=file_name, kind=kind, codec=codec, language=language, title=title,
        is_default=default, is_forced=forced, is_hearing_impaired=hi,
    )  # fmt: skip


@pytest.mark.parametrize(
    "file_name",
    [
        "Arrival (2016).mkv",  # the video itself
        "Arrival (2016).nfo",
        "Arrival (2016)-poster.jpg",
        "Arrival (2016).en.txt",
        "Arrival (2016)",
        "Arrival (2016).",
        "Arrival (2016)_en.srt",  # no dot after the stem
        "Arrival (2016) extended.srt",
        "Arrival.srt",  # another stem
        "Other Movie.en.srt",
        "en.srt",
    ],
)
def test_names_that_are_not_companions(file_name: str) -> None:
    assert match_companion(STEM, file_name) is None


def test_empty_stem_matches_nothing() -> None:
    assert match_companion("", ".en.srt") is None


def test_vobsub_sub_beside_its_idx_is_folded_into_the_idx() -> None:
    names = [
        "Arrival (2016).en.sub", "Arrival (2016).en.idx", "Arrival (2016).de.sub",
        "Arrival (2016).mkv", "Arrival (2016).EN.srt", "Arrival (2016).de.mka",
    ]  # fmt: skip
    found = match_companions(STEM, names)
    assert [c.file_name for c in found] == [
        "Arrival (2016).de.mka", "Arrival (2016).de.sub",
        "Arrival (2016).en.idx", "Arrival (2016).EN.srt",
    ]  # fmt: skip
    assert [c.codec for c in found] == [None, "microdvd", "dvd_subtitle", "subrip"]


def test_owner_stem_is_the_longest_matching_video_stem() -> None:
    stems = ["Movie", "Movie.Part2", "Other"]
    assert owner_stem("Movie.Part2.en.srt", stems) == "Movie.Part2"
    assert owner_stem("Movie.en.srt", stems) == "Movie"
    assert owner_stem("Nothing.en.srt", stems) is None
    assert owner_stem("Movie.Part2.jpg", stems) is None
