"""ContentDirectory:1 ``Search`` criteria (section 2.5.5) read into what the item query can ask.

The grammar is the standard's: ``*``, or relational expressions
(``property op "value"``, ``property exists true|false``) joined by
``and`` (binding tighter) and ``or``, with parentheses.  What the
catalogue can answer is :data:`SEARCH_CAPABILITIES`:

- ``upnp:class`` with ``=``, ``!=`` and ``derivedfrom`` (films are
  ``object.item.videoItem.movie``, episodes ``object.item.videoItem``,
  series and seasons ``object.container.storageFolder``);
- ``dc:title`` with ``contains`` or ``=`` (both: the title or original
  title contains the text, case- and accent-insensitively);
- ``upnp:genre`` with ``=`` or ``contains`` (the genre, by name);
- ``dc:date`` with ``<``, ``<=``, ``>``, ``>=``, ``=`` (by year);
- ``@refID exists false`` (true: no item here is a reference).

Any other property matches nothing (a television asking for music gets
none); ``exists false`` of one matches everything.  The criteria become
an ``or`` of at most :data:`MAX_BRANCHES` :class:`Match` (each one item
query; ``http/dlna/search.py`` runs them and joins what they find), so
``dc:title contains "x" or upnp:genre = "x"`` is answered.  What no
conjunction can say (two different titles or genres in one ``and``,
``doesNotContain``) is error 708, as is a malformed criterion, one longer
than :data:`MAX_CRITERIA_CHARS`, nested deeper than :data:`MAX_DEPTH` or
with more branches.  Pure: the query is built by ``http/dlna``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .didl import FOLDER_CLASS, MOVIE_CLASS, VIDEO_CLASS
from .soap import SoapError

INVALID_SEARCH_CRITERIA = 708
MAX_CRITERIA_CHARS = 2048
MAX_DEPTH = 16
MAX_TERMS = 64
MAX_BRANCHES = 8  # item queries one Search may run (an or of different titles, genres or dates)
SEARCH_CAPABILITIES = "dc:title,upnp:class,upnp:genre,dc:date,@refID"
CLASS_OF_TYPE = {"Movie": MOVIE_CLASS, "Episode": VIDEO_CLASS, "Series": FOLDER_CLASS, "Season": FOLDER_CLASS}
EVERY_TYPE = frozenset(CLASS_OF_TYPE)
_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))')


@dataclass(frozen=True, slots=True)
class Match:
    """One conjunction the item query can run: item types and optional title, genre and year bounds."""

    types: frozenset[str] = EVERY_TYPE
    title: str | None = None
    genre: str | None = None
    year_from: int | None = None
    year_to: int | None = None

    @property
    def empty(self) -> bool:
        if not self.types:
            return True
        return self.year_from is not None and self.year_to is not None and self.year_from > self.year_to


def parse_criteria(text: str) -> list[Match]:
    """The :class:`Match` es ``text`` asks for, any of which may hold (empty: nothing can match);
    SoapError 708 when refused."""
    if len(text) > MAX_CRITERIA_CHARS:
        raise _refused("The search criteria are too long.")
    if text.strip() in ("", "*"):
        return [Match()]
    parser = _Parser(_tokens(text))
    found = parser.expression(0)
    if parser.position != len(parser.tokens):
        raise _refused("The search criteria are not well-formed.")
    if len(found) > MAX_BRANCHES:
        raise _refused(f"An or of more than {MAX_BRANCHES} different titles, genres or dates is not supported.")
    return found


def _refused(why: str) -> SoapError:
    return SoapError(INVALID_SEARCH_CRITERIA, why)


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs: ``(``, ``)``, ``str`` (a quoted value, unescaped) or ``word``."""
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text.rstrip()):
        found = _TOKEN.match(text, position)
        if found is None:
            raise _refused("The search criteria are not well-formed.")
        opening, closing, quoted, word = found.groups()
        if quoted is not None:
            tokens.append(("str", re.sub(r"\\(.)", r"\1", quoted)))
        else:
            tokens.append((opening or closing, "") if (opening or closing) else ("word", word))
        position = found.end()
        if len(tokens) > MAX_TERMS * 4:
            raise _refused("The search criteria have too many terms.")
    return tokens


class _Parser:
    """Recursive descent over the tokens; an expression is a list of :class:`Match` (an ``or`` of ``and``)."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.position = 0

    def expression(self, depth: int) -> list[Match]:
        if depth > MAX_DEPTH:
            raise _refused("The search criteria are nested too deeply.")
        found = self._conjunction(depth)
        while self._peek_word("or"):
            self.position += 1
            found = _merge(found + self._conjunction(depth))
        return found

    def _conjunction(self, depth: int) -> list[Match]:
        found = self._term(depth)
        while self._peek_word("and"):
            self.position += 1
            right = self._term(depth)
            found = _merge([both for a in found for b in right if (both := _and(a, b)) is not None])
        return found

    def _term(self, depth: int) -> list[Match]:
        kind, _ = self._next()
        if kind == "(":
            inner = self.expression(depth + 1)
            if self._next()[0] != ")":
                raise _refused("The search criteria have an unclosed parenthesis.")
            return inner
        self.position -= 1
        return _relation(self._next_of("word"), self._next_of("word"), self._next_value())

    def _peek_word(self, word: str) -> bool:
        if self.position >= len(self.tokens):
            return False
        kind, text = self.tokens[self.position]
        return kind == "word" and text.lower() == word

    def _next(self) -> tuple[str, str]:
        if self.position >= len(self.tokens):
            raise _refused("The search criteria end too early.")
        self.position += 1
        return self.tokens[self.position - 1]

    def _next_of(self, kind: str) -> str:
        found_kind, text = self._next()
        if found_kind != kind:
            raise _refused("The search criteria are not well-formed.")
        return text

    def _next_value(self) -> str:
        kind, text = self._next()
        if kind == "str" or (kind == "word" and text.lower() in ("true", "false")):
            return text if kind == "str" else text.lower()
        raise _refused("A search value must be quoted.")


def _relation(prop: str, op: str, value: str) -> list[Match]:
    op = op.lower() if op.isalpha() else op
    if op == "exists":
        known = prop in ("dc:title", "upnp:class")  # every object has these; @refID and the rest: none here
        return [Match()] if (value == "true") == known else []
    if prop == "upnp:class":
        return _class(op, value)
    if prop == "dc:title" and op in ("contains", "="):
        return [Match(title=value)] if value else [Match()]
    if prop == "upnp:genre" and op in ("contains", "="):
        return [Match(genre=value.lower())]
    if prop == "dc:date" and op in ("<", "<=", ">", ">=", "="):
        return _date(op, value)
    if prop in ("dc:title", "upnp:genre", "dc:date"):
        raise _refused(f"{op} is not supported on {prop}.")
    if op not in ("=", "!=", "<", "<=", ">", ">=", "contains", "doesnotcontain", "derivedfrom"):
        raise _refused(f"Unknown operator {op}.")
    return []  # a property nothing here has: no match


def _class(op: str, value: str) -> list[Match]:
    if op == "=":
        types = {t for t, c in CLASS_OF_TYPE.items() if c == value}
    elif op == "!=":
        types = {t for t, c in CLASS_OF_TYPE.items() if c != value}
    elif op == "derivedfrom":
        types = {t for t, c in CLASS_OF_TYPE.items() if c == value or c.startswith(value + ".")}
    else:
        raise _refused(f"{op} is not supported on upnp:class.")
    return [Match(types=frozenset(types))] if types else []


def _date(op: str, value: str) -> list[Match]:
    if not re.fullmatch(r"\d{4}(-\d\d(-\d\d(T[\d:.]+Z?)?)?)?", value):
        raise _refused("dc:date takes a date (YYYY-MM-DD).")
    year = int(value[:4])
    starts_year = len(value) == 4 or value[4:10] == "-01-01"
    bounds = {
        "=": (year, year), ">=": (year if starts_year else year + 1, None), ">": (year + 1, None),
        "<": (None, year - 1 if starts_year else year), "<=": (None, year),
    }[op]  # fmt: skip
    found = Match(year_from=bounds[0], year_to=bounds[1])
    return [] if found.empty else [found]


def _and(a: Match, b: Match) -> Match | None:
    """Both at once, None when they cannot both hold; 708 when one query cannot say it."""
    title = _same(a.title, b.title, "two different titles")
    genre = _same(a.genre, b.genre, "two different genres")
    lows = [y for y in (a.year_from, b.year_from) if y is not None]
    highs = [y for y in (a.year_to, b.year_to) if y is not None]
    both = Match(a.types & b.types, title, genre, max(lows) if lows else None, min(highs) if highs else None)
    return None if both.empty else both


def _same(a: str | None, b: str | None, what: str) -> str | None:
    if a is not None and b is not None and a.casefold() != b.casefold():
        raise _refused(f"Searching for {what} at once is not supported.")
    return a if a is not None else b


def _merge(matches: list[Match]) -> list[Match]:
    """Matches that differ only in their types become one (an ``or`` of classes)."""
    merged: dict[Match, frozenset[str]] = {}
    for match in matches:
        key = replace(match, types=EVERY_TYPE)
        merged[key] = merged.get(key, frozenset()) | match.types
    if len(merged) > MAX_TERMS:
        raise _refused("The search criteria have too many terms.")
    return [replace(key, types=types) for key, types in merged.items()]
