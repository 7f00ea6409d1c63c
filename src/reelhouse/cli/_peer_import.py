"""``reelhouse import jellyfin|emby URL``: members' watch state and provider ids from another server.

    reelhouse import jellyfin URL [--member NAME ...] [--apply]   < token
    reelhouse import emby URL [--member NAME ...] [--apply]       < token

The other server's administrator token is the first line of standard
input (never an argument: a command line is visible to every user of the
machine). Without ``--apply`` it is a dry run: it prints what the import
would change, one line each, and changes nothing. With ``--apply`` it
writes the same plan, never over newer data of ours (``_peer_run``).
The reference has importing from another server need a signed-in
administrator (an API key gets 403), and this command is Reelhouse's
admin console. A failure prints the reference's code (``source_unreachable``,
``source_unauthorized``, ``import_source_kind_mismatch``) and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable

import httpx

from reelhouse.media.peer_import import KINDS
from reelhouse.storage import Store
from reelhouse.storage.activity import ActivityRecord, record_activity

from ._peer_run import ImportJob, describe, run_import
from ._peer_source import PeerSource, SourceError, public_address

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

Command = Callable[[Store, argparse.Namespace], Awaitable[int]]


def import_commands() -> dict[tuple[str, str | None], Command]:
    return {("import", kind): _import for kind in KINDS}


async def _import(store: Store, args: argparse.Namespace) -> int:
    token = sys.stdin.readline().strip()
    if not token:
        print("reelhouse: the administrator token is read from stdin, and its first line is empty", file=sys.stderr)
        return EXIT_USAGE
    address = public_address(args.url)
    job = ImportJob(store, address, dry_run=not args.apply)
    await job.save()
    async with httpx.AsyncClient(follow_redirects=False) as client:
        source = PeerSource(client, args.url, token, args.action)
        try:
            plan = await run_import(store, source, address=args.url, apply=args.apply, only=args.member, job=job)
        except SourceError as exc:
            await job.finish("failed", exc.message)
            print(f"reelhouse: {exc.code}: {exc.message}", file=sys.stderr)
            return EXIT_FAILED
        except BaseException:
            await job.finish("failed", "The import failed; see the command's output.")
            raise
    describe(plan, print)
    counts = plan.counts()
    summary = (f"{'Dry run' if plan.dry_run else 'Imported'} from {address}: {counts['played']} played,"
               f" {counts['positions']} positions, {counts['favorites']} favourites,"
               f" {counts['providerIds']} provider ids; {counts['unmatched']} items not matched.")
    changed = counts["played"] + counts["positions"] + counts["favorites"] + counts["providerIds"]
    await job.finish("succeeded", summary, processed=counts["seen"], total=counts["seen"], changed=changed,
                     errors=0)
    await record_activity(store, ActivityRecord(
        action="server.import", category="content", actor_kind="system", actor_name="command line",
        target_kind="server", target_id=address, target_name=source.server_name or address,
        details={"kind": args.action, "dryRun": plan.dry_run, **counts},
    ))
    return EXIT_OK
