"""3D markers in file names: which 3D format a version is in.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over ``str``.

Layouts: ``HSBS`` (half side by side), ``FSBS`` (full side by side),
``HTAB`` (half top and bottom, also ``H-OU``), ``FTAB`` (full top and
bottom), ``MVC`` (Blu-ray 3D), written alone or after ``3D``
(``3D.HSBS``, ``3D Half-SBS``, ``3D-Full-OU``). ``3D.SBS`` and ``3D.TAB``
/ ``3D.OU`` without half or full are half (what such releases are). A plain
``3D`` marks a 3D version of unknown layout when it is not part of the
title: ``Avatar.2009.3D.1080p`` is 3D, ``Step Up 3D (2010)`` is a title.
"""

from __future__ import annotations

import re

FORMAT_3D = "3D"  # a 3D version whose layout the name does not tell
_LAYOUT_RE = re.compile(
    r"(?<![a-z0-9])(?:3d[ ._-]*)?"
    r"(?P<size>h|half|f|full)[ ._-]?(?P<kind>sbs|tab|ou)(?![a-z0-9])"
    r"|(?<![a-z0-9])(?:3d[ ._-]*)?(?P<mvc>mvc)(?![a-z0-9])"
    r"|(?<![a-z0-9])3d[ ._-]*(?P<plain>sbs|tab|ou)(?![a-z0-9])",
    re.IGNORECASE,
)
# `Super movie.3d`: a dotted suffix on a spaced name is a marker, not a word.
_DOT_3D_SUFFIX_RE = re.compile(r"(?<=\S)\.3d$", re.IGNORECASE)
_PLAIN_3D_RE = re.compile(r"(?<![a-z0-9])3d(?![a-z0-9])", re.IGNORECASE)
# A version label ending an episode title: `Pilot - 3D`.
_LABEL_3D_RE = re.compile(r"\s*-\s*3d$", re.IGNORECASE)
# Cheap test before the full expression: almost no name is 3D. Substring
# tests on the folded text are several times faster than any pattern.
def may_be_3d(text: str) -> bool:
    """Cheap test: False when ``text`` certainly names no 3D format."""
    f = text.lower()
    return "3d" in f or "sbs" in f or "tab" in f or "mvc" in f or (
        "ou" in f and ("-ou" in f or ".ou" in f or "_ou" in f or " ou" in f)
    )


def layout_3d(text: str) -> str | None:
    """``HSBS``, ``FSBS``, ``HTAB``, ``FTAB`` or ``MVC`` named in ``text``, or None."""
    if not may_be_3d(text):
        return None
    match = _LAYOUT_RE.search(text)
    if match is None:
        return None
    if match.group("mvc"):
        return "MVC"
    if match.group("plain"):
        return "HSBS" if match.group("plain").casefold() == "sbs" else "HTAB"
    size = "H" if match.group("size").casefold() in ("h", "half") else "F"
    return size + ("SBS" if match.group("kind").casefold() == "sbs" else "TAB")


def strip_3d(text: str) -> str:
    """``text`` without its 3D layout markers (and the ``3D`` before them),
    and without a ``.3d`` suffix on a spaced name (``Super movie.3d``)."""
    if not may_be_3d(text):
        return text
    text = _LAYOUT_RE.sub("", text)
    return _DOT_3D_SUFFIX_RE.sub("", text) if " " in text else text


def format_3d(stem: str, title: str | None) -> str | None:
    """The 3D format of a version named ``stem`` whose parsed title is ``title``.

    A layout wins; else ``3D`` when a ``3D`` word stands outside the title
    (``Avatar.2009.3D.1080p``, ``Avatar (2009) - 3D``); else None.
    """
    layout = layout_3d(stem)
    if layout is not None:
        return layout
    if "3" not in stem or _PLAIN_3D_RE.search(stem) is None:
        return None
    in_title = title is not None and _PLAIN_3D_RE.search(title) is not None
    return None if in_title else FORMAT_3D


def without_3d_label(title: str) -> str | None:
    """``Pilot - 3D`` -> ``Pilot``; None when ``title`` has no such label."""
    if not title.endswith(("3d", "3D")):
        return None
    match = _LABEL_3D_RE.search(title)
    return title[: match.start()] if match is not None else None
