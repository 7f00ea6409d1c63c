"""LISTEN on a connection of its own: the cluster's notifications as a Trio channel (PostgreSQL only).

A psycopg connection on a dedicated thread waits for notifications and
hands each payload to the event loop.  Notifications only wake (every
consumer also polls), so one lost while the connection is re-opened costs
a poll interval, never a message; after a reconnection :data:`RECONNECTED`
is sent so that consumers look at once.  The channel is named after the
schema: NOTIFY is database-wide and several catalogues may share a database.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable

import trio

log = logging.getLogger(__name__)

RECONNECTED = ""  # the payload sent after the listening connection was opened again
WAIT_SLICE_S = 0.5  # how often the thread looks whether it should stop
RECONNECT_DELAY_S = 1.0
CONNECT_TIMEOUT_S = 10


def channel_name(schema: str | None) -> str:
    """``reelhouse_<schema>``, hashed when it would pass PostgreSQL's 63 characters."""
    name = f"reelhouse_{schema or 'public'}"
    if len(name) > 63:
        name = "reelhouse_" + hashlib.sha256(name.encode()).hexdigest()[:40]
    return name


async def listen(
    dsn: str, channel: str, send: trio.MemorySendChannel[str],
    *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Forward every notification on ``channel`` to ``send`` until cancelled; started once listening."""
    stop = threading.Event()
    token = trio.lowlevel.current_trio_token()
    ready = trio.Event()

    def deliver(payload: str) -> None:
        try:
            send.send_nowait(payload)
        except trio.WouldBlock:
            pass  # consumers poll anyway; a full queue means they are already awake
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            stop.set()

    def run() -> None:
        # Imported here, in the thread: a SQLite server, which never listens,
        # need not load psycopg (65 ms of its start, 13 MB; see storage/_open.py).
        import psycopg

        first = True
        while not stop.is_set():
            try:
                with psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                    conn.execute(f'LISTEN "{channel}"')
                    token.run_sync_soon(ready.set if first else (lambda: deliver(RECONNECTED)))
                    first = False
                    while not stop.is_set():
                        for note in conn.notifies(timeout=WAIT_SLICE_S):
                            token.run_sync_soon(deliver, note.payload)
            except (psycopg.Error, OSError) as error:
                if stop.is_set():
                    return
                log.warning("cluster notifications: %s; listening again in %.0f s", error, RECONNECT_DELAY_S)
                stop.wait(RECONNECT_DELAY_S)
            except trio.RunFinishedError:
                return

    async with trio.open_nursery() as nursery:
        nursery.start_soon(_run_thread, run, stop)
        with trio.fail_after(CONNECT_TIMEOUT_S * 2):
            await ready.wait()
        task_status.started()


async def _run_thread(run: Callable[[], None], stop: threading.Event) -> None:
    # Abandoned on cancel: the thread sees ``stop`` within WAIT_SLICE_S and
    # ends by itself; the server's exit need not wait for it.
    try:
        await trio.to_thread.run_sync(run, abandon_on_cancel=True)
    finally:
        stop.set()
