"""Debian's Chromium driven by Playwright for Python (never `playwright install`), and a foreign origin."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SCREENSHOTS = Path(__file__).parent / "screenshots"  # gitignored: for a reviewer to look at


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (the system's), closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def foreign_page(html: str) -> Iterator[str]:
    """Another origin on the same host (another port: the same *site*, so SameSite cookies still go):
    serves ``html`` at its root; yields its URL."""

    class _Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class Budget:
    """The driver's share of its test's ``fail_after``: every wait in the browser is capped by what is
    left of it (never a fixed guess), so a step that never comes fails here, with the reason, before
    the test's cap kills the process mute."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def left_ms(self) -> float:
        return max(1000.0, (self.deadline - time.monotonic()) * 1000)

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline


class Witness:
    """What the pages said while the script drove them: console messages, uncaught errors, failed
    requests and answers of 400 and up. On a failure: a screenshot of every page and all of it, on stderr."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.lines: list[str] = []
        self.pages: dict[str, Any] = {}
        self.started = time.monotonic()

    def new_page(self, browser: Any, name: str, **context: Any) -> Any:
        page = browser.new_context(**context).new_page()
        page.set_default_timeout(self.budget.left_ms())
        self.pages[name] = page
        page.on("console", lambda m: self._note(name, f"console.{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self._note(name, f"page error: {e}"))
        page.on("requestfailed", lambda r: self._note(name, f"request failed: {r.method} {r.url} {r.failure}"))
        page.on("response", lambda r: r.status >= 400 and self._note(name, f"answer {r.status}: {r.request.method} {r.url}"))
        page.on("framenavigated", lambda f: f.parent_frame is None and self._note(name, f"at {f.url}"))
        return page

    def _note(self, page: str, line: str) -> None:
        self.lines.append(f"{time.monotonic() - self.started:7.2f}s [{page}] {line}")

    @contextmanager
    def explaining(self, backend: str) -> Iterator[None]:
        try:
            yield
        except BaseException:
            for name, page in self.pages.items():
                try:
                    shot = SCREENSHOTS / f"failed-{backend}-{name}.png"
                    page.screenshot(path=shot, full_page=True, timeout=10_000)
                    self._note(name, f"screenshot {shot}; html: {page.inner_html('main', timeout=5000)[:1500]}")
                except Exception as missed:  # the page may be gone with the failure
                    self._note(name, f"no screenshot: {missed}")
            print("what the pages said (the last 80 lines):\n" + "\n".join(self.lines[-80:]), file=sys.stderr)
            raise


def driver_budget_s(margin_s: float = 20.0) -> str:
    """For a test starting a driver: what is left of its ``fail_after``, less time to report a failure."""
    import trio

    return f"{trio.current_effective_deadline() - trio.current_time() - margin_s:.0f}"


# The home page fills its rows (Continue watching, Next up, each library's latest) from separate
# requests that answer in any order; each row that fills moves the ones below it. Clicking a card
# before all have filled can land where the card was a moment ago (seen under load).
HOME_FILLED = (
    "() => [...document.querySelectorAll('#resume, #next-up, .latest')].every((row) => row.children.length > 0)"
)


def open_from_home(page: Any, card: str) -> None:
    """Click ``card`` on the home page once its rows stopped moving; wait for the item page it opens."""
    page.wait_for_function(HOME_FILLED)
    page.click(card)
    page.wait_for_url("**/web/item/**")
    page.wait_for_selector("#title:not(:empty)")  # the item page read its item
