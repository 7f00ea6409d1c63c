"""The web console's first paint on a 20,000-item catalogue, against a 200-item one, in one run.

Fills two fresh SQLite data directories (``_catalog_rows.fill_catalog``:
``--items`` and ``--small`` items) with an administrator member, starts
``reelhouse serve`` on each, and loads each console page in Debian's
headless Chromium (``/usr/bin/chromium``, driven by Playwright for Python)
``--rounds`` times after one warm-up load:

- ``home`` (/web/: continue watching, next up, the latest of each library),
- ``library`` (/web/library/{films}: the first 60 posters by name),
- ``item`` (/web/item/{id}: a film's detail, cast, versions),
- ``admin_libraries`` (/web/admin/libraries: the libraries and their scan state),
- ``admin_system`` (/web/admin/: status, caches, the update check),
- ``admin_playback`` (/web/admin/playback: sessions, devices, the play history).

Per page: ``first_paint_ms`` (the browser's first-contentful-paint entry,
from navigation start) and ``content_ms`` (until the page's list or title
is filled from the API), medians; and ``ratio_*``, the large catalogue's
figure over the small one's, measured in the same run. Prints JSON; exits
0. The machine may be loaded by other work: compare the ratios, not the
absolute figures across runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import trio

from _api_processes import reelhouse_server
from _catalog_rows import CatalogSample, fill_catalog, write_posters
from reelhouse.storage import migrate, open_store
from reelhouse.storage.members import add_user

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
PASSWORD = "benchmark password"
WAIT_MS = 60_000
# (name, path template, what shows the page's content is there)
PAGES = (
    ("home", "/web/", ".latest .card"),
    ("library", "/web/library/{films}", "#grid .card"),
    ("item", "/web/item/{item}", "#title:not(:empty)"),
    ("admin_libraries", "/web/admin/libraries", "#libraries .library"),
    ("admin_system", "/web/admin/", "#update"),
    ("admin_playback", "/web/admin/playback", "#history tbody tr"),
)
FIRST_PAINT = "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null"


async def _fill(data_dir: Path, items: int) -> tuple[str, CatalogSample]:
    data_dir.mkdir(parents=True)
    url = f"sqlite:///{data_dir / 'reelhouse.db'}"
    async with open_store(url) as store:
        await migrate(store)
        sample = await fill_catalog(store, items, data_dir.parent / f"media-{items}", write_posters(data_dir / "posters"))
        await add_user(store, "bench", is_admin=True, password=PASSWORD)
    return url, sample


def _measure(base: str, sample: CatalogSample, rounds: int) -> dict[str, dict[str, float]]:
    from playwright.sync_api import sync_playwright

    values = {"films": sample.movies_library, "item": sample.detail_ids[0]}
    figures: dict[str, dict[str, float]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.goto(base + "/web/login")
        page.fill("input[name=name]", "bench")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url("**/web/")
        for name, template, ready in PAGES:
            paints, contents = [], []
            for round_ in range(rounds + 1):  # the first load warms the server's and the browser's caches
                page.goto(base + template.format(**values))
                page.wait_for_selector(ready, timeout=WAIT_MS)
                content = float(page.evaluate("performance.now()"))
                paint = page.evaluate(FIRST_PAINT)
                if round_ and paint is not None:
                    paints.append(float(paint))
                    contents.append(content)
            figures[name] = {"first_paint_ms": round(statistics.median(paints), 1),
                             "content_ms": round(statistics.median(contents), 1)}  # fmt: skip
        browser.close()
    return figures


async def _run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    catalogues = {}
    for label, items in (("small", args.small), ("large", args.items)):
        catalogues[label] = (items, *await _fill(workdir / label, items))
    measured: dict[str, dict[str, dict[str, float]]] = {}
    for label, (_items, url, sample) in catalogues.items():
        with reelhouse_server(workdir / label, url) as server:
            base = server.api_url.removesuffix("/api/v1")
            measured[label] = await trio.to_thread.run_sync(_measure, base, sample, args.rounds)
    ratios = {
        f"ratio_{page}_{figure}": round(measured["large"][page][figure] / measured["small"][page][figure], 2)
        for page in measured["large"] for figure in ("first_paint_ms", "content_ms")
    }  # fmt: skip
    return {"items": {label: c[0] for label, c in catalogues.items()}, "rounds": args.rounds, **measured, **ratios,
            "note": "one run on a machine that may be loaded by other work: compare the ratios"}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--small", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"web_first_paint: {CHROMIUM} is missing (make chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="web-first-paint-") as workdir:
        print(json.dumps(trio.run(_run, args, Path(workdir)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
