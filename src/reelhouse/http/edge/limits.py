"""How long a client may take to send a request body, and how many
connections may be held without credentials: the edge's limits.

A request body gets ``body_seconds`` of waiting on the client, and one
second more for every ``body_min_bytes_per_second`` bytes that arrive (the
rule of Apache's mod_reqtimeout): a body that stalls, or trickles in more
slowly than the minimum rate, is answered 408 and its connection closed.
Only the time spent waiting for the client's bytes counts, never the time
the app takes to consume them.  Without this a body had no deadline but
the app's (60 s), and 70 public sign-ins sending a byte every 2 s held a
server capped at 64 connections for a minute.

The share: see admission.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EdgeLimits:
    """``[http]`` settings the connection layer applies itself."""

    body_seconds: float = 10.0
    body_min_bytes_per_second: int = 1024
    authenticated_share: float = 0.25

    def unauthenticated_limit(self, max_connections: int) -> int:
        """Connections that may be held without credentials (at least one)."""
        reserved = math.ceil(max_connections * self.authenticated_share)
        return max(max_connections - reserved, 1)


@dataclass(slots=True)
class BodyClock:
    """The time one request's body may still take, by what has arrived."""

    limits: EdgeLimits
    request: int  # which request on the connection (its body, not the next one's)
    waited: float = 0.0
    received: int = 0

    def count(self, seconds: float, nbytes: int) -> None:
        """``seconds`` spent waiting on the client, which brought ``nbytes``."""
        self.waited += seconds
        self.received += nbytes

    def remaining(self) -> float:
        allowed = self.limits.body_seconds + self.received / self.limits.body_min_bytes_per_second
        return allowed - self.waited
