"""Every benchmark still imports: a rename in src/ must not leave `make bench` broken.

Benchmarks run as scripts (``python benchmarks/X.py``: their folder is on the
path, so they import their ``_helpers`` by bare name). One fresh interpreter
imports each module the same way, without running it (``__main__`` guards).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
CAP_S = 120.0  # a cold interpreter importing ~30 modules on a loaded machine

IMPORT_EACH = """
import importlib, sys, traceback
sys.path[:0] = [sys.argv[1], sys.argv[2]]
failed = 0
for name in sys.argv[3:]:
    try:
        importlib.import_module(name)
    except BaseException:
        failed += 1
        print(f"== {name}", file=sys.stderr)
        traceback.print_exc()
sys.exit(1 if failed else 0)
"""


def _modules() -> list[str]:
    return sorted(path.stem for path in BENCHMARKS.glob("*.py"))


def test_every_benchmark_module_imports_as_make_bench_runs_it() -> None:
    modules = _modules()
    assert "scheduler_load" in modules and "plugin_calls" in modules
    try:
        done = subprocess.run([sys.executable, "-c", IMPORT_EACH, str(BENCHMARKS), str(ROOT), *modules],
                              cwd=ROOT, capture_output=True, text=True, timeout=CAP_S, check=False)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"importing the benchmarks took over {CAP_S}s: {exc.stderr!r}")
    assert done.returncode == 0, done.stderr
