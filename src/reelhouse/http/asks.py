"""Asking actors from request handlers, with the edge's timeout."""

from __future__ import annotations

from typing import Any, TypeVar, overload

from reelhouse import errors
from reelhouse.actors.library import GetScrapeQueue
from reelhouse.actors.library_registry import GetLibraryRef
from reelhouse.runtime import ActorRef, ActorStopped, Ask, AskTimeout, NestedAskFailed

from .context import app_context, ask_timeout
from .errors import part_unavailable

Answer = TypeVar("Answer")


@overload
async def ask(ref: ActorRef, msg: Ask[Answer], *, timeout: float | None = None) -> Answer: ...
@overload
async def ask(ref: ActorRef, msg: object, *, timeout: float | None = None) -> Any: ...


async def ask(ref: ActorRef, msg: object, *, timeout: float | None = None) -> Any:
    """Ask ``ref`` (within ``[http] ask_timeout_seconds`` unless ``timeout`` says otherwise);
    a busy or stopping actor is a 503 with Retry-After, never a hang."""
    try:
        return await ref.ask(msg, timeout=ask_timeout() if timeout is None else timeout)
    except AskTimeout:
        raise errors.Unavailable(
            "The server is busy; try again shortly.", params={"retryAfterSeconds": 5}
        ) from None
    except ActorStopped:
        raise errors.Unavailable(
            "The server is stopping or restarting this part; try again shortly.",
            params={"retryAfterSeconds": 5},
        ) from None
    except NestedAskFailed as failed:
        raise part_unavailable(failed) from failed


async def library_ref(library_id: str) -> ActorRef:
    """The LibraryActor of ``library_id``; NotFound for an unknown library."""
    return await ask(app_context().actors.libraries, GetLibraryRef(library_id))


async def scrape_queue_ref(library_id: str) -> ActorRef:
    """The library's ScrapeQueue, through its LibraryActor (down the tree)."""
    return await ask(await library_ref(library_id), GetScrapeQueue())
