"""The ``reelhouse`` command: the server and its admin console.

    reelhouse serve [--config FILE] [--bind HOST:PORT] [--data-dir DIR] [--database URL]
    reelhouse --print-completion bash|zsh|tcsh      (a shell completion script, shtab)
    reelhouse migrate
    reelhouse apikey create NAME | list | revoke ID
    reelhouse user add NAME [--admin] [--password-stdin] | list
    reelhouse plugin list | install DIR | enable ID | disable ID | set ID KEY=VALUE ... | remove ID
    reelhouse user set NAME [--admin | --no-admin] [--disabled | --enabled] [--hidden | --visible]
                            [--all-libraries | --library ID ...] [--password-stdin] [--pin-stdin | --clear-pin]
                            [--max-age N] [--block-tag T] [--block-genre G] [--block-item ID] [--allow-item ID]
                            [--daily-limit MINUTES] [--window DAYS HH:MM-HH:MM] [--clear-parental]  (_parental.py)
    reelhouse schedule list | set TASK RULE | pause|resume|reset TASK   (_schedule.py)
    reelhouse backup create | list | restore FILE                       (_schedule.py)
    reelhouse import jellyfin|emby URL [--member NAME ...] [--apply]  < token   (_peer_import.py)

Every command accepts the same configuration options. The admin commands
open the store directly, so they work while the server runs (SQLite in WAL
mode with a busy timeout; PostgreSQL as usual). Exit codes: 0 success,
1 a failed operation (message on stderr), 2 bad usage or configuration
(a database that cannot be opened included: one line, no traceback).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ._parser import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Only now what the command needs (configuration, store, trio, HTTP
    # client): --help, --version and a usage error start in a fraction of the time.
    from ._run import run_command

    return run_command(args)


if __name__ == "__main__":
    sys.exit(main())
