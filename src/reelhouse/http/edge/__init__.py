"""The connection layer under the app: sockets, connections, HTTP/1.1 rules."""

from .serve import BindError, EdgeServer, bind_sockets, connection_budget

__all__ = ["BindError", "EdgeServer", "bind_sockets", "connection_budget"]
