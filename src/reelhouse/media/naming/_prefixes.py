"""Site and uploader prefixes before a release's title.

Private to ``reelhouse.media.naming`` (which documents the rules). Pure
functions over ``str``.

Downloads often carry the site or the uploader before the title:
``[ www.Site.com ] - Movie (2010)``, ``www.Site.org - Show.S01E02``,
``www.Site.com.Movie.2010.1080p``, ``(site.net) Movie``, and a language
prefix ``Fr - Movie (2010)``. They are never part of a title. A bare word
with a dot (``Mr.Robot``) is not a site: only ``www.`` names, names in
brackets, and ``name.tld`` followed by a spaced dash are.
"""

from __future__ import annotations

import re

_TLDS = (
    "com|net|org|to|tv|info|cc|me|io|ws|biz|xyz|club|site|online|ru|fr|de|es|it|pl|nl|se|co|uk|in"
    "|lol|mx|li|ag|is|la|bz|pw|nu|eu|us|ca|ch|top|vip|fun|link|live|world|one|cx|gg|am|sx|st|su"
)
_SITE_PREFIX_RE = re.compile(
    r"\s*(?:"
    rf"[\[(]\s*(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:{_TLDS})\s*[\])]"  # [ www.Site.com ], (site.net)
    rf"|www\.[a-z0-9-]+(?:\.[a-z0-9-]+)*?\.(?:{_TLDS})(?![a-z0-9])"  # www.Site.com
    rf"|[a-z0-9-]+\.(?:{_TLDS})(?=\s+-\s)"  # Site.com - Title
    r")(?:\s*[-~|:]+\s*|[\s._]*)",
    re.IGNORECASE,
)
# `Fr - Movie (2010)`, `VOSTFR - Show`, `German - Movie`: a language then a spaced dash.
_LANGUAGE_PREFIX_RE = re.compile(
    r"\s*(?:fr|vf|vff|vo|vost|vostfr|en|eng|de|ger|es|esp|it|ita|pt|nl|multi"
    r"|french|truefrench|german|deutsch|spanish|castellano|italian)\s+-\s+",
    re.IGNORECASE,
)


def strip_prefixes(stem: str) -> str:
    """``stem`` without a site or language prefix; unchanged when it has none
    or when nothing would be left."""
    head = stem[:6].casefold()
    if not ("www" in head or head[:1] in "[(" or " - " in stem[:32]):
        return stem  # cheap test: almost no name has a prefix
    rest = stem
    match = _SITE_PREFIX_RE.match(rest)
    if match is not None and match.end() < len(rest):
        rest = rest[match.end() :]
    match = _LANGUAGE_PREFIX_RE.match(rest)
    if match is not None and match.end() < len(rest):
        rest = rest[match.end() :]
    return rest
