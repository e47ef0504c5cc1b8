"""Hints in a real browser: the lobby offers the bots weakest first with their measured ratings
and a hints box only against a bot; in the game, the Hint button lights exactly the squares of
the action the server's search prefers, the line names it, and playing it is accepted."""

from __future__ import annotations

from typing import Any

from lordsofwar.bots import BOTS
from lordsofwar.bots import ladder as bot_ladder
from tests.web.hooks import low
from tests.web.test_browser import live, perform, server, shot, sign_up, wait_live  # noqa: F401 - fixtures


def test_a_hint_shown_on_the_mat_and_played(browser: Any, server: str) -> None:  # noqa: F811
    dana = sign_up(browser, server, "dana")
    # the bots, weakest first, each with its measured rating where the ladder has one
    values = dana.eval_on_selector_all("input[name=against][value^='bot:']", "els => els.map(e => e.value.slice(4))")
    assert values == list(BOTS)
    ratings = bot_ladder.ratings()
    for name, rating in ratings.items():
        label = dana.locator(f"label.bot-choice:has(input[value='bot:{name}'])")
        assert str(rating) in label.inner_text()
    # hints only against a bot
    assert not dana.is_enabled("#hints")
    dana.check("input[name=against][value='bot:veteran']")
    assert dana.is_enabled("#hints")
    dana.check("input[name=against][value=open]")
    assert not dana.is_enabled("#hints") and not dana.is_checked("#hints")
    dana.check("input[name=against][value='bot:veteran']")
    dana.check("#hints")
    dana.select_option("select[name=creator_side]", "1")
    shot(dana, "lobby-bots.png")
    dana.click("#create-game")
    dana.wait_for_url("**/games/*")
    wait_live(dana)
    for round_ in range(3):
        low(dana).wait_for_function("() => window.LoW.live.S.legal.length > 0")
        assert dana.is_visible("#btn-hint")
        state = live(dana)
        dana.click("#btn-hint")
        dana.wait_for_selector("#hint-line:visible")
        action = dana.get_attribute("#hint-line", "data-action")
        assert action in state["legal"]
        # exactly the squares the action names are lit
        lit = set(dana.eval_on_selector_all("#mat .sq.hinted", "els => els.map(e => e.dataset.square)"))
        named = {w for w in action.split()[1:] if (w[:1] in "abcdefg" and w[1:].isdigit()) or "," in w}
        assert lit == named, (action, lit)
        if round_ == 0:
            shot(dana, "game-hint.png")
        # the hint is the server's: the API gives the same action for this decision
        answer = dana.evaluate(
            """async (id) => { const m = document.querySelector('meta[name="csrf-token"]');
            const r = await fetch(`/api/games/${id}/hint`, {method: 'POST', credentials: 'same-origin',
              headers: {'Content-Type': 'application/json', 'X-CSRF-Token': m.content}, body: '{}'});
            return r.json(); }""",
            state["game"]["id"],
        )
        assert answer["action"] == action
        perform(dana, action)
        # after the action the hint is gone (it was for that decision)
        assert dana.locator("#mat .sq.hinted").count() == 0 and not dana.is_visible("#hint-line")
        if live(dana)["game"]["status"] != "running":
            break
    dana.context.close()
