"""Cold start of the ``reelhouse`` command: how long ``--help`` and ``--version`` take.

Runs each command ``--runs`` times as a fresh interpreter and prints one
line of JSON: the best wall time of each (``help_ms``, ``version_ms``,
``apikey_help_ms``), and ``import_cli_ms``, the cumulative import time of
``reelhouse.cli`` that ``python -X importtime`` reports (best of the runs),
beside ``interpreter_ms``, an interpreter that imports nothing. The best
run is the one least disturbed by other load on the machine.

Usage: python benchmarks/cli_start.py [--runs N]   (with the project installed, e.g. .venv/bin/python)
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time

COMMANDS = {
    "help_ms": ["--help"],
    "version_ms": ["--version"],
    "apikey_help_ms": ["apikey", "list", "--help"],
}
_IMPORT_LINE = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| reelhouse\.cli$", re.MULTILINE)


def _best_wall_ms(argv: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        best = min(best, time.perf_counter() - started)
    return round(best * 1000, 1)


def _best_import_ms(runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import reelhouse.cli"],
                              check=True, capture_output=True, text=True)
        match = _IMPORT_LINE.search(done.stderr)
        assert match is not None, done.stderr[-500:]
        best = min(best, int(match.group(1)) / 1000)
    return round(best, 1)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=10)
    runs = options.parse_args().runs
    figures = {name: _best_wall_ms([sys.executable, "-m", "reelhouse", *args], runs)
               for name, args in COMMANDS.items()}
    figures["interpreter_ms"] = _best_wall_ms([sys.executable, "-c", "pass"], runs)
    figures["import_cli_ms"] = _best_import_ms(runs)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
