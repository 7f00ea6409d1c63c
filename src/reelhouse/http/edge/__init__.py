"""The connection layer under the app: sockets, connections, HTTP/1.1 rules."""

from .admission import admit_anonymous, note_authenticated
from .limits import EdgeLimits
from .serve import BindError, EdgeServer, bind_sockets, connection_budget

__all__ = [
    "BindError",
    "EdgeLimits",
    "EdgeServer",
    "admit_anonymous",
    "bind_sockets",
    "connection_budget",
    "note_authenticated",
]
