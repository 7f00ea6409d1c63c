"""The ``reelhouse`` command line (the console script ``reelhouse = reelhouse.cli:main``).

``_parser`` defines every command's arguments (light: --help and --version import
nothing else); ``_main`` parses; ``_run`` runs the server or an admin command;
``_accounts`` the ``migrate``, ``apikey`` and ``user`` commands;
``_parental`` the parental flags of ``user set``; ``_plugins`` the
``plugin`` commands; ``_schedule`` the ``schedule`` and ``backup`` commands;
``_peer_import`` the ``import`` command (from another server: ``_peer_source``
reads it, ``_peer_run`` plans and writes).
"""

from ._main import (
    main,
)

__all__ = [
    "main",
]
