"""A share of the connection cap kept for clients with credentials.

Connections that never authenticated (a sign-in, the API description, a
client that has not sent its first request yet) may hold at most
``max_connections`` less ``[http] authenticated_share`` of it.  A
connection accepted while they already fill their share is *on trial*: it
is one of the reserve, so its first request must carry a valid API key or
device token.  A request without one on it is answered 503 at once (the
app asks :func:`admit_anonymous` before reading any body) and the
connection closes after that response.  When every slot is taken, a new
connection evicts the oldest connection on trial that has not
authenticated (a slow head cannot sit on the reserve either), else it is
refused 503.

Why a reserved share and not a limit per address: behind a reverse proxy
every client has the proxy's address, so a per-address limit either caps
everyone or no one, and an attacker with many addresses passes it anyway.
The share holds whatever the addresses; an authenticated player, script or
administrator keeps getting in while anonymous connections fill theirs.

The app learns of its connection through the ASGI scope's ``state`` (the
edge puts this connection's :class:`Admission` there); under another
server (the app's test client) there is none and everything is admitted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

ADMISSION_KEY = "reelhouse.edge.admission"


class Admission(Protocol):
    def admit_anonymous(self) -> bool:
        """May a request without credentials be served on this connection?"""
        ...

    def mark_authenticated(self) -> None:
        """A request on this connection carried valid credentials."""
        ...


def admit_anonymous(scope: Mapping[str, Any]) -> bool:
    """False when this request, without credentials, came on a connection of
    the reserve: answer 503 (the connection closes after it)."""
    admission = _admission(scope)
    return admission is None or admission.admit_anonymous()


def note_authenticated(scope: Mapping[str, Any]) -> None:
    """This request's credentials were valid: its connection is an authenticated client's."""
    admission = _admission(scope)
    if admission is not None:
        admission.mark_authenticated()


def _admission(scope: Mapping[str, Any]) -> Admission | None:
    state = scope.get("state")
    return state.get(ADMISSION_KEY) if isinstance(state, Mapping) else None
