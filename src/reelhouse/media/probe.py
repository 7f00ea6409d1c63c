"""Media info from ffprobe: the command line, its JSON, and its failures.

Nothing here runs ffprobe. The scanner runs ``ffprobe_args(path)`` in a
subprocess (with ``FFPROBE_ENV`` merged into its environment and its own
timeout), hands stdout to :func:`parse_probe` and, when ffprobe fails, its
exit status and stderr to :func:`classify_probe_failure`. Every function is
pure, synchronous and fast; none blocks or can be cancelled half-way.

Language codes of streams are normalised to ISO 639-2/B (the reference's
MediaStream ``language``) by :func:`normalize_language`, shared with
``companions``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

FFPROBE_EXECUTABLE = "ffprobe"
# ffmpeg prints strerror() text; the C locale keeps it matchable.
FFPROBE_ENV: Mapping[str, str] = {"LC_ALL": "C"}
TICKS_PER_SECOND = 10_000_000

# (name, min width, min height), highest first: a tier is reached when
# either dimension reaches it.
RESOLUTION_TIERS: tuple[tuple[str, int, int], ...] = (
    ("8K", 7680, 4320),
    ("4K", 3840, 2160),
    ("1440p", 2560, 1440),
    ("1080p", 1920, 1080),
    ("720p", 1280, 720),
)

# ffprobe demuxers that open files which are not audio/video (a picture or a
# text file renamed to .mkv still "probes").
NOT_MEDIA_FORMATS = frozenset({"image2", "tty", "webvtt", "srt", "ass", "subviewer"})
DOLBY_VISION_CODEC_TAGS = frozenset({"dvhe", "dvh1", "dvav", "dva1", "dav1"})

# Lower-case fragments of ffprobe's stderr (strerror texts in the C locale
# and demuxer messages), checked in classify_probe_failure's order.
PERMISSION_MARKERS = ("permission denied", "operation not permitted")
GONE_MARKERS = ("no such file or directory",)
UNREACHABLE_MARKERS = (
    "input/output error",
    "stale file handle",
    "transport endpoint is not connected",
    "host is down",
    "no route to host",
    "network is unreachable",
    "connection timed out",
    "connection refused",
    "no such device",
)
DAMAGED_MARKERS = (
    "moov atom not found",
    "file ended prematurely",
    "truncated",
    "corrupt",
    "error reading header",
)
NOT_MEDIA_MARKERS = (
    "invalid data found when processing input",
)


class StreamType(StrEnum):
    """The reference's StreamType."""

    VIDEO = "Video"
    AUDIO = "Audio"
    SUBTITLE = "Subtitle"


class ProbeFailure(StrEnum):
    """The reference's ProbeFailure: why a file has no media info."""

    PERMISSION_DENIED = "permission_denied"
    UNREACHABLE = "unreachable"
    TIMEOUT = "timeout"
    INVALID = "invalid"
    LINK_GONE = "link_gone"
    NOT_MEDIA = "not_media"
    UNKNOWN = "unknown"


class DynamicRange(StrEnum):
    SDR = "sdr"
    HDR10 = "hdr10"
    HLG = "hlg"
    DOLBY_VISION = "dolbyVision"


class ProbeError(ValueError):
    """ffprobe answered, but not with media info; ``failure`` says why."""

    def __init__(self, failure: ProbeFailure, message: str) -> None:
        super().__init__(message)
        self.failure = failure
        self.message = message


@dataclass(frozen=True, slots=True)
class MediaStreamInfo:
    """One embedded stream. ``index`` is ffprobe's stream index."""

    index: int
    type: StreamType
    codec: str
    bitrate: int | None = None
    channels: int | None = None
    channel_layout: str | None = None
    sample_rate: int | None = None
    width: int | None = None
    height: int | None = None
    language: str | None = None
    title: str | None = None
    is_default: bool = False
    is_forced: bool = False
    is_hearing_impaired: bool = False
    resolution_name: str | None = None
    color_transfer: str | None = None
    dynamic_range: DynamicRange | None = None


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """Media info of one file; ``runtime_ticks`` counts 100 ns ticks."""

    container: str
    format_name: str
    size: int | None
    bitrate: int | None
    runtime_ticks: int | None
    streams: tuple[MediaStreamInfo, ...]


def ffprobe_args(path: str, *, executable: str = FFPROBE_EXECUTABLE) -> list[str]:
    """The full argv probing the local file ``path`` (executable first).

    Output is JSON with format and streams; ``-show_streams`` includes each
    stream's side data (the Dolby Vision configuration record). Only the
    ``file`` protocol is allowed and the path is passed as ``file:<path>``, so
    neither a name starting with ``-`` nor one that looks like a URL, nor a
    playlist inside the file, makes ffprobe parse an option or open the
    network. Run it with ``FFPROBE_ENV`` so errors come in English.
    """
    return [
        executable,
        "-v", "error",
        "-hide_banner",
        "-protocol_whitelist", "file",
        "-print_format", "json",
        "-show_format",
        "-show_streams",
        "-i", f"file:{path}",
    ]  # fmt: skip


def resolution_name(width: int | None, height: int | None) -> str | None:
    """SD, 720p, 1080p, 1440p, 4K or 8K; None when neither size is known.

    A tier is reached when either dimension reaches it, so a 1920x800
    scope movie is 1080p and a 1440x1080 one too.
    """
    if not width and not height:
        return None
    w, h = width or 0, height or 0
    for name, min_w, min_h in RESOLUTION_TIERS:
        if w >= min_w or h >= min_h:
            return name
    return "SD"


def container_name(format_name: str, path_hint: str) -> str:
    """The container name for ffprobe's ``format_name``.

    ffprobe names a demuxer family, not a file type, so the extension of
    ``path_hint`` (a path or an extension, with or without the dot) picks the
    member: ``matroska,webm`` is ``webm`` for .webm files, else ``mkv``;
    ``mov,mp4,m4a,3gp,3g2,mj2`` is ``mov``, ``m4v``, ``m4a``, ``3gp`` or ``3g2``
    by extension, else ``mp4``; ``mpegts`` (also .m2ts/.mts) is ``mpegts``;
    ``mpeg`` is ``vob`` for .vob files. Anything else is the first name of
    the family (``avi``, ``asf``, ``flv``, ``ogg``...), or the extension
    when ffprobe named no format.
    """
    ext = path_hint.rsplit(".", 1)[-1].lower() if path_hint else ""
    family = format_name.split(",")
    if "matroska" in family:
        return "webm" if ext == "webm" else "mkv"
    if "mov" in family:
        return ext if ext in {"mov", "m4v", "m4a", "3gp", "3g2"} else "mp4"
    if family[0] == "mpeg" and ext == "vob":
        return "vob"
    return family[0] or ext


def parse_probe(json_text: str | bytes, *, path_container_hint: str) -> ProbeResult:
    """Media info from ffprobe's JSON (as produced by :func:`ffprobe_args`).

    Raises :class:`ProbeError` with ``invalid`` when the text is not the JSON
    object ffprobe writes or has no format section, and with ``not_media``
    when the file has no audio or video stream or was opened by a picture or
    text demuxer. Data and attachment streams and attached pictures (cover
    art) are not listed. Never raises anything else.
    """
    try:
        document = json.loads(json_text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProbeError(ProbeFailure.INVALID, "ffprobe output is not JSON") from exc
    if not isinstance(document, dict) or not isinstance(document.get("format"), dict):
        raise ProbeError(ProbeFailure.INVALID, "ffprobe output has no format")
    fmt: dict[str, Any] = document["format"]
    format_name = _text(fmt.get("format_name")) or ""
    if format_name in NOT_MEDIA_FORMATS or format_name.endswith("_pipe"):
        raise ProbeError(ProbeFailure.NOT_MEDIA, f"not a media file ({format_name})")
    raw_streams = [s for s in _list(document.get("streams")) if isinstance(s, dict)]
    streams = tuple(
        info for info in (_stream(s) for s in raw_streams) if info is not None
    )
    if not any(s.type in (StreamType.VIDEO, StreamType.AUDIO) for s in streams):
        raise ProbeError(ProbeFailure.NOT_MEDIA, "no audio or video stream")
    size = _int(fmt.get("size"))
    runtime_ticks = _runtime_ticks(fmt, raw_streams)
    return ProbeResult(
        container=container_name(format_name, path_container_hint),
        format_name=format_name,
        size=size,
        bitrate=_int(fmt.get("bit_rate")) or _derived_bitrate(size, runtime_ticks),
        runtime_ticks=runtime_ticks,
        streams=streams,
    )


def dynamic_range(stream: Mapping[str, Any]) -> DynamicRange:
    """The dynamic range of a video stream from ffprobe's stream object.

    Dolby Vision (a DOVI configuration record in the side data, or a Dolby
    Vision codec tag) wins over the transfer function of its base layer;
    ``smpte2084`` (PQ) is HDR10, ``arib-std-b67`` is HLG, anything else SDR.
    HDR10+ is reported as HDR10: telling them apart needs frame side data.
    """
    side_data = _list(stream.get("side_data_list"))
    if any(
        isinstance(d, dict) and "dovi" in str(d.get("side_data_type", "")).lower()
        for d in side_data
    ):
        return DynamicRange.DOLBY_VISION
    if str(stream.get("codec_tag_string", "")).lower() in DOLBY_VISION_CODEC_TAGS:
        return DynamicRange.DOLBY_VISION
    transfer = stream.get("color_transfer")
    if transfer == "smpte2084":
        return DynamicRange.HDR10
    if transfer == "arib-std-b67":
        return DynamicRange.HLG
    return DynamicRange.SDR


def classify_probe_failure(
    returncode: int | None,
    stderr: str,
    *,
    timed_out: bool,
    exists: bool,
    permission: bool,
) -> ProbeFailure:
    """Why an ffprobe run gave no media info.

    ``returncode`` is None when ffprobe never finished (or never started);
    ``exists`` is whether the path (following links) still exists and
    ``permission`` whether the caller already saw a permission error reading
    it. In order: a timeout is ``timeout``; a permission error (seen by the
    caller or in stderr) is ``permission_denied``; a vanished path or target
    is ``link_gone``; I/O and network errors in stderr are ``unreachable``;
    a recognised but damaged file (``moov atom not found``...) is
    ``invalid``; data no demuxer recognises is ``not_media``; anything else,
    including a crash or a missing executable, is ``unknown``.
    """
    if timed_out:
        return ProbeFailure.TIMEOUT
    text = stderr.lower()
    if permission or _mentions(text, PERMISSION_MARKERS):
        return ProbeFailure.PERMISSION_DENIED
    if not exists or _mentions(text, GONE_MARKERS):
        return ProbeFailure.LINK_GONE
    if _mentions(text, UNREACHABLE_MARKERS):
        return ProbeFailure.UNREACHABLE
    if _mentions(text, DAMAGED_MARKERS):
        return ProbeFailure.INVALID
    if _mentions(text, NOT_MEDIA_MARKERS):
        return ProbeFailure.NOT_MEDIA
    return ProbeFailure.UNKNOWN


def _mentions(text: str, markers: tuple[str, ...]) -> bool:
    return any(marker in text for marker in markers)


_STREAM_TYPES = {
    "video": StreamType.VIDEO,
    "audio": StreamType.AUDIO,
    "subtitle": StreamType.SUBTITLE,
}


def _stream(raw: dict[str, Any]) -> MediaStreamInfo | None:
    stream_type = _STREAM_TYPES.get(str(raw.get("codec_type")))
    index = _int(raw.get("index"))
    disposition = raw.get("disposition")
    flags = disposition if isinstance(disposition, dict) else {}
    if stream_type is None or index is None or flags.get("attached_pic") == 1:
        return None
    tags = _lower_keys(raw.get("tags"))
    title = _text(tags.get("title"))
    is_video = stream_type is StreamType.VIDEO
    width = _int(raw.get("width")) if is_video else None
    height = _int(raw.get("height")) if is_video else None
    return MediaStreamInfo(
        index=index,
        type=stream_type,
        codec=_text(raw.get("codec_name")) or "unknown",
        bitrate=_int(raw.get("bit_rate")) or _int(tags.get("bps") or tags.get("bps-eng")),
        channels=_int(raw.get("channels")),
        channel_layout=_text(raw.get("channel_layout")),
        sample_rate=_int(raw.get("sample_rate")),
        width=width,
        height=height,
        language=normalize_language(_text(tags.get("language"))),
        title=title,
        is_default=flags.get("default") == 1,
        is_forced=flags.get("forced") == 1 or _says_forced(stream_type, title),
        is_hearing_impaired=flags.get("hearing_impaired") == 1,
        resolution_name=resolution_name(width, height) if is_video else None,
        color_transfer=_text(raw.get("color_transfer")) if is_video else None,
        dynamic_range=dynamic_range(raw) if is_video else None,
    )


def _says_forced(stream_type: StreamType, title: str | None) -> bool:
    # Many muxers leave the forced flag unset and only title the track.
    return stream_type is StreamType.SUBTITLE and "forced" in (title or "").lower()


def _runtime_ticks(fmt: Mapping[str, Any], streams: list[dict[str, Any]]) -> int | None:
    seconds = _float(fmt.get("duration"))
    if seconds is None:
        per_stream = [_stream_seconds(s) for s in streams]
        seconds = max((s for s in per_stream if s is not None), default=None)
    if seconds is None or seconds < 0:
        return None
    return round(seconds * TICKS_PER_SECOND)


_CLOCK = re.compile(r"^(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$")


def _stream_seconds(stream: Mapping[str, Any]) -> float | None:
    seconds = _float(stream.get("duration"))
    if seconds is not None:
        return seconds
    # Matroska keeps stream durations only as an "HH:MM:SS.nnnnnnnnn" tag.
    match = _CLOCK.match(_text(_lower_keys(stream.get("tags")).get("duration")) or "")
    if match is None:
        return None
    hours, minutes, secs = match.groups()
    return int(hours) * 3600 + int(minutes) * 60 + float(secs)


def _derived_bitrate(size: int | None, runtime_ticks: int | None) -> int | None:
    if not size or not runtime_ticks:
        return None
    return round(size * 8 * TICKS_PER_SECOND / runtime_ticks)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    number = _float(value)
    return int(number) if number is not None else None


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _lower_keys(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    return {str(key).lower(): item for key, item in value.items()}


# ISO 639-2 from the iso-codes package: "bcode", "alpha2:bcode" or
# "alpha2:bcode/tcode" where the terminology code differs.
_ISO_639 = """
    aa:aar ab:abk ace ach ada ady afa afh af:afr ain ak:aka akk ale alg alt am:amh
    ang anp apa ar:ara arc an:arg arn arp art arw as:asm ast ath aus av:ava ae:ave
    awa ay:aym az:aze bad bai ba:bak bal bm:bam ban bas bat bej be:bel bem bn:ben
    ber bho bh:bih bik bin bi:bis bla bnt bo:tib/bod bs:bos bra br:bre btk bua bug
    bg:bul byn cad cai car ca:cat cau ceb cel cs:cze/ces ch:cha chb ce:che chg chk
    chm chn cho chp chr cu:chu cv:chv chy cmc cnr cop kw:cor co:cos cpe cpf cpp
    cr:cre crh crp csb cus cy:wel/cym dak da:dan dar day del den de:ger/deu dgr din
    dv:div doi dra dsb dua dum dyu dz:dzo efi egy eka el:gre/ell elx en:eng enm
    eo:epo et:est eu:baq/eus ee:ewe ewo fan fo:fao fa:per/fas fat fj:fij fil fi:fin
    fiu fon fr:fre/fra frm fro frr frs fy:fry ff:ful fur gaa gay gba gem gez gil
    gd:gla ga:gle gl:glg gv:glv gmh goh gon gor got grb grc gn:grn gsw gu:guj gwi
    hai ht:hat ha:hau haw he:heb hz:her hil him hi:hin hit hmn ho:hmo hr:hrv hsb
    hu:hun hup hy:arm/hye iba ig:ibo io:ido ii:iii ijo iu:iku ie:ile ilo ia:ina inc
    id:ind ine inh ik:ipk ira iro is:ice/isl it:ita jv:jav jbo ja:jpn jpr jrb kaa
    kab kac kl:kal kam kn:kan kar ks:kas ka:geo/kat kr:kau kaw kk:kaz kbd kha khi
    km:khm kho ki:kik rw:kin ky:kir kmb kok kv:kom kg:kon ko:kor kos kpe krc krl kro
    kru kj:kua kum ku:kur kut lad lah lam lo:lao la:lat lv:lav lez li:lim ln:lin
    lt:lit lol loz lb:ltz lua lu:lub lg:lug lui lun luo lus mad mag mh:mah mai mak
    ml:mal man map mr:mar mas mdf mdr men mga mic min mis mk:mac/mkd mkh mg:mlg
    mt:mlt mnc mni mno moh mn:mon mos mi:mao/mri ms:may/msa mul mun mus mwl mwr
    my:bur/mya myn myv nah nai nap na:nau nv:nav nr:nbl nd:nde ng:ndo nds ne:nep new
    nia nic niu nl:dut/nld nn:nno nb:nob nog non no:nor nqo nso nub nwc ny:nya nym
    nyn nyo nzi oc:oci oj:oji or:ori om:orm osa os:oss ota oto paa pag pal pam
    pa:pan pap pau peo phi phn pi:pli pl:pol pon pt:por pra pro ps:pus qu:que raj
    rap rar roa rm:roh rom ro:rum/ron rn:run rup ru:rus sad sg:sag sah sai sal sam
    sa:san sas sat scn sco sel sem sga sgn shn sid si:sin sio sit sla sk:slo/slk
    sl:slv sma se:sme smi smj smn sm:smo sms sn:sna sd:snd snk sog so:som son st:sot
    es:spa sq:alb/sqi sc:srd srn sr:srp srr ssa ss:ssw suk su:sun sus sux sw:swa
    sv:swe syc syr ty:tah tai ta:tam tt:tat te:tel tem ter tet tg:tgk tl:tgl th:tha
    tig ti:tir tiv tkl tlh tli tmh tog to:ton tpi tsi tn:tsn ts:tso tk:tuk tum tup
    tr:tur tut tvl tw:twi tyv udm uga ug:uig uk:ukr umb und ur:urd uz:uzb vai ve:ven
    vi:vie vo:vol vot wak wal war was wen wa:wln wo:wol xal xh:xho yao yap yi:yid
    yo:yor ypk zap zbl zen zgh za:zha zh:chi/zho znd zu:zul zun zxx zza
"""
# Withdrawn, ISO 639-3 and other codes muxers and users still write.
_LANGUAGE_ALIASES = {
    "iw": "heb", "in": "ind", "ji": "yid", "jw": "jav", "mo": "rum", "mol": "rum",
    "scc": "srp", "scr": "hrv", "sh": "hrv", "cmn": "chi", "yue": "chi",
    "nan": "chi", "pes": "per", "prs": "per", "arb": "ara", "zsm": "may",
}
# Codes that mean "no language": a stream tagged so has no language.
NO_LANGUAGE_CODES = frozenset({"und", "zxx", "mis"})


def _language_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for token in _ISO_639.split():
        alpha2, _, codes = token.rpartition(":")
        bibliographic, _, terminology = codes.partition("/")
        table[bibliographic] = bibliographic
        for alias in (alpha2, terminology):
            if alias:
                table[alias] = bibliographic
    table.update(_LANGUAGE_ALIASES)
    return table


_LANGUAGES = _language_table()


def normalize_language(code: str | None) -> str | None:
    """The ISO 639-2/B code for a language code, or None.

    Accepts ISO 639-1 (``de``), 639-2/T (``deu``) and /B (``ger``) codes in
    any case, BCP 47 tags by their primary subtag (``pt-BR`` -> ``por``) and
    a few withdrawn or 639-3 codes muxers write (``iw``, ``cmn``). Unknown
    codes and "no language" codes (``und``, ``zxx``, ``mis``) give None.
    """
    if not code:
        return None
    primary = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    if primary in NO_LANGUAGE_CODES:
        return None
    return _LANGUAGES.get(primary)
