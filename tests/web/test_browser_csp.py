"""The pages work under the Content-Security-Policy: Chromium loads every page, signed out and
signed in, with something on each to show (a game under way and a finished one, its replay, a
deck in the editor, the lobby with a challenge, a running and a finished tournament, a profile
with results, the settings, the tokens, the leaderboard, the error pages), and reports no
`securitypolicyviolation` event, no uncaught error and no console error on any of them.
The header and the markup are checked without a browser in tests/web/test_csp.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from lordsofwar.learn import puzzles
from tests.web.server import chromium_path, running_server
from tests.web.test_browser import Api, finished_tournament, rated_game, sign_in
from tests.web.test_browser_moderation import grant_quickly

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)")

WATCH = """() => {
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(
    `${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`));
}"""


# answers the pages ask for and expect to be 404 at times: the analysis of a game not analysed yet
EXPECTED_404 = re.compile(r"http://127\.0\.0\.1:[0-9]+/api/games/[0-9]+/analysis")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("csp")
    with running_server(data, LOW_SMTP_URL="smtp://127.0.0.1:9") as base:
        alice, bob = Api(base, "alice"), Api(base, "bob")
        playing = rated_game(alice, bob, creator_army="lizardmen", opponent_army="undead")
        over = rated_game(alice, bob, creator_army="orcs", opponent_army="dwarves")
        for player in (alice, alice, bob, bob):  # each player's first turn (a deployment, a draw)
            state = player.http.get(f"/api/games/{over}").json()
            r = player.post(f"/api/games/{over}/actions", {"action": state["legal"][0], "version": state["game"]["version"]})
            assert r.status_code == 200, r.text
        assert bob.post(f"/api/games/{over}/resign").status_code == 200
        deck = alice.post("/api/decks", {"name": "Policy deck", "army": "undead"})
        assert deck.status_code == 201, deck.text
        # a challenge waiting in the lobby, to alice and from her
        assert bob.post("/api/invitations", {"opponent": alice.name, "options": {"creator_side": "1"}}).status_code == 201
        assert alice.post("/api/invitations", {"options": {"creator_side": "2"}}).status_code == 201
        opts = {"mode": "live", "rated": True}
        upcoming = alice.post("/api/tournaments", {"name": "Upcoming cup", "kind": "swiss", "rounds": 3, "options": opts})
        assert upcoming.status_code == 201, upcoming.text
        tid = finished_tournament(alice, bob, "Finished cup")
        reported = alice.post("/api/reports", {"reason": "spam", "text": "adverts in the chat", "player": bob.name})
        assert reported.status_code == 201, reported.text
        grant_quickly(data, alice.name)  # the moderators' page, with that report on its queue
        assert alice.post(f"/api/players/{bob.name}/follow").status_code == 200  # the friends page lists one
        common = [
            "/", f"/games/{playing}", f"/games/{over}", f"/games/{over}/replay", "/tournaments",
            f"/tournaments/{tid}", f"/tournaments/{upcoming.json()['tournament']}", "/leaderboard",
            "/leaderboard?pool=turn", f"/players/{alice.name}", f"/players/{bob.name}",
        ]
        yield {
            "base": base,
            "public": [*common, "/privacy", "/?flash=closed", "/signin", "/forgot", "/signup", "/?flash=signed-out", "/learn/cards", "/learn/rules",
                       "/learn/puzzles", f"/learn/puzzles/{puzzles.load()[0].id}", "/learn/puzzles/daily", "/learn/puzzles/streak",
                       "/learn", "/learn/lessons", "/learn/lessons/combat"],
            "signed_in": [*common, "/privacy", "/settings/close", "/decks", f"/decks/{deck.json()['id']}", "/settings", "/tokens", "/?flash=welcome", "/friends",
                          "/learn/puzzles", "/learn/puzzles/streak", "/learn", "/learn/lessons/ranged", "/moderation",
                          "/admin/workers"],
            # pages that answer an error status (the browser logs the status of the document itself)
            "errors": ["/no-such-page", "/games/999999", "/players/nobody-at-all", "/players/general%20bot",
                       "/decks/999999", "/unsubscribe?token=altered", "/reset?token=altered"],
        }


class Watched:
    """A page whose policy violations, uncaught errors and console errors are collected."""

    def __init__(self, context: Any):
        self.page = context.new_page()
        self.page.set_default_timeout(30_000)
        self.page.add_init_script(f"({WATCH})()")
        self.errors: list[str] = []
        self.url = ""
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.page.on("console", self._console)

    def _console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        where = msg.location.get("url", "")
        if "status of 4" in msg.text and where.split("#")[0] == self.url and self.expect_error_status:
            return  # the error page's own status
        if "status of 404" in msg.text and EXPECTED_404.fullmatch(where.split("?")[0]):
            return
        self.errors.append(f"console: {msg.text} ({where})")

    def visit(self, url: str, expect_error_status: bool = False) -> list[str]:
        """Open ``url``, let its scripts run; what went wrong there."""
        self.errors, self.url, self.expect_error_status = [], url, expect_error_status
        self.page.goto("about:blank")
        response = self.page.goto(url)
        assert response is not None
        assert "script-src 'self'" in response.headers.get("content-security-policy", ""), url
        self.page.wait_for_load_state("load")
        self.page.wait_for_timeout(500)  # the scripts draw the mat, the lists and the deck editor
        violations = self.page.evaluate("() => window.__violations")
        return [f"{url}: {p}" for p in [*violations, *self.errors]]


def test_every_page_works_under_the_policy_signed_out(browser: Any, site: dict[str, Any]) -> None:
    w = Watched(browser.new_context())
    problems = [p for url in site["public"] for p in w.visit(site["base"] + url)]
    problems += [p for url in site["errors"] for p in w.visit(site["base"] + url, expect_error_status=True)]
    assert problems == [], "\n".join(problems)


def test_every_page_works_under_the_policy_signed_in(browser: Any, site: dict[str, Any]) -> None:
    w = Watched(browser.new_context())
    sign_in(w.page, site["base"], "alice")
    problems = [p for url in site["signed_in"] for p in w.visit(site["base"] + url)]
    problems += [p for url in site["errors"] for p in w.visit(site["base"] + url, expect_error_status=True)]
    assert problems == [], "\n".join(problems)


def test_the_pages_scripts_ran(browser: Any, site: dict[str, Any]) -> None:
    """The scripts were not blocked in silence: what they draw is there (the game page's mat, the
    replay's mat, the deck editor's cards and card browser, the deck statistics, the nav's turn
    counter, the profile's results bars), and still nothing is reported."""
    w = Watched(browser.new_context())
    sign_in(w.page, site["base"], "alice")
    playing, replay = site["signed_in"][1], site["signed_in"][3]
    deck = next(u for u in site["signed_in"] if u.startswith("/decks/"))
    drawn = {
        playing: ["#mat [data-square]", "#turn-counter[data-count]"],
        replay: ["#mat [data-square]", "#replay-list > *"],
        deck: ["#deck-ranks .deck-card[data-card]", "#browser-results .browser-card[data-card]",
               '#deck-stats[data-state="ready"]'],
    }
    problems = []
    for url, selectors in drawn.items():
        problems += w.visit(site["base"] + url)
        for selector in selectors:
            w.page.wait_for_selector(selector, state="attached")
    # the profile's results bars, divided by their counts (no style attribute in the markup)
    problems += w.visit(site["base"] + "/players/alice")
    parts = w.page.evaluate("() => [...document.querySelectorAll('.wdl [data-share]')]"
                            ".map((e) => [e.dataset.share, getComputedStyle(e).flexGrow])")
    assert parts and all(share == grow for share, grow in parts), parts
    assert problems == [], "\n".join(problems)


def test_the_watch_sees_a_violation(browser: Any, site: dict[str, Any]) -> None:
    """The measure itself: markup with a style attribute and an inline script, added to a page
    under the policy, is reported."""
    w = Watched(browser.new_context())
    assert w.visit(site["base"] + "/signin") == []
    w.page.evaluate("""() => {
      document.body.insertAdjacentHTML('beforeend', '<div style="color: red">x</div>');
      const s = document.createElement('script'); s.textContent = 'window.ran = 1'; document.body.append(s);
    }""")
    w.page.wait_for_timeout(300)
    found = w.page.evaluate("() => window.__violations")
    assert any(v.startswith("style-src-attr") for v in found), found
    assert any(v.startswith("script-src-elem") for v in found), found
    assert w.page.evaluate("() => window.ran") is None
