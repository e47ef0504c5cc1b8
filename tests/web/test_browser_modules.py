"""The game page and the replay as ES modules in a real browser: every script of the page is a
module (or a JSON data block), the page sets no global of its own (no window.LoW, no global _),
and its state is reached by importing its entry module, the page's own instance."""

from __future__ import annotations

import time
from typing import Any

from tests.web.test_browser import server, sign_up  # noqa: F401 - the server fixture

GLOBALS = """() => ({
  scripts: [...document.scripts].map((s) => s.type || 'classic'),
  globals: ['LoW', '_', 'ngettext', 'reasonText', 'LOW_LANG', 'LOW_I18N_DATA'].filter((k) => k in window),
})"""


def no_globals(page: Any) -> None:
    found = page.evaluate(GLOBALS)
    assert found["scripts"] and set(found["scripts"]) <= {"module", "application/json"}, found["scripts"]
    assert found["globals"] == [], found["globals"]


def test_the_game_page_and_the_replay_are_modules_with_no_global(browser: Any, server: str) -> None:  # noqa: F811
    page = sign_up(browser, server, "mona")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.check("input[name=against][value='bot:random']")
    page.click("#create-game")
    page.wait_for_url("**/games/*")
    game = int(page.url.rstrip("/").rsplit("/", 1)[1])
    page.wait_for_selector("#game:not(.loading)")
    no_globals(page)
    # the state is the entry module's export: importing it gives the page's own instance
    read = ("async () => { const { live } = await import('/static/js/game.js');"
            " return { id: live.S.game.id, legal: live.S.legal.length }; }")
    deadline = time.monotonic() + 60  # the side is drawn: when the bot opens, wait for its turn to pass
    while (state := page.evaluate(read))["legal"] == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert state["id"] == game and state["legal"] > 0
    assert page.evaluate("async () => (await import('/static/js/render.js')).actionText('draw')") == "draw a card"
    page.click("#btn-resign")
    page.click("#btn-resign-confirm")
    page.wait_for_selector("#result:not([hidden])")
    page.goto(f"{server}/games/{game}/replay")
    page.wait_for_selector("#replay-list .replay-item.current")
    no_globals(page)
    assert page.evaluate("async () => (await import('/static/js/replay.js')).replay.R.ply") == 0
    page.click("#replay-last")
    last = page.evaluate("async () => { const { replay } = await import('/static/js/replay.js'); return [replay.R.ply, replay.R.positions.length]; }")
    assert last[0] == last[1] - 1  # the last step
    assert errors == []
