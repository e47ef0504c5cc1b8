"""Languages in a real browser (Debian's Chromium, Playwright, a real `lordsofwar serve`).

- Every page in the test language (LOW_I18N_PSEUDO=1: every catalogued string in ⟦ ⟧), after
  the scripts have written their part (the game page's panels, log, menus, dialogs and text view;
  the deck editor; the replay; the lobby; the turn counter): no word on screen, in a tooltip or
  in an aria-label is missing from a catalogue.
- German and Polish chosen by the browser's own language (Accept-Language) and by the menu: the
  page, the scripts' words and the server's refusals all in that language; screenshots of both
  (LOW_SCREENSHOT_DIR: docs/screenshots/i18n-*.png).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lordsofwar import i18n
from tests.web.hooks import low
from tests.web.i18n_check import BROWSER_TEXTS, check
from tests.web.server import chromium_path, running_server
from tests.web.test_browser_accessibility import new_page, open_game, sign_in, world

CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")
SHOTS = Path(os.environ["LOW_SCREENSHOT_DIR"]) if os.environ.get("LOW_SCREENSHOT_DIR") else None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("server")
    with running_server(data, LOW_I18N_PSEUDO="1") as base:
        yield base


def texts(page: Any) -> list[str]:
    page.wait_for_timeout(150)
    return list(page.evaluate(BROWSER_TEXTS))


def test_every_page_in_the_browser_holds_only_catalogued_words(browser: Any, server: str) -> None:
    base = server
    w = world(base, "ada", "bors")
    data = {"ada", "bors", "Ada deck", "Winter Cup", "Random bot", "HeadlessChrome", "Linux"}  # + the session list's browser
    problems: list[str] = []
    visited: list[str] = []

    def look(page: Any, label: str) -> None:
        visited.append(label)
        check(label, texts(page), data, problems)

    def go(page: Any, path: str, ready: str | None = None, label: str | None = None) -> None:
        page.goto(base + path)
        if ready:
            page.wait_for_selector(ready)
        look(page, label or path)

    def pseudo(page: Any) -> Any:
        page.context.add_cookies([{"name": "low_lang", "value": i18n.PSEUDO, "url": base}])
        return page

    guest = pseudo(new_page(browser))
    for path in ("/", "/signin", "/signup", "/tournaments", f"/tournaments/{w['tid']}", "/leaderboard", "/players/ada"):
        go(guest, path)
    open_game(guest, f"{base}/games/{w['running']}")
    look(guest, "a game watched")
    go(guest, f"/games/{w['finished']}/replay", "#replay-list .replay-item", "a replay")
    guest.keyboard.press("End")
    look(guest, "a replay at its end")

    me = sign_in(browser, base, "ada")
    choose_language(me, i18n.PSEUDO)  # the menu: the player's own setting from now on
    assert me.evaluate("() => document.documentElement.lang") == i18n.PSEUDO
    go(me, "/", "#new-game-form", "the lobby")
    me.click("input[name=against][value=player]")
    look(me, "the lobby, a challenge to a player")
    dialogs: list[str] = []  # window.confirm's questions: no DOM shows them

    def on_dialog(d: Any) -> None:
        if d.type == "beforeunload":  # leaving the editor with unsaved changes: leave
            d.accept()
            return
        dialogs.append(d.message)
        d.dismiss()

    me.on("dialog", on_dialog)
    go(me, "/decks")
    go(me, f"/decks/{w['deck']}", "#deck-stats[data-state=ready]", "the deck editor")
    me.click("#deck-delete")
    me.fill("#deck-name", "")
    me.click("#deck-save")  # refused: a deck needs a name
    me.wait_for_selector("#deck-message:not(:empty)")
    look(me, "the deck editor, a refusal")
    me.fill("#card-search", "zzzz-no-such-card")
    me.wait_for_timeout(300)
    look(me, "the deck editor, a search that finds nothing")
    go(me, f"/tournaments/{w['tid']}", None, "a tournament, its organiser")
    go(me, "/settings")
    go(me, "/tokens")
    go(me, f"/games/{w['finished']}", "#result:not([hidden])", "a finished game")
    open_game(me, f"{base}/games/{w['running']}")
    low(me).wait_for_function("() => window.LoW.live.S.legal.length > 0")
    look(me, "a game as a player")
    me.click("#hand-bottom .hand-card.deployable >> nth=0")
    me.wait_for_selector("#mat .sq.target")
    look(me, "a game, a card chosen")
    me.click("#mat .sq:not(.occupied):not(.target) >> nth=0")  # a square the card may not go to: the message says why
    look(me, "a game, a refused square")
    me.keyboard.press("Escape")
    me.dblclick("#hand-bottom .hand-card >> nth=0")
    me.wait_for_selector("#magnify:not([hidden])")
    look(me, "a game, a card magnified")
    me.keyboard.press("Escape")
    me.click("#btn-sr")
    me.wait_for_selector("#sr-panel:not([hidden])")
    look(me, "a game, the screen-reader mode")
    me.click("#btn-sr")
    me.click("#btn-resign")
    look(me, "a game, the resign dialog")
    me.click("#btn-resign-cancel")
    me.click("#btn-offer-draw")
    me.wait_for_timeout(500)
    look(me, "a game, a draw offered")
    # a turn played: the log and the status line speak of it
    me.click("#hand-bottom .hand-card.deployable >> nth=0")
    me.click("#mat .sq.target >> nth=0")
    low(me).wait_for_function("() => !window.LoW.live.S.legal.some(a => a.startsWith('deploy '))", timeout=15_000)
    look(me, "a game, after a deployment")
    assert dialogs, "the deck editor asks before it deletes"
    check("the browser's dialogs", dialogs, data, problems)
    assert not problems, f"{len(problems)} texts not in a catalogue:\n" + "\n".join(problems[:80])
    assert len(visited) >= 20, visited
    assert not guest.js_errors and not me.js_errors, (guest.js_errors, me.js_errors)
    guest.context.close()
    me.context.close()


@pytest.mark.parametrize("lang", ["de", "pl"])
def test_german_and_polish_from_the_browsers_language(browser: Any, server: str, lang: str) -> None:
    base = server
    a, b = f"ada_{lang}", f"bors_{lang}"
    w = world(base, a, b, {"de": "de-DE,de;q=0.9", "pl": "pl-PL,pl;q=0.9"}[lang])
    with i18n.use(lang):
        words = {k: i18n.gettext(k) for k in ("Sign in", "Tournaments")}
        js = i18n.js_catalogue(lang)
    assert all(v != k for k, v in words.items())
    context = browser.new_context(locale={"de": "de-DE", "pl": "pl-PL"}[lang], viewport={"width": 1366, "height": 800})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/signin")
    assert page.evaluate("() => document.documentElement.lang") == lang
    assert page.locator("header nav a", has_text=words["Tournaments"]).count() == 1
    page.fill("input[name=name]", a)
    page.fill("input[name=password]", "password-123")
    page.click("#signin-submit")
    page.wait_for_selector("#new-game-form")
    shot(page, f"i18n-{lang}-lobby")
    page.goto(f"{base}/decks/{w['deck']}")
    page.wait_for_selector("#deck-stats[data-state=ready]")
    shot(page, f"i18n-{lang}-deck-editor")
    page.goto(f"{base}/tournaments/{w['tid']}")
    shot(page, f"i18n-{lang}-tournament")
    page.goto(f"{base}/games/{w['running']}")
    low(page).wait_for_function("() => window.LoW && window.LoW.live && window.LoW.live.S.legal.length > 0")
    # the scripts speak the language: their catalogue is on the page, and the status line uses it
    for key, value in list(js.items())[:50]:
        if isinstance(value, str):
            assert page.evaluate("async k => (await import('/static/js/i18n.js'))._(k)", key) == value, key
    assert "⟦" not in page.content()
    page.click("#hand-bottom .hand-card.deployable >> nth=0")
    page.wait_for_selector("#mat .sq.target")
    shot(page, f"i18n-{lang}-game")
    # the language menu switches to English and back, and remembers the choice
    # from the keyboard, moving through the menu leaves the page where it is: its button sends it
    page.wait_for_load_state("domcontentloaded")
    page.focus("#language-select")
    assert page.locator("#language-form .language-go").is_hidden()
    page.keyboard.press("ArrowUp")
    page.wait_for_timeout(300)
    assert page.evaluate("() => document.documentElement.lang") == lang and "/games/" in page.url
    assert page.locator("#language-form .language-go").is_visible()
    choose_language(page, "en")
    assert page.evaluate("() => document.documentElement.lang") == "en"
    choose_language(page, lang)
    assert page.evaluate("() => document.documentElement.lang") == lang
    assert not errors, errors
    context.close()


def choose_language(page: Any, code: str) -> None:
    """The top bar's language menu: a choice, then its button (a pointer's choice sends it at once)."""
    page.wait_for_load_state("domcontentloaded")  # the menu's handlers are in place
    page.select_option("#language-select", code)
    with page.expect_navigation():
        page.click("#language-form .language-go")


def shot(page: Any, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(300)
        page.screenshot(path=str(SHOTS / f"{name}.png"))
