"""A network mount that stopped answering, for tests of file routes: patched calls block until released."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any


class HungMount:
    """Stands in for a network mount that stopped answering: calls block until released."""

    def __init__(self) -> None:
        self._answer = threading.Event()

    def hang(self, real: Callable[..., Any], *, after: int = 0) -> Callable[..., Any]:
        """``real``, answering its first ``after`` calls at once."""
        calls = itertools.count()

        def hung(*args: Any, **kwargs: Any) -> Any:
            if next(calls) >= after:
                self._answer.wait()
            return real(*args, **kwargs)

        return hung

    def release(self) -> None:
        self._answer.set()
