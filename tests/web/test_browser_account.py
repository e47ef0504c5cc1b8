"""The player's own data in a browser: the privacy page in English, German and Polish (linked from
every page's footer and from sign-up), the data download from Settings, and closing the account
with the keyboard, a refusal first; what the pages show is checked against what the server says."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lordsofwar import i18n
from tests.web.server import running_server
from tests.web.test_browser import ARRIVED, Api, shot, sign_in, visit


def words(lang: str, message: str) -> str:
    with i18n.use(lang):
        return i18n.gettext(message)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with running_server(tmp_path_factory.mktemp("account")) as base:
        alice, bob = Api(base, "alice"), Api(base, "bob")
        r = bob.post("/api/invitations", {"opponent": "alice", "options": {"creator_side": "1"}})
        assert r.status_code == 201, r.text
        game = alice.post(f"/api/invitations/{r.json()['invitation']}/accept").json()["game"]
        yield {"base": base, "alice": alice, "bob": bob, "game": game}


@pytest.mark.parametrize("lang", ["en", "de", "pl"])
def test_the_privacy_page_in_each_language(browser: Any, site: dict[str, Any], lang: str) -> None:
    base = site["base"]
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_cookies([{"name": "low_lang", "value": lang, "url": base}])
    page = context.new_page()
    visit(page, base + "/signup")
    assert page.get_attribute("#signup-privacy a", "href") == "/privacy"
    page.click("#footer-privacy")
    page.wait_for_url(base + "/privacy")
    assert page.get_attribute("html", "lang") == lang
    assert page.inner_text("h1") == words(lang, "Privacy: what this site keeps about you")
    sections = page.locator("h2").all_inner_texts()
    assert sections == [words(lang, t) for t in ("What is stored, and why", "For how long", "Getting a copy", "Erasing it")]
    text = page.inner_text("#privacy")
    assert "closed-1234" in text and " 30 " in text  # the hold the server applies, in the page's words
    if lang != "en":
        assert "What is stored" not in text
    context.close()


def test_download_then_close_the_account_with_the_keyboard(browser: Any, site: dict[str, Any]) -> None:
    base, bob, game = site["base"], site["bob"], site["game"]
    context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
    page = context.new_page()
    sign_in(page, base, "alice")
    visit(page, base + "/settings")
    shot(page, "settings-your-data.png", full_page=True)
    with page.expect_download() as download:
        page.click("#data-download")
    saved = json.loads(Path(download.value.path()).read_text())
    assert download.value.suggested_filename == "lordsofwar-data-alice.json"
    assert saved["profile"]["name"] == "alice"
    assert [g["id"] for g in saved["games"]] == [game] and "seed" not in json.dumps(saved["games"])

    # to the confirmation page and through its form with the keyboard only
    page.focus("#close-account-link")
    page.keyboard.press("Enter")
    page.wait_for_url(base + "/settings/close")
    shot(page, "close-account.png", full_page=True)
    page.focus("#close-confirm")
    page.keyboard.type("alice")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "close-password"
    page.keyboard.type("not the password")
    page.keyboard.press("Enter")
    page.wait_for_selector("#form-error")
    assert page.inner_text("#form-error") == "wrong password: the account stays open"
    assert httpx.get(base + "/players/alice").status_code == 200  # nothing changed
    page.fill("#close-confirm", "alice")
    page.focus("#close-password")
    page.keyboard.type("password-123")
    page.keyboard.press("Enter")
    page.wait_for_function(ARRIVED, arg="/")  # not the URL: flash.js drops its ?flash=closed
    assert "Your account is closed" in page.inner_text(".flash")
    assert page.locator("a[href='/signin']").count() >= 1  # signed out
    assert page.evaluate("async () => (await (await fetch('/api/session')).json()).user") is None

    # the opponent's game shows the placeholder; the name is held
    state = bob.http.get(f"/api/games/{game}").json()
    placeholder = state["game"]["players"]["2"]["name"]
    assert placeholder.startswith("closed-") and state["game"]["status"] == "over"
    watch = context.new_page()
    visit(watch, base + f"/games/{game}")
    watch.wait_for_selector(f"text={placeholder}")
    assert "alice" not in watch.inner_text("main")
    visit(page, base + "/signup")
    page.fill("input[name=name]", "alice")
    page.fill("input[name=password]", "password-456")
    page.fill("input[name=password2]", "password-456")
    page.click("#signup-submit")
    page.wait_for_selector("#form-error")
    assert "closed" in page.inner_text("#form-error")
    context.close()
