"""``python -m reelhouse``: the same as the ``reelhouse`` command."""

import sys

from reelhouse.cli import main

sys.exit(main())
