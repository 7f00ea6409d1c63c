"""Run by tests/http/web/test_web_browser.py in a process of its own: a member watches in Chromium.

Prints one JSON line: what the browser saw (:class:`Seen`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from typing import Any

from .browser import DESKTOP, HOME_FILLED, PHONE, SCREENSHOTS, Budget, Witness, chromium, foreign_page, open_from_home

PASSWORD = "correct horse battery"
FILM_SECONDS = 30
SEEK_TO = 12.0
PHONE_SEEK_TO = 8.0  # the phone plays the film, seeks here (not 4 s of real playing), plays on, leaves, resumes
PHONE_PLAY_TO = PHONE_SEEK_TO + 0.5


@dataclass(frozen=True)
class Seen:
    hidden_library_shown: bool
    grid_count: str
    favourites_grid: str
    grid_names: list[str]
    episode_path: list[str]
    first_time: float
    resumed_at: float
    played_pressed: str | None
    label_after_played: str | None
    foreign_answer: str
    favorite_after_foreign: str | None
    typed_search_found: list[str]
    next_up_after_played: list[str]
    phone_left_at: float
    phone_resumed_at: float
    opened_by_keyboard: str
    favourite_pressed_by_keyboard: list[str | None]


def _watch(base: str, film_id: str, backend: str, budget: Budget) -> Seen:
    SCREENSHOTS.mkdir(exist_ok=True)
    witness = Witness(budget)
    with chromium() as browser, witness.explaining(backend):
        page = witness.new_page(browser, "desktop", viewport=DESKTOP)
        _sign_in(page, base)
        page.wait_for_function(HOME_FILLED)  # every row filled: nothing moves under a click
        hidden = "Private" in page.inner_text("main")
        found = _search_as_you_type(page, "arriv")
        page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-home.png", full_page=True)
        count, favourites, names = _sort_and_filter_the_grid(page, backend)
        episode_id, path = _browse_to_an_episode(page, base)
        first = _play_until(page, "v.currentTime > 1")
        page.evaluate(f"document.getElementById('video').currentTime = {SEEK_TO}")
        _play_until(page, f"v.currentTime > {SEEK_TO + 0.5}", click=False)
        page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-playing.png")
        _leave_and_find_in_resume(page, base, budget)
        page.click("#resume .card")
        page.wait_for_selector("#play:has-text('Resume')")
        resumed = _play_until(page, f"v.currentTime >= {SEEK_TO}")
        page.click("#played")
        page.wait_for_selector("#played[aria-pressed=true]")
        played = page.get_attribute("#played", "aria-pressed")
        page.goto(f"{base}/web/")  # leaving after the mark: no resume point may come back with it
        page.wait_for_function(HOME_FILLED)
        page.wait_for_selector("#next-up .card span:not([data-series-id])")  # the series' name came
        next_up = [name.strip() for name in page.locator("#next-up .card span").all_inner_texts()]
        page.goto(f"{base}/web/item/{episode_id}")
        page.wait_for_selector("#title:not(:empty)")
        label_after_played = page.text_content("#play")
        foreign, favorite = _post_from_another_origin(page, base, film_id)
        by_keyboard, pressed = _by_keyboard_only(page, base)
        phone = witness.new_page(browser, "phone", viewport=PHONE, is_mobile=True, has_touch=True)
        left_at, phone_resumed = _phone_plays_a_film_and_resumes(phone, base, budget, backend)
    return Seen(hidden, count, favourites, names, path, first, resumed, played, label_after_played, foreign, favorite,
                found, next_up, left_at, phone_resumed, by_keyboard, pressed)


def _sort_and_filter_the_grid(page: Any, backend: str) -> tuple[str, str, list[str]]:
    """The Films grid sorted by date added, then only favourites (none yet), then everything again."""
    page.click("main a:has-text('Films')")
    page.wait_for_selector("#grid .card img")
    page.select_option("#filters select[name=sort]", "dateAdded")
    page.select_option("#filters select[name=order]", "desc")
    page.wait_for_function("() => location.search.includes('sort=dateAdded')")
    page.wait_for_selector("#grid .card")
    page.wait_for_selector("#count:not(:empty)")  # counted on a request of its own
    count = page.inner_text("#count")
    page.select_option("#filters select[name=show]", "favorite")
    page.wait_for_selector("#grid .empty")
    favourites = page.inner_text("#grid")
    page.select_option("#filters select[name=show]", "")
    page.wait_for_selector("#grid .card")
    page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-library.png", full_page=True)
    return count, favourites.strip(), [n.strip() for n in page.locator("#grid .card span").all_inner_texts()]


def _browse_to_an_episode(page: Any, base: str) -> tuple[str, list[str]]:
    """Home, the Series library, the series, its season, its first episode: the episode's id and the titles on the way."""
    page.goto(base + "/web/")
    page.wait_for_function(HOME_FILLED)
    page.click("main h2 a:has-text('Series')")
    titles = [_open_first(page, "#grid .card")]  # the series
    titles.append(_open_first(page, "#children .card"))  # its first season
    titles.append(_open_first(page, "#children .card"))  # its first episode
    return page.url.rsplit("/", 1)[-1], titles


def _open_first(page: Any, cards: str) -> str:
    """Click the first of ``cards`` once listed; the title of the item page it opens."""
    page.wait_for_selector(cards)
    with page.expect_navigation():
        page.locator(cards).first.click()
    page.wait_for_selector("#title:not(:empty)")
    return str(page.inner_text("#title"))


def _by_keyboard_only(page: Any, base: str) -> tuple[str, list[str | None]]:
    """Tab from the top of the home page to the first poster, Enter opens it; Tab to Favourite, Enter twice."""
    page.goto(base + "/web/")
    page.wait_for_function(HOME_FILLED)
    _tab_to(page, "document.activeElement.classList.contains('card')")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_selector("#title:not(:empty)")
    _tab_to(page, "document.activeElement.id === 'favorite'")
    pressed = []
    for value in ("true", "false"):
        page.keyboard.press("Enter")
        page.wait_for_selector(f"#favorite[aria-pressed={value}]")
        pressed.append(page.get_attribute("#favorite", "aria-pressed"))
    return str(page.inner_text("#title")), pressed


def _tab_to(page: Any, focused: str, most: int = 60) -> None:
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(focused):
            return
    raise AssertionError(f"{most} presses of Tab never reached: {focused}")


def _sign_in(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_url("**/web/login")
    page.fill("input[name=name]", "Ann")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/web/")


def _search_as_you_type(page: Any, text: str) -> list[str]:
    """Typing (no Enter) shows the matches under the bar."""
    page.type("#search", text, delay=40)
    page.wait_for_selector("#search-results:not([hidden]) .card")
    names = [name.strip() for name in page.locator("#search-results .card span").all_inner_texts()]
    page.fill("#search", "")
    page.dispatch_event("#search", "input")
    page.wait_for_selector("#search-results", state="hidden")
    return names


def _play_until(page: Any, condition: str, *, click: bool = True) -> float:
    """Press Play (or Resume) and wait until the video plays and ``condition`` (on ``v``) holds."""
    if click:
        page.click("#play")
    page.wait_for_function(
        f"() => {{ const v = document.getElementById('video'); return !v.paused && v.readyState >= 2 && {condition}; }}"
    )
    return float(page.evaluate("document.getElementById('video').currentTime"))


def _leave_and_find_in_resume(page: Any, base: str, budget: Budget) -> None:
    """Leaving the page reports the stop; the home page then lists the film under Continue watching."""
    while not budget.expired():  # the stop report (a keepalive request) may land after the home page's read
        page.goto(base + "/web/")
        page.wait_for_selector("#resume:has(.card, .empty)")  # the home page read the resume list
        if page.locator("#resume .card").count():
            return
    raise AssertionError("the film never appeared under Continue watching")


def _post_from_another_origin(page: Any, base: str, film_id: str) -> tuple[str, str | None]:
    """A page on another port (another origin, the same site: the cookie goes along) posts a form."""
    target = f"{base}/api/v1/me/favorites/{film_id}"
    html = f'<form id="f" method="post" action="{target}"></form><script>document.getElementById("f").submit()</script>'
    with foreign_page(html) as url:
        page.goto(url)
        page.wait_for_url(target)
        answer = page.inner_text("body")
    page.goto(f"{base}/web/item/{film_id}")
    page.wait_for_selector("#title:not(:empty)")
    return answer, page.get_attribute("#favorite", "aria-pressed")


def _phone_plays_a_film_and_resumes(page: Any, base: str, budget: Budget, backend: str) -> tuple[float, float]:
    """On a phone-sized window: the film from the home page, played a little, left, then played again
    from Continue watching; where it was left and where it resumed."""
    _sign_in(page, base)
    page.wait_for_function(HOME_FILLED)
    page.screenshot(path=SCREENSHOTS / f"{backend}-phone-home.png", full_page=True)
    open_from_home(page, ".latest .card:has-text('Arrival')")
    page.screenshot(path=SCREENSHOTS / f"{backend}-phone-item.png", full_page=True)
    _play_until(page, "v.currentTime > 0")
    page.evaluate(f"document.getElementById('video').currentTime = {PHONE_SEEK_TO}")
    left_at = _play_until(page, f"v.currentTime > {PHONE_PLAY_TO}", click=False)
    _leave_and_find_in_resume(page, base, budget)
    page.click("#resume .card:has-text('Arrival')")
    page.wait_for_selector("#play:has-text('Resume')")
    resumed = _play_until(page, f"v.currentTime >= {left_at - 1.0}")
    page.screenshot(path=SCREENSHOTS / f"{backend}-phone-playing.png")
    return left_at, resumed


if __name__ == "__main__":
    print(json.dumps(asdict(_watch(*sys.argv[1:4], Budget(float(sys.argv[4]))))))
