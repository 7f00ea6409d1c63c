"""Text from outside (a plugin's ``log`` message, its stderr) as one harmless log line.

Written raw, such text could drive the terminal that shows the log (ESC
sequences: colours, cursor moves, a cleared screen, a window title), forge
entries of its own (CR, LF, U+2028), or show other words than it holds
(bidi overrides). :func:`loggable` escapes every such character as
``\\xNN``/``\\uNNNN`` (``\\n``, ``\\r``, ``\\t`` for the common three) and a
backslash as ``\\\\``, so an escape in the log always means one was made.
"""

from __future__ import annotations

import re
from typing import Final

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
# C0 and C1 controls and DEL; the line and paragraph separators; the bidi
# marks, embeddings, overrides and isolates; lone surrogates (undecodable bytes).
_UNSAFE: Final = re.compile(
    "[\\\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def loggable(text: str) -> str:
    """``text`` with control, separator and bidi characters (and backslashes) escaped."""
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if (named := _NAMED.get(char)) is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
