"""The leader's side of commands: run what other nodes ask of the libraries this node leads.

:func:`serve_commands` runs in the LibraryRegistry's nursery.  Woken by a
command's notification (or every poll interval), it claims the commands
for the targets this node leads (``FOR UPDATE SKIP LOCKED``: exactly one
node runs each), asks the local actor within the time the sender has left,
and writes the answer (value or DomainError) back for the sender.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import trio

from reelhouse import errors
from reelhouse.runtime import ActorError, ActorRef
from reelhouse.storage import StoreError
from reelhouse.storage.cluster_commands import COMMAND_WAKE, Command, answer_command, claim_commands

from ..library_messages import GetScrapeQueue
from .codec import CodecError, dump_outcome, loads
from .node import ClusterNode
from .remote import LIBRARY, SCRAPE

log = logging.getLogger(__name__)

CLAIM_BATCH = 32
ANSWER_TIMEOUT_SECONDS = 5.0

LocalRef = Callable[[str], ActorRef | None]  # a target -> its actor here, None when not led here


def library_targets(led: Callable[[], list[str]]) -> Callable[[], list[str]]:
    """The targets of the libraries ``led()`` names: each library and its scrape queue."""
    return lambda: [prefix + library_id for library_id in led() for prefix in (LIBRARY, SCRAPE)]


async def serve_commands(node: ClusterNode, led: Callable[[], list[str]], local: LocalRef) -> None:
    """Claim and run commands for the targets ``led()`` names until cancelled."""
    async with trio.open_nursery() as nursery:
        while True:
            woken = node.wakeups.event(COMMAND_WAKE)  # before looking: a notification is never missed
            targets = led()
            try:
                commands = await claim_commands(node.store, node.node_id, targets, CLAIM_BATCH)
            except StoreError as error:
                log.warning("claiming cluster commands failed: %s", error)
                commands = []
            for command in commands:
                nursery.start_soon(_run_one, node, command, local)
            if len(commands) < CLAIM_BATCH:
                await node.wait(woken)


async def _run_one(node: ClusterNode, command: Command, local: LocalRef) -> None:
    with trio.move_on_after(command.remaining_ms / 1000):
        answer = await _outcome(command, local)
        try:
            with trio.fail_after(ANSWER_TIMEOUT_SECONDS):
                await answer_command(node.store, node.channel, command.id, answer)
        except (StoreError, trio.TooSlowError) as error:
            log.warning("answering cluster command %s failed: %s", command.id, error)


async def _outcome(command: Command, local: LocalRef) -> str:
    kind = command.target.partition(":")[0]
    try:
        msg = loads(command.body)
        ref = local(command.target)
        if ref is None:
            raise errors.Unavailable(
                "This library's leader changed; try again shortly.", params={"retryAfterSeconds": 1}
            )
        if f"{kind}:" == SCRAPE:
            ref = await ref.ask(GetScrapeQueue())
        return dump_outcome(await ref.ask(msg))
    except errors.DomainError as error:
        return dump_outcome(error=error)
    except (ActorError, CodecError) as error:
        return dump_outcome(error=error)
