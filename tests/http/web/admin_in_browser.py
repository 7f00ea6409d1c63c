"""Run by tests/http/web/test_web_admin_browser.py in a process of its own: an administrator in Chromium.

The administrator adds a library and watches its scan to completion (the
states the page showed are recorded as they change), renames it, stops a
member's playback in another browser, creates and revokes an API key (tried
on the API before and after), clears the image cache, gives the member a
parental rule, installs a plugin from a folder, backs up and asks for a
restore at the next start, then withdraws it. Prints one JSON line:
:class:`AdminSeen`.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any

from .browser import DESKTOP, PHONE, SCREENSHOTS, Budget, Witness, chromium, open_from_home

PASSWORD = "correct horse battery"
# Records every scan state a library card shows, in order, as the scan event stream moves it.
RECORD_STATES = """() => {
  window.seenStates = [];
  new MutationObserver(() => {
    for (const s of document.querySelectorAll('#libraries .state')) {
      const last = window.seenStates[window.seenStates.length - 1];
      if (s.textContent !== last) window.seenStates.push(s.textContent);
    }
  }).observe(document.getElementById('libraries'), { childList: true, subtree: true, characterData: true });
}"""


TOGGLE_EXTERNAL_AUDIO = """() => {
  const box = document.querySelector('#libraries textarea.options');
  const options = JSON.parse(box.value);
  options.externalAudio = !options.externalAudio;
  box.value = JSON.stringify(options);
}"""


@dataclass(frozen=True)
class AdminSeen:
    scan_states: list[str]
    scan_summary: str
    option_hints: str
    error_said: str
    error_hidden_after_success: bool
    session_rows_before_stop: int
    member_paused_after_stop: bool
    stopped_note_shown: bool
    sessions_after_stop: str
    key_shown: str
    key_status_before_revoke: int
    key_status_after_revoke: int
    key_row_after_revoke: str
    member_admin_page_status: int
    history_row: str
    renamed_heading: str
    cache_notice: str
    parental_summary: str
    plugin_heading: str
    restore_said: str
    restore_offered_again_after_withdrawal: bool


def _admin(base: str, media_root: str, film_name: str, plugin_dir: str, backend: str, budget: Budget) -> AdminSeen:
    SCREENSHOTS.mkdir(exist_ok=True)
    witness = Witness(budget)
    with chromium() as browser, witness.explaining(backend):
        page = witness.new_page(browser, "admin", viewport=DESKTOP)
        _sign_in(page, base, "Root")
        page.click("text=Administration")
        page.wait_for_selector("#status dd")
        page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-admin-system.png", full_page=True)
        states, summary, hints, refused, error_gone = _create_library_and_watch_scan(page, base, media_root, backend)
        member = witness.new_page(browser, "member", viewport=PHONE, is_mobile=True, has_touch=True)
        rows_before, paused, note, after = _stop_a_playing_session(page, member, base, film_name, backend)
        history = _history_row(page, base, budget)
        shown, before, after_revoke, row = _create_and_revoke_a_key(page, base, backend)
        forbidden = member.goto(f"{base}/web/admin/").status
        renamed = _rename_the_library(page, base)
        cleared = _clear_the_image_cache(page, base)
        parental = _give_a_parental_rule(page, base, "Ann", backend)
        plugin = _install_a_plugin(page, base, plugin_dir, backend)
        restore_said, withdrawn = _ask_a_restore_and_withdraw_it(page, base, backend)
        _phone_pages(witness.new_page(browser, "admin-phone", viewport=PHONE, is_mobile=True, has_touch=True), base, backend)
    return AdminSeen(states, summary, hints, refused, error_gone, rows_before, paused, note, after, shown, before, after_revoke, row, forbidden,
                     history, renamed, cleared, parental, plugin, restore_said, withdrawn)  # fmt: skip


def _sign_in(page: Any, base: str, name: str) -> None:
    page.goto(base + "/web/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/web/")


def _create_library_and_watch_scan(
    page: Any, base: str, media_root: str, backend: str
) -> tuple[list[str], str, str, str, bool]:
    page.goto(base + "/web/admin/libraries")
    page.wait_for_selector("#libraries .empty")
    page.evaluate(RECORD_STATES)
    page.fill("#create input[name=name]", "Films")
    page.fill("#create textarea[name=paths]", "films")  # not absolute: refused, said as the error body says it
    page.click("#create button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    refused = page.inner_text("#error")
    page.fill("#create textarea[name=paths]", media_root)
    page.click("#create button[type=submit]")
    page.wait_for_selector("#libraries .state[data-state=completed]")
    summary = page.inner_text("#libraries .scan")
    states = page.evaluate("window.seenStates")
    # Editing the options: turning external audio files off answers the hint that a full scan is due.
    page.click("#libraries summary:has-text('Options')")
    page.evaluate(TOGGLE_EXTERNAL_AUDIO)
    page.click("#libraries button:has-text('Save options')")
    page.wait_for_selector("#libraries .hints li")
    page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-admin-libraries.png", full_page=True)
    return states, summary, page.inner_text("#libraries .hints"), refused, page.is_hidden("#error")


def _stop_a_playing_session(admin: Any, member: Any, base: str, film_name: str, backend: str) -> tuple[int, bool, bool, str]:
    _sign_in(member, base, "Ann")
    open_from_home(member, f".latest .card:has-text('{film_name}')")
    member.click("#play")
    member.wait_for_function("() => { const v = document.getElementById('video'); return !v.paused && v.currentTime > 0.5; }")
    admin.goto(base + "/web/admin/playback")
    admin.wait_for_selector("#sessions button:has-text('Stop')")  # stoppable: the page holds its socket
    rows = admin.locator("#sessions tbody tr").count()
    admin.screenshot(path=SCREENSHOTS / f"{backend}-desktop-admin-playback.png", full_page=True)
    admin.click("#sessions button:has-text('Stop')")
    member.wait_for_selector("#stopped-note:not([hidden])")
    paused = bool(member.evaluate("document.getElementById('video').paused"))
    member.wait_for_selector("#play:has-text('Resume')")  # the member may go on from there
    admin.wait_for_selector("#sessions td.empty")  # the page refreshes its list
    member.screenshot(path=SCREENSHOTS / f"{backend}-phone-stopped-by-admin.png", full_page=True)
    return rows, paused, True, admin.inner_text("#sessions tbody")


def _history_row(page: Any, base: str, budget: Budget) -> str:
    """The playback just stopped, in the history (recorded as its session ends: the page is read again)."""
    while not budget.expired():
        page.goto(base + "/web/admin/playback")
        page.wait_for_selector("#history tbody tr")
        row = page.locator("#history tbody tr:has-text('Ann')")
        if row.count():
            return str(row.first.inner_text())
    raise AssertionError("the stopped playback never appeared in the history")


def _create_and_revoke_a_key(page: Any, base: str, backend: str) -> tuple[str, int, int, str]:
    page.goto(base + "/web/admin/keys")
    page.wait_for_selector("#keys tbody tr")
    page.fill("#create input[name=name]", "scripts")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#new-key:not([hidden])")
    key = page.inner_text("#new-key-value").strip()
    before = _status(base, key)
    page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-admin-keys.png", full_page=True)
    page.click("#keys tr:has-text('scripts') button:has-text('Revoke')")
    page.wait_for_selector("#keys tr:has-text('scripts'):has-text('revoked')")
    return key, before, _status(base, key), page.inner_text("#keys tr:has-text('scripts')")


def _rename_the_library(page: Any, base: str) -> str:
    page.goto(base + "/web/admin/libraries")
    page.click("#libraries summary:has-text('Name and folders')")
    page.fill("#libraries input[name=name]", "Movies")
    page.click("#libraries button:has-text('Save name and folders')")
    page.wait_for_selector("#libraries h2:has-text('Movies')")
    return page.inner_text("#libraries h2")


def _clear_the_image_cache(page: Any, base: str) -> str:
    page.goto(base + "/web/admin/")
    page.click("#caches tr:has-text('images') button:has-text('Clear')")
    page.wait_for_selector("#notice:has-text('cleared')")
    return page.inner_text("#notice")


def _give_a_parental_rule(page: Any, base: str, name: str, backend: str) -> str:
    page.goto(base + "/web/admin/members")
    page.click(f"#members tr:has-text('{name}') button:has-text('Change')")
    page.select_option("#edit-form select[name=maxAge]", "12")
    page.fill("#edit-form input[name=blockedGenres]", "Horror")
    page.fill("#edit-form textarea[name=windows]", "1-5 16:00-20:00")
    page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-admin-parental.png")
    page.click("#edit-form button[value=save]")
    row = f"#members tr:has-text('{name}'):has-text('up to age 12')"
    page.wait_for_selector(row)
    return page.inner_text(row)


def _install_a_plugin(page: Any, base: str, plugin_dir: str, backend: str) -> str:
    page.goto(base + "/web/admin/plugins")
    page.fill("#install input[name=directory]", plugin_dir)
    page.click("#install button[type=submit]")
    page.wait_for_selector("#plugins h3:has-text('Test demo')")
    page.screenshot(path=SCREENSHOTS / f"{backend}-desktop-admin-plugins.png", full_page=True)
    return page.inner_text("#plugins article:has-text('Test demo') h3")


def _ask_a_restore_and_withdraw_it(page: Any, base: str, backend: str) -> tuple[str, bool]:
    page.click("#backup")
    page.click("#backups button:has-text('Restore at next start')")
    page.wait_for_selector("#restore-state:has-text('next starts')")
    said = page.inner_text("#restore-state")
    page.click("#restore-state button:has-text('Withdraw')")
    page.wait_for_selector("#restore-state", state="hidden")
    return said, page.locator("#backups button:has-text('Restore at next start')").count() == 1


def _status(base: str, key: str) -> int:
    request = urllib.request.Request(base + "/api/v1/libraries", headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


def _phone_pages(page: Any, base: str, backend: str) -> None:
    _sign_in(page, base, "Root")
    for path, ready in (("libraries", "#libraries .library"), ("keys", "#keys tbody tr"), ("members", "#members tbody tr"),
                        ("tasks", "#schedules tbody tr"), ("activity", "#activity tbody tr")):  # fmt: skip
        page.goto(f"{base}/web/admin/{path}")
        page.wait_for_selector(ready)
        page.screenshot(path=SCREENSHOTS / f"{backend}-phone-admin-{path}.png", full_page=True)


if __name__ == "__main__":
    print(json.dumps(asdict(_admin(*sys.argv[1:6], Budget(float(sys.argv[6]))))))
