"""Messages the runtime's test actors answer (shared by test_runtime.py and test_supervisor.py)."""

from __future__ import annotations

from dataclasses import dataclass

import trio


@dataclass(frozen=True, slots=True)
class Add:
    n: int


@dataclass(frozen=True, slots=True)
class Get:
    pass


@dataclass(frozen=True, slots=True)
class Missing:
    pass


@dataclass(frozen=True, slots=True)
class Boom:
    pass


@dataclass(frozen=True, slots=True)
class Sleep:
    seconds: float


@dataclass(frozen=True, slots=True)
class Hold:
    """Blocks the actor until the test sets the gate."""

    gate: trio.Event


@dataclass(frozen=True, slots=True)
class Finish:
    pass
