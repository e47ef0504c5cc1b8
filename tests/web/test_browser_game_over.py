"""The game page in a real browser, around the start and the end of a game: the *Abort* button
while the game may still be aborted (and its ending shown as aborted on both players' pages),
the game-over banner's *Analyse* offer and its result, its links shown once, a mat that keeps its
place whatever the status line says, and the lit opening square's dot and the shot-damage badge
covering nothing they should not.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the screenshots of an aborted game and of
a finished game's Analyse offer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lordsofwar import core
from tests.web.conftest import play_opening_in_pages
from tests.web.hooks import low
from tests.web.server import running_server
from tests.web.test_browser import shot, sign_up, visit, wait_live

WIDE = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}

CHALLENGE_JS = """async (opponent) => {
  const csrf = document.querySelector('meta[name=csrf-token]').content;
  const r = await fetch('/api/invitations', {method: 'POST', headers: {'Content-Type': 'application/json',
    'X-CSRF-Token': csrf}, body: JSON.stringify({opponent, options: {creator_side: '1', creator_army: 'orcs',
    opponent_army: 'dwarves', rated: true}})});
  return (await r.json()).invitation;
}"""

ACCEPT_JS = """async (invitation) => {
  const csrf = document.querySelector('meta[name=csrf-token]').content;
  const r = await fetch(`/api/invitations/${invitation}/accept`, {method: 'POST', headers: {'X-CSRF-Token': csrf}});
  return (await r.json()).game;
}"""

POST_JS = """async ([path, body]) => {
  const csrf = document.querySelector('meta[name=csrf-token]').content;
  const r = await fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
    body: JSON.stringify(body)});
  return r.status;
}"""

BOX = "sel => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("server")
    with running_server(data, LOW_ANALYSIS_ITERATIONS="200") as base:
        yield base


@pytest.fixture(scope="module")
def players(browser: Any, server: str) -> tuple[Any, Any]:
    return sign_up(browser, server, "alice"), sign_up(browser, server, "bob")


def new_game(server: str, alice: Any, bob: Any) -> int:
    """A rated game of alice (player 1) against bob, both pages open on it."""
    visit(alice, server + "/decks")
    visit(bob, server + "/decks")
    game = int(bob.evaluate(ACCEPT_JS, alice.evaluate(CHALLENGE_JS, "bob")))
    for page in (alice, bob):
        visit(page, f"{server}/games/{game}")
        wait_live(page)
    return game


def new_game_at(server: str, players: tuple[Any, Any], size: dict[str, int]) -> Any:
    """A new game of the two players; alice's page, at ``size`` and drawn again at that size."""
    alice, bob = players
    new_game(server, alice, bob)
    alice.set_viewport_size(size)
    low(alice).evaluate("() => window.LoW.live.render()")
    return alice


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def test_abort_before_the_first_turns_and_no_more_after(server: str, players: tuple[Any, Any]) -> None:
    alice, bob = players
    game = new_game(server, alice, bob)
    for page in (alice, bob):
        page.set_viewport_size(WIDE)
        page.wait_for_selector("#btn-abort:visible")
        assert "Abort" in page.inner_text("#btn-abort")
    # both first turns made (over the socket, the pages are told): the button goes
    play_opening_in_pages(game, alice, bob)
    for page in (alice, bob):
        page.wait_for_selector("#btn-abort", state="hidden")
        assert page.locator("#btn-resign").is_visible()

    # a new game: bob aborts it, after saying yes in the dialog; both pages say it was aborted
    game = new_game(server, alice, bob)
    bob.click("#btn-abort")
    assert bob.locator("#confirm").is_visible() and bob.locator("#confirm-abort-text").is_visible()
    assert not bob.locator("#btn-resign-confirm").is_visible()
    bob.click("#btn-resign-cancel")  # no: nothing happens
    assert bob.locator("#confirm").is_hidden() and bob.locator("#btn-abort").is_visible()
    bob.focus("#btn-abort")
    bob.keyboard.press("Enter")  # the keyboard opens it too
    bob.click("#btn-abort-confirm")
    for page in (alice, bob):
        page.wait_for_selector("#result:visible")
        banner = page.inner_text("#result")
        assert "Game aborted" in banner and "bob aborted the game" in banner, banner
        assert "Draw" not in banner
        assert page.locator("#btn-abort").is_hidden() and page.locator("#btn-resign").is_hidden()
        assert page.locator("#btn-analyse-game").count() == 0  # nothing to analyse
    state = low(alice).evaluate("() => window.LoW.live.S.game")
    assert state["aborted"] is True and state["result"]["winner"] is None
    shot(alice, "game-abort.png")
    alice.set_viewport_size(PHONE)
    shot(alice, "game-abort-390.png")
    alice.set_viewport_size(WIDE)
    # loaded afresh, the page says it too
    visit(alice, f"{server}/games/{game}")
    alice.wait_for_selector("#result:visible")
    assert "Game aborted" in alice.inner_text("#result") and "Draw" not in alice.inner_text("#result")


def test_abort_refused_is_said(server: str, players: tuple[Any, Any]) -> None:
    """The page still offers Abort, but the server no longer allows it (the first turns were made
    while the page was not told): the refusal is shown."""
    alice, bob = players
    game = new_game(server, alice, bob)
    alice.wait_for_selector("#btn-abort:visible")
    play_opening_in_pages(game, bob, alice)
    alice.wait_for_selector("#btn-abort", state="hidden")
    # as if the page had not heard of the first turns yet: it offers Abort again
    low(alice).evaluate("() => { window.LoW.live.S.game.abortable = true; window.LoW.live.render(); }")
    alice.click("#btn-abort")
    alice.click("#btn-abort-confirm")
    alice.wait_for_selector("#toasts .toast.error")
    assert "can no longer be aborted" in alice.inner_text("#toasts")
    assert low(alice).evaluate("() => window.LoW.live.S.game.status") == "running"


def finish(server: str, alice: Any, bob: Any) -> int:
    game = new_game(server, alice, bob)
    play_opening_in_pages(game, alice, bob)
    assert bob.evaluate(POST_JS, [f"/api/games/{game}/resign", {}]) == 200
    for page in (alice, bob):
        page.wait_for_selector("#result:visible")
    return game


@pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the analysis needs the compiled core")
def test_game_over_banner_offers_analyse_and_shows_its_result(
    browser: Any, server: str, players: tuple[Any, Any]
) -> None:
    alice, bob = players
    game = finish(server, alice, bob)
    alice.set_viewport_size(WIDE)
    # the record and the replay: once each, in the banner
    for page in (alice, bob):
        assert page.locator("a[href$='/record']:visible").count() == 1
        assert page.locator(f"a[href='/games/{game}/replay']:visible").count() == 1
        assert page.locator("#result #link-record").is_visible() and page.locator("#result #link-replay").is_visible()
        page.wait_for_selector("#result #btn-analyse-game:visible")
        assert page.locator("#link-analysis").count() == 0
    shot(alice, "game-over-analyse.png")
    # a signed-out spectator: no Analyse, no link while there is no analysis
    guest = browser.new_context(viewport=WIDE).new_page()
    visit(guest, f"{server}/games/{game}")
    guest.wait_for_selector("#result:visible")
    low(guest).wait_for_function("() => window.LoW.live.UI.analysis === null")
    assert guest.locator("#btn-analyse-game").count() == 0 and guest.locator("#link-analysis").count() == 0
    # Analyse: the replay, where the analysis shows
    alice.click("#btn-analyse-game")
    alice.wait_for_url(f"**/games/{game}/replay#analysis")
    alice.wait_for_selector("#analysis-graph svg", timeout=120_000)
    doc = alice.evaluate(f"async () => (await fetch('/api/games/{game}/analysis')).json()")
    assert doc["status"] == "done"
    # its result on the game page, for the players and for the signed-out spectator
    counts = {
        p: {
            v: sum(d["player"] == p and d["verdict"] == v for d in doc["result"]["decisions"])
            for v in ("mistake", "blunder")
        }
        for p in (1, 2)
    }
    for page in (bob, guest):
        visit(page, f"{server}/games/{game}")
        page.wait_for_selector("#link-analysis:visible")
        assert page.locator("#btn-analyse-game").count() == 0
        text = page.inner_text("#analysis-offer")
        for p, name in ((1, "alice"), (2, "bob")):
            m, b = counts[p]["mistake"], counts[p]["blunder"]
            said = f"{m} mistake{'' if m == 1 else 's'} and {b} blunder{'' if b == 1 else 's'} by {name}"
            assert said in text, text
        assert page.get_attribute("#link-analysis", "href") == f"/games/{game}/replay#analysis"
    bob.set_viewport_size(PHONE)
    shot(bob, "game-over-analysis-390.png")
    bob.set_viewport_size(WIDE)
    guest.context.close()


def status_lines(page: Any) -> float:
    return float(
        page.evaluate(
            "() => { const s = document.querySelector('#status'); const cs = getComputedStyle(s); "
            "const range = document.createRange(); range.selectNodeContents(s); "
            "return range.getBoundingClientRect().height / parseFloat(cs.lineHeight); }"
        )
    )


LONG = (
    "Forced deployment: deploy a unit (you may first declare shots) on the square marked c3 — "
    "Orc Warboss of the Eastern Hills: choose a square, then wait for the opponent's answer"
)


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1366x900", "390x844"])
def test_the_mat_keeps_its_place_whatever_the_status_says(
    server: str, players: tuple[Any, Any], size: dict[str, int]
) -> None:
    alice = new_game_at(server, players, size)
    alice.wait_for_timeout(200)
    one = alice.evaluate(BOX, "#mat")
    alice.evaluate("() => { document.querySelector('#status').textContent = 'Your move'; }")
    alice.wait_for_timeout(100)
    assert round(status_lines(alice)) == 1, status_lines(alice)
    assert [round(x) for x in alice.evaluate(BOX, "#mat")] == [round(x) for x in one]
    # three lines (the longest the page says, with a card chosen)
    alice.evaluate("t => { document.querySelector('#status').textContent = t; }", LONG)
    alice.wait_for_timeout(100)
    assert status_lines(alice) > 2.5, status_lines(alice)
    three = alice.evaluate(BOX, "#mat")
    assert [round(x) for x in three] == [round(x) for x in one]
    # and a real longer status: a card chosen; the page drawn again keeps the mat where it was
    alice.click("#hand-bottom .hand-card >> nth=0")
    alice.wait_for_selector("#mat .sq.target")
    assert "choose a square" in alice.inner_text("#status")
    assert [round(x) for x in alice.evaluate(BOX, "#mat")] == [round(x) for x in one]
    alice.set_viewport_size(WIDE)


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1366x900", "390x844"])
def test_the_lit_opening_square_and_the_damage_badge_cover_nothing(
    server: str, players: tuple[Any, Any], size: dict[str, int]
) -> None:
    alice = new_game_at(server, players, size)
    alice.click("#hand-bottom .hand-card >> nth=0")
    alice.wait_for_selector('#mat [data-square="c3"].target .tmark')
    assert alice.inner_text('#mat [data-square="c3"] .opening') == "1"
    dot = alice.evaluate(BOX, '#mat [data-square="c3"] .tmark')
    one = alice.evaluate(BOX, '#mat [data-square="c3"] .opening')
    assert dot[2] > 0 and one[2] > 0 and not overlap(dot, one), (dot, one)
    alice.hover('#mat [data-square="c3"]')
    alice.wait_for_timeout(150)
    assert not overlap(
        alice.evaluate(BOX, '#mat [data-square="c3"] .tmark'), alice.evaluate(BOX, '#mat [data-square="c3"] .opening')
    )
    shot(alice, f"game-opening-lit-{size['width']}.png")
    # a unit that took shot damage this turn: the page's mat drawn with it (as the page draws a
    # declared shot's damage), the badge below the unit's name
    low(alice).evaluate("""() => {
      const L = window.LoW, S = L.live.S;
      const view = JSON.parse(JSON.stringify(S.view));
      const own = S.view.players[1].hand.find((c) => c);
      view.board = [{card: own, owner: 2, square: 'd4'}, {card: own, owner: 1, square: 'd3'}];
      view.turn_state = Object.assign({}, view.turn_state || {}, {shot_damage: {d4: 3, d3: 12}});
      L.renderMat(document.querySelector('#mat'), {view, bottom: 1, home: 1, cell: L.live.UI.zoomCell});
    }""")
    for square in ("d4", "d3"):
        badge = alice.evaluate(BOX, f'#mat [data-square="{square}"] .dmg-badge')
        name = alice.evaluate(BOX, f'#mat [data-square="{square}"] .c-name span')
        assert badge[2] > 0 and name[2] > 0 and not overlap(badge, name), (square, badge, name)
    shot(alice, f"game-damage-badge-{size['width']}.png")
    alice.set_viewport_size(WIDE)
