"""The fake TMDB API in a process of its own, for scrape_load.py.

In the benchmark's own process its serving threads would take the GIL
from the latency probe and inflate the very p99 it measures. Started as
``python benchmarks/_fake_tmdb_process.py ITEMS DELAY``: prints one JSON
line ``{baseUrl, apiKey}``, then answers each command line read from stdin
with one JSON line, and exits when stdin closes. Commands:

- ``figures``: ``{apiRequests, imageRequests, maxApiConcurrency,
  apiBusySeconds, counts}`` since the start or the last ``reset``;
- ``reset``: the counters start again (``{}``);
- ``delay S``: every request now answers after S seconds (``{}``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def fake_tmdb_process(items: int, delay: float) -> Iterator[tuple[dict[str, Any], subprocess.Popen[str]]]:
    """The fake's ``{baseUrl, apiKey}`` and its process (ask it with :func:`figures`, :func:`command`)."""
    process = subprocess.Popen([sys.executable, __file__, str(items), str(delay)], cwd=ROOT,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield json.loads(process.stdout.readline()), process
    finally:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=20)


def command(process: subprocess.Popen[str], line: str) -> dict[str, Any]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    return json.loads(process.stdout.readline())


def figures(process: subprocess.Popen[str]) -> dict[str, Any]:
    return command(process, "figures")


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.fakes.tmdb_api import fake_tmdb
    from tests.fakes.tmdb_catalogue import fixture_catalogue, synthetic_movies, with_movies

    items, delay = int(sys.argv[1]), float(sys.argv[2])
    with fake_tmdb(with_movies(fixture_catalogue(), synthetic_movies(items)), delay=delay) as fake:
        print(json.dumps({"baseUrl": fake.base_url, "apiKey": fake.api_key}), flush=True)
        for line in sys.stdin:
            word, _, argument = line.strip().partition(" ")
            answer: dict[str, Any] = {}
            if word == "reset":
                fake.reset_stats()
            elif word == "delay":
                fake.delay = float(argument)
            else:
                counts = fake.counts()
                answer = {"apiRequests": sum(n for path, n in counts.items() if path.startswith("/3/")),
                          "imageRequests": sum(n for path, n in counts.items() if path.startswith("/t/p/")),
                          "maxApiConcurrency": fake.max_api_concurrency, "apiBusySeconds": fake.api_busy_seconds,
                          "counts": counts}
            print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
