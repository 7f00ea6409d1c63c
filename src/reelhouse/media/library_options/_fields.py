"""Parsers for the values of a LibraryOptionsUpdate body, one per kind.

Each parser takes the field's camelCase name (for the error) and the raw
JSON value, and returns the value to store or raises
:class:`~reelhouse.errors.Invalid` naming the field (``params.field``).
Booleans must be JSON booleans and numbers JSON numbers; a whole number
may arrive as ``168.0`` and is accepted as ``168``.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Iterable
from typing import Final

from reelhouse.errors import Invalid

TIB: Final = 1 << 40
MAX_EXCLUSION_ENTRIES: Final = 50
MAX_KEYWORD_CHARS: Final = 64
MAX_EXTENSION_CHARS: Final = 16  # not counting the leading dot
UNRATED_AGES: Final[tuple[int, ...]] = (0, 7, 12, 16, 18)
SUPPORTED_METADATA_LANGUAGES: Final[tuple[str, ...]] = ("en", "zh-CN", "zh-TW")
MAX_PORT: Final = 65535
MAX_HOSTNAME_CHARS: Final = 253

_CANONICAL_LANGUAGE: Final = {tag.lower(): tag for tag in SUPPORTED_METADATA_LANGUAGES}
# Loose BCP 47 shape: a 2-8 letter primary tag, then 1-8 character subtags.
_LANGUAGE_TAG: Final = re.compile(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*")
_HOST_LABEL: Final = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOSTNAME: Final = re.compile(rf"{_HOST_LABEL}(?:\.{_HOST_LABEL})*\.?")
_PORT: Final = re.compile(r"[0-9]{1,5}")
_HOST_FORBIDDEN: Final = frozenset("/?#@\\")


def parse_bool(field: str, raw: object) -> bool:
    if not isinstance(raw, bool):
        raise Invalid(f"{field} must be true or false.", field=field)
    return raw


def parse_int(field: str, raw: object, *, low: int, high: int) -> int:
    """A whole number in ``low..high`` (both inclusive)."""
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise Invalid(f"{field} must be a whole number.", field=field)
    if not low <= raw <= high:
        raise Invalid(f"{field} must be between {low} and {high}.", field=field)
    return raw


def parse_fraction(field: str, raw: object) -> float:
    """A number from 0 to 1."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise Invalid(f"{field} must be a number.", field=field)
    if not (math.isfinite(raw) and 0 <= raw <= 1):
        raise Invalid(f"{field} must be between 0 and 1.", field=field)
    return float(raw)


def parse_choice(field: str, raw: object, choices: tuple[str, ...]) -> str:
    if not isinstance(raw, str) or raw not in choices:
        raise Invalid(f"{field} must be one of {', '.join(choices)}.", field=field)
    return raw


def parse_unrated_age(field: str, raw: object) -> int:
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, bool) or raw not in UNRATED_AGES:
        ages = ", ".join(str(age) for age in UNRATED_AGES)
        raise Invalid(f"{field} must be one of {ages}.", field=field)
    return int(raw)


def parse_strings(field: str, raw: object) -> list[str]:
    """An array of strings, as given."""
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise Invalid(f"{field} must be an array of strings.", field=field)
    return raw


def parse_ids(field: str, raw: object) -> tuple[str, ...]:
    """Plugin ids in order, exact duplicates dropped."""
    return tuple(dict.fromkeys(parse_strings(field, raw)))


def parse_keywords(field: str, raw: object) -> tuple[str, ...]:
    """Exclusion keywords: trimmed, lowercased, empty and duplicates dropped."""
    keywords = _normalised(parse_strings(field, raw))
    _check_exclusion_count(field, keywords)
    for keyword in keywords:
        if len(keyword) > MAX_KEYWORD_CHARS:
            raise Invalid(
                f"{field}: {keyword!r} is longer than {MAX_KEYWORD_CHARS} characters.",
                field=field,
            )
        _check_no_slash(field, keyword)
    return keywords


def parse_extensions(field: str, raw: object) -> tuple[str, ...]:
    """Excluded extensions: like keywords, each with one leading dot."""
    dotted = (name if name.startswith(".") else "." + name
              for name in _normalised(parse_strings(field, raw)))
    extensions = tuple(dict.fromkeys(dotted))
    _check_exclusion_count(field, extensions)
    for extension in extensions:
        body = extension[1:]
        _check_no_slash(field, extension)
        if not body or "." in body or any(ch.isspace() for ch in body):
            raise Invalid(
                f"{field}: {extension!r} is not a file extension "
                "(one leading dot, then no dots or spaces).",
                field=field,
            )
        if len(body) > MAX_EXTENSION_CHARS:
            raise Invalid(
                f"{field}: {extension!r} is longer than {MAX_EXTENSION_CHARS} characters.",
                field=field,
            )
    return extensions


def parse_hosts(field: str, raw: object) -> tuple[str, ...]:
    """``host[:port]`` entries, lowercased, duplicates dropped.

    An entry with a scheme, path, query, fragment, ``@``, whitespace, a bad
    port or a malformed host is 400 ``host_invalid``.
    """
    hosts = tuple(dict.fromkeys(entry.lower() for entry in parse_strings(field, raw)))
    for host in hosts:
        if not _is_host_and_port(host):
            raise Invalid(
                f"{field}: {host!r} is not a host name with an optional port "
                "(no scheme, path, query, '@' or spaces).",
                field=field,
                code="host_invalid",
                params={"value": host},
            )
    return hosts


def parse_metadata_language(field: str, raw: object) -> str:
    """One of :data:`SUPPORTED_METADATA_LANGUAGES`, canonical; ``""`` = default."""
    if not isinstance(raw, str):
        raise Invalid(f"{field} must be a string.", field=field)
    if raw == "":
        return ""
    canonical = _CANONICAL_LANGUAGE.get(raw.lower())
    if canonical is None:
        supported = ", ".join(SUPPORTED_METADATA_LANGUAGES)
        raise Invalid(
            f"{field}: {raw!r} is not supported; use one of {supported}, "
            "or an empty string for the server default.",
            field=field,
            code="unsupported_language",
        )
    return canonical


def parse_subtitle_languages(field: str, raw: object) -> tuple[str, ...]:
    """BCP 47 tags in order: trimmed, empty and case-insensitive duplicates dropped."""
    seen: dict[str, str] = {}
    for tag in (item.strip() for item in parse_strings(field, raw)):
        if not tag:
            continue
        if not _LANGUAGE_TAG.fullmatch(tag):
            raise Invalid(f"{field}: {tag!r} is not a BCP 47 language tag.", field=field)
        seen.setdefault(tag.lower(), tag)
    return tuple(seen.values())


def _normalised(entries: Iterable[str]) -> tuple[str, ...]:
    cleaned = (entry.strip().lower() for entry in entries)
    return tuple(dict.fromkeys(entry for entry in cleaned if entry))


def _check_exclusion_count(field: str, entries: tuple[str, ...]) -> None:
    if len(entries) > MAX_EXCLUSION_ENTRIES:
        raise Invalid(
            f"{field} has {len(entries)} entries; at most {MAX_EXCLUSION_ENTRIES} "
            "are allowed.",
            field=field,
        )


def _check_no_slash(field: str, entry: str) -> None:
    if "/" in entry or "\\" in entry:
        raise Invalid(f"{field}: {entry!r} must not contain / or \\.", field=field)


def _is_host_and_port(entry: str) -> bool:
    if not entry or any(ch.isspace() or ch in _HOST_FORBIDDEN for ch in entry):
        return False
    if entry.startswith("["):
        address, bracket, rest = entry[1:].partition("]")
        port_ok = rest == "" or _is_port_suffix(rest)
        return bool(bracket) and _is_ipv6(address) and port_ok
    if entry.count(":") > 1:
        return _is_ipv6(entry)  # a bare IPv6 address has no room for a port
    host, colon, port = entry.partition(":")
    if colon and not _is_port(port):
        return False
    return len(host) <= MAX_HOSTNAME_CHARS and bool(_HOSTNAME.fullmatch(host))


def _is_port_suffix(rest: str) -> bool:
    return rest.startswith(":") and _is_port(rest[1:])


def _is_port(text: str) -> bool:
    return bool(_PORT.fullmatch(text)) and 1 <= int(text) <= MAX_PORT


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True
