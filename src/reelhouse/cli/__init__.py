"""The ``reelhouse`` command line (the console script ``reelhouse = reelhouse.cli:main``).

``_main`` parses the command and runs the server or an admin command;
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
