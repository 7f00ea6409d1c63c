"""Cold start of the ``reelhouse`` command: how long ``--help`` and ``--version`` take.

Runs each command ``--runs`` times as a fresh interpreter and prints one
line of JSON: the best wall time of each (``help_ms``, ``version_ms``,
``apikey_help_ms``) and its CPU time (user and system, ``help_cpu_ms``...,
which other load on the machine skews less), and ``import_cli_ms``, the
cumulative import time of ``reelhouse.cli`` that ``python -X importtime``
reports, beside ``interpreter_ms``, an interpreter that imports nothing.
Each figure is the best of the runs: the one least disturbed by other load.

Usage: python benchmarks/cli_start.py [--runs N]   (with the project installed, e.g. .venv/bin/python)
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time

COMMANDS = {
    "help_ms": ["--help"],
    "version_ms": ["--version"],
    "apikey_help_ms": ["apikey", "list", "--help"],
}
_IMPORT_LINE = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| reelhouse\.cli$", re.MULTILINE)


def _best_ms(argv: list[str], runs: int) -> tuple[float, float]:
    """The best wall time and the best CPU time (user + system) of ``argv``, in ms."""
    wall = cpu = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        wall = min(wall, time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = min(cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return round(wall * 1000, 1), round(cpu * 1000, 1)


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
    figures: dict[str, float] = {}
    for name, args in COMMANDS.items():
        wall, cpu = _best_ms([sys.executable, "-m", "reelhouse", *args], runs)
        figures[name], figures[name.replace("_ms", "_cpu_ms")] = wall, cpu
    figures["interpreter_ms"] = _best_ms([sys.executable, "-c", "pass"], runs)[0]
    figures["import_cli_ms"] = _best_import_ms(runs)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
