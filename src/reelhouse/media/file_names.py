"""Path text: file names that are bytes on disk, as valid Unicode everywhere else.

Linux names are bytes; most are UTF-8, some are not (``b"Caf\\xe9"``, written
by an old Latin-1 tool). Python's ``os`` functions hand them out as ``str``
with the undecodable bytes as lone surrogates (``os.fsdecode``,
``surrogateescape``), which no UTF-8 encoder accepts: not SQLite's, not
PostgreSQL's, not orjson's, not a log file's.

So a path has one representation inside Reelhouse, *path text*, and the
file system's form only at the system call:

- Path text is the name decoded as UTF-8, each byte that is not part of a
  valid UTF-8 sequence written as the four characters ``\\xHH`` (lowercase
  hex, ``80``-``ff``). A backslash that would otherwise read as such an
  escape (one followed by ``x5c`` or ``x`` and a byte ``80``-``ff``) is
  written ``\\x5c``. Nothing else changes: a UTF-8 name is its own path
  text unless it holds such a backslash sequence as typed text, so ids,
  stored paths and API paths of ordinary names are what they always were.
  (A path stored earlier that does hold one reads back as other bytes
  until a full scan indexes it again under its escaped text.)
- The mapping is lossless both ways (a property test checks it over
  arbitrary bytes), keeps ``/`` and every prefix (each name is escaped on
  its own, and an escape never spans a ``/``), and its output is valid
  Unicode: it goes as it is into the database, JSON, logs and events.

:func:`from_fs` turns an ``os`` string (surrogate-escaped) into path text;
:func:`to_fs` turns path text back into the string to hand to ``os`` (an
``os`` string without backslashes passes through it unchanged, but path
text is what it expects). :func:`readable` is for display (titles): the
bytes decoded, an undecodable byte shown as U+FFFD.
"""

from __future__ import annotations

import os
import re

_SURROGATE_MIN = 0xDC80  # surrogateescape maps byte 0x80+n to U+DC80+n
_ESCAPE_RE = re.compile(r"\\x(5c|[89a-f][0-9a-f])")
# What needs escaping on the way in: an undecodable byte, or a backslash
# that the reader would otherwise take for an escape.
_TO_ESCAPE_RE = re.compile(r"[\udc80-\udcff]|\\(?=x(?:5c|[89a-f][0-9a-f]))")


def from_fs(name: str) -> str:
    """Path text of an ``os`` name or path (undecodable bytes as surrogates)."""
    if "\\" not in name and (name.isascii() or _is_unicode(name)):
        return name  # the common case, checked without a regex
    return _TO_ESCAPE_RE.sub(_escape, name)


def from_fs_bytes(name: bytes) -> str:
    """Path text of a name or path as bytes."""
    return from_fs(os.fsdecode(name))


def to_fs(text: str) -> str:
    """The ``os`` string (surrogate-escaped) of path text."""
    if "\\" not in text:
        return text
    return os.fsdecode(to_bytes(text))


def to_bytes(text: str) -> bytes:
    """The bytes on disk of path text (or of an ``os`` string)."""
    parts: list[bytes] = []
    last = 0
    for match in _ESCAPE_RE.finditer(text):
        parts.append(text[last : match.start()].encode("utf-8", "surrogateescape"))
        parts.append(bytes((int(match.group(1), 16),)))
        last = match.end()
    parts.append(text[last:].encode("utf-8", "surrogateescape"))
    return b"".join(parts)


def readable(text: str) -> str:
    """Path text (or a title cut from it) for display: undecodable bytes as U+FFFD.

    Valid Unicode whatever the input; text without escapes is returned as it is.
    """
    if "\\x" not in text and (text.isascii() or _is_unicode(text)):
        return text
    return to_bytes(text).decode("utf-8", "replace")


def _escape(match: re.Match[str]) -> str:
    found = match.group(0)
    if found == "\\":
        return "\\x5c"
    return f"\\x{ord(found) - _SURROGATE_MIN + 0x80:02x}"


def _is_unicode(text: str) -> bool:
    """Whether ``text`` holds no lone surrogate (so it encodes as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
