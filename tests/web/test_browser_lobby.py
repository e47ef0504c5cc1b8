"""The lobby in a real browser: a refused challenge keeps the form as it was and says why; a
challenger sees, without reloading, that a challenge was accepted (a notice and the tab title)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.page_facts import serve_changed_facts
from tests.web.test_browser import CHROMIUM, server, sign_up, visit  # noqa: F401 - the server fixture

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")


def test_a_refused_challenge_is_explained_in_the_lobby_with_the_form_kept(browser: Any, server: str) -> None:  # noqa: F811 - the imported fixture
    page = sign_up(browser, server, "lobby_ann")
    page.check("input[name=against][value=player]")
    page.fill("#opponent-name", "no-such-player")
    page.select_option("select[name=rules]", "basic")
    page.select_option("select[name=length]", "25/5")
    page.check("input[name=mode][value=turn]")
    page.select_option("select[name=days]", "6")
    page.uncheck("input[name=public]")
    page.click("#create-game")
    page.wait_for_selector("#lobby-error")
    assert "There is no player called 'no-such-player'" in page.inner_text("#lobby-error")
    assert page.is_visible("text=Sign out")  # still signed in, in the lobby
    assert page.input_value("#opponent-name") == "no-such-player"
    assert page.is_checked("input[name=against][value=player]")
    assert page.input_value("select[name=rules]") == "basic"
    assert page.input_value("select[name=length]") == "25/5"
    assert page.is_checked("input[name=mode][value=turn]")
    assert page.input_value("select[name=days]") == "6"
    assert not page.is_checked("input[name=public]")
    page.context.close()


def test_the_challenger_sees_the_challenge_accepted(browser: Any, server: str) -> None:  # noqa: F811 - the imported fixture
    ann = sign_up(browser, server, "lobby_bea")
    ben = sign_up(browser, server, "lobby_ben")
    ann.check("input[name=against][value=player]")
    ann.fill("#opponent-name", "lobby_ben")
    ann.click("#create-game")
    ann.wait_for_selector("text=Invitation posted.")
    title = ann.title()
    visit(ben, server + "/")
    ben.click("#invitations .accept-form button")
    ben.wait_for_url("**/games/*")
    ann.wait_for_selector("#challenge-accepted:not([hidden])", timeout=20_000)
    assert "lobby_ben accepted your challenge" in ann.inner_text("#challenge-accepted")
    assert ann.title().startswith("Challenge accepted") and ann.title() != title
    ann.click("#challenge-accepted a")
    ann.wait_for_url("**/games/*")
    ann.context.close()
    ben.context.close()


def test_the_scripts_show_the_servers_words_for_armies_and_bots(browser: Any, server: str) -> None:  # noqa: F811 - the imported fixture
    """The lobby's deck note and the game page's player names take the armies' and the bots' words
    from the facts the page brings from the server: changed on their way to the browser, the
    scripts show the changed words (they keep no list of their own)."""
    page = sign_up(browser, server, "lobby_facts")
    made = page.evaluate(
        """async () => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const r = await fetch('/api/decks', {method: 'POST', body: JSON.stringify({name: 'Tall', army: 'elves'}),
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf}});
          return r.status;
        }"""
    )
    assert made == 201

    def rename(facts: dict[str, Any]) -> None:
        next(a for a in facts["armies"] if a["name"] == "elves")["word"] = "tall folk"
        next(b for b in facts["bots"] if b["name"] == "random")["player_name"] = "Dice roller"

    serve_changed_facts(page, f"{server}/", rename)
    serve_changed_facts(page, f"{server}/games/*", rename)
    visit(page, server + "/")
    page.check("input[name=custom_decks]")
    page.uncheck("input[name=custom_armies][value=elves]")
    note = page.inner_text("#creator-deck-note")
    assert "Tall: uses tall folk cards, which this game would not allow" in note, note
    # a game against the random bot: the game page names it by the facts' name
    page.check("input[name=custom_armies][value=elves]")
    page.check("input[name=against][value='bot:random']")
    page.click("#create-game")
    page.wait_for_url("**/games/*")
    visit(page, page.url)  # the page again, now through the route (a redirect's target is not routed)
    page.wait_for_selector(".pp-name")
    names = page.eval_on_selector_all(".pp-name", "els => els.map(e => e.textContent)")
    assert "Dice roller" in names, names
    page.context.close()
