"""rescan_directories: which directories a set of changed paths makes rescan."""

from __future__ import annotations

from pathlib import Path

import pytest

from reelhouse.media.changed_dirs import rescan_directories


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        (["/lib/Movies/Heat/heat.mkv"], ["/lib/Movies/Heat"]),
        (["/lib/a.mkv"], ["/lib"]),
        (  # siblings stay separate
            ["/lib/Shows/A/S01/e1.mkv", "/lib/Shows/B/e2.mkv"],
            ["/lib/Shows/A/S01", "/lib/Shows/B"],
        ),
        (  # a deleted directory and its deleted contents: the directory's parent
            ["/lib/Movies/Heat", "/lib/Movies/Heat/heat.mkv", "/lib/Movies/Heat/poster.jpg"],
            ["/lib/Movies"],
        ),
        (  # nested results fold into the outermost
            ["/lib/Shows/A/S01/e1.mkv", "/lib/Shows/A/tvshow.nfo", "/lib/Shows/A/S02/e1.mkv"],
            ["/lib/Shows/A"],
        ),
        (["/lib"], ["/lib"]),  # the root itself changed: the root, not its parent
        (["/elsewhere/file.mkv", "/libx/file.mkv"], []),  # outside every root
        (["/lib2/Films/f.mkv", "/lib/x.mkv"], ["/lib2/Films", "/lib"]),
    ],
)
def test_rescan_directories_are_parents_folded_to_the_outermost_within_roots(
    changed: list[str], expected: list[str]
) -> None:
    roots = [Path("/lib"), Path("/lib2")]
    assert rescan_directories((Path(p) for p in changed), roots) == frozenset(
        Path(p) for p in expected
    )

