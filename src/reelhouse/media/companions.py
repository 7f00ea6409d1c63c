"""External subtitle and audio files that belong to a video.

A companion sits next to the video and its name is the video's stem, a
dot, optional dot-separated tokens and a subtitle or audio extension:
``Movie (2016).srt``, ``Movie (2016).en.srt``, ``Movie (2016).eng.forced.srt``,
``Movie (2016).default.en.sdh.ass``, ``Movie (2016).de.Commentary.mka``.

The tokens are read in any order and in any case: ``forced``/``foreign``
mark a forced track, ``default`` a default one, ``sdh``/``cc``/``hi`` a
track for the hearing impaired (so ``hi`` is never Hindi: write ``hin``);
the last token that is a language code (ISO 639-1, 639-2/B or /T, BCP 47)
or an English or native language name gives the language (ISO 639-2/B;
``Movie.en.de.srt`` is German, as other media servers read it; earlier
language tokens are dropped); the other tokens, joined with dots, are the
title. Subtitle extensions: ``srt``, ``vtt``, ``ass``, ``ssa``, ``sup``,
``idx``/``sub``, ``smi``/``sami``, ``mks``.

The stem is compared case-insensitively (libraries move between case-
insensitive and case-sensitive file systems); the extension too. Pure
functions on names: no file access, nothing blocks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reelhouse.media.probe import StreamType, normalize_language

# Extension -> codec as ffprobe names it; None where only probing tells.
SUBTITLE_CODECS: dict[str, str | None] = {
    "srt": "subrip",
    "vtt": "webvtt",
    "ass": "ass",
    "ssa": "ssa",
    "sup": "hdmv_pgs_subtitle",
    "idx": "dvd_subtitle",
    # A lone .sub is MicroDVD text; next to a same-named .idx it is the
    # VobSub picture data, which match_companions folds into the .idx.
    "sub": "microdvd",
    "smi": "sami",
    "sami": "sami",
    # Matroska subtitles: the track inside decides the codec.
    "mks": None,
}
# Extension -> codec; None for containers whose codec only probing tells.
AUDIO_CODECS: dict[str, str | None] = {
    "mka": None,
    "m4a": None,
    "ogg": None,
    "oga": None,
    "wav": None,
    "ac3": "ac3",
    "eac3": "eac3",
    "ec3": "eac3",
    "dts": "dts",
    "dtshd": "dts",
    "thd": "truehd",
    "aac": "aac",
    "flac": "flac",
    "mp3": "mp3",
    "opus": "opus",
}
FORCED_TOKENS = frozenset({"forced", "foreign"})
DEFAULT_TOKENS = frozenset({"default"})
HEARING_IMPAIRED_TOKENS = frozenset({"sdh", "cc", "hi"})

# Language names people write instead of codes (English and native).
_LANGUAGE_NAMES = """
    eng:english ger:german,deutsch fre:french,francais,français
    spa:spanish,espanol,español,castellano,latino ita:italian,italiano
    por:portuguese,portugues,português,brazilian dut:dutch,nederlands,flemish
    swe:swedish,svenska nor:norwegian,norsk dan:danish,dansk fin:finnish,suomi
    pol:polish,polski rus:russian ukr:ukrainian cze:czech,cesky slo:slovak
    hun:hungarian,magyar rum:romanian,romana bul:bulgarian gre:greek
    tur:turkish,turkce heb:hebrew ara:arabic per:persian,farsi hin:hindi
    jpn:japanese kor:korean chi:chinese,mandarin,cantonese tha:thai
    vie:vietnamese ind:indonesian may:malay hrv:croatian,hrvatski
    srp:serbian,srpski slv:slovenian,slovene est:estonian lav:latvian
    lit:lithuanian ice:icelandic cat:catalan baq:basque glg:galician
    tam:tamil tel:telugu ben:bengali urd:urdu fil:filipino tgl:tagalog
"""
LANGUAGE_NAMES: dict[str, str] = {
    name: code
    for entry in _LANGUAGE_NAMES.split()
    for code, _, names in [entry.partition(":")]
    for name in names.split(",")
}


@dataclass(frozen=True, slots=True)
class Companion:
    """An external subtitle or audio track of a video."""

    file_name: str
    kind: StreamType
    codec: str | None
    language: str | None = None
    title: str | None = None
    is_default: bool = False
    is_forced: bool = False
    is_hearing_impaired: bool = False


def match_companion(video_stem: str, file_name: str) -> Companion | None:
    """The companion ``file_name`` is for the video ``video_stem``, or None.

    None when the name does not start with the stem and a dot (compared
    case-insensitively), or its extension is not a subtitle or audio one.
    A folder with ``Movie.mkv`` and ``Movie.Part2.mkv`` makes
    ``Movie.Part2.en.srt`` match both; :func:`owner_stem` picks the right one.
    """
    if not _has_stem(video_stem, file_name):
        return None
    middle, _, extension = file_name[len(video_stem) + 1 :].rpartition(".")
    extension = extension.lower()
    if extension in SUBTITLE_CODECS:
        kind, codec = StreamType.SUBTITLE, SUBTITLE_CODECS[extension]
    elif extension in AUDIO_CODECS:
        kind, codec = StreamType.AUDIO, AUDIO_CODECS[extension]
    else:
        return None
    return _with_tokens(Companion(file_name, kind, codec), middle)


def match_companions(video_stem: str, file_names: Iterable[str]) -> list[Companion]:
    """Every companion of ``video_stem`` among ``file_names``, sorted by name.

    A ``.sub`` next to a ``.idx`` of the same name is the VobSub data of that
    ``.idx`` and is left out; a lone ``.sub`` stays (MicroDVD text). The
    order is stable, so a caller can number external streams by position.
    """
    found = [c for c in map(lambda n: match_companion(video_stem, n), file_names) if c]
    idx_bases = {c.file_name[:-4].lower() for c in found if c.codec == "dvd_subtitle"}
    kept = [
        c for c in found
        if not (c.codec == "microdvd" and c.file_name[:-4].lower() in idx_bases)
    ]  # fmt: skip
    return sorted(kept, key=lambda c: (c.file_name.lower(), c.file_name))


def owner_stem(file_name: str, video_stems: Iterable[str]) -> str | None:
    """The longest of ``video_stems`` that ``file_name`` is a companion of."""
    owners = [s for s in video_stems if match_companion(s, file_name) is not None]
    return max(owners, key=len, default=None)


def _has_stem(video_stem: str, file_name: str) -> bool:
    size = len(video_stem)
    return (
        bool(video_stem)
        and len(file_name) > size + 1
        and file_name[size] == "."
        and file_name[:size].lower() == video_stem.lower()
    )


def _with_tokens(base: Companion, middle: str) -> Companion:
    language: str | None = None
    flags: set[str] = set()
    rest: list[str] = []
    for token in (t for t in middle.split(".") if t.strip()):
        lowered = token.strip().lower()
        if lowered in FORCED_TOKENS | DEFAULT_TOKENS | HEARING_IMPAIRED_TOKENS:
            flags.add(lowered)
            continue
        code = _language(lowered)
        if code is not None:
            language = code  # the last language token wins
        else:
            rest.append(token.strip())
    return Companion(
        file_name=base.file_name,
        kind=base.kind,
        codec=base.codec,
        language=language,
        title=".".join(rest) or None,
        is_default=bool(flags & DEFAULT_TOKENS),
        is_forced=bool(flags & FORCED_TOKENS),
        is_hearing_impaired=bool(flags & HEARING_IMPAIRED_TOKENS),
    )


def _language(token: str) -> str | None:
    if token in LANGUAGE_NAMES:
        return LANGUAGE_NAMES[token]
    # Longer tokens are words, not codes ("Commentary"), unless BCP 47.
    primary = token.replace("_", "-").split("-", 1)[0]
    if len(primary) not in (2, 3):
        return None
    return normalize_language(token)
