"""Accessibility in a real browser (Debian's Chromium, Playwright, a real `lordsofwar serve`).

- axe-core (pinned, installed by scripts/install-browser into build/axe) runs on every page of
  the site, signed out and signed in, and on the game page in its several states (a card
  selected, a unit's menu open, the screen-reader mode on): no serious or critical violation.
- The game played from the keyboard only: a hand card chosen with Enter, the mat walked with the
  arrow keys, Enter on a lit square acts; the squares the arrow keys and Enter can act on are
  exactly the legal ones of the chosen card (both ways); the reinforcement buttons are reached
  with Tab.
- The screen-reader mode: the mat, the hands and the counts as text, and each event of the game
  (the opponent's moves included) announced in the aria-live region as it arrives.

With LOW_SCREENSHOT_DIR set, keeps docs/screenshots/screen-reader.png.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from lordsofwar.rules import mat
from tests.web.hooks import low
from tests.web.server import chromium_path
from tests.web.test_browser import DATABASES, server  # noqa: F401 - a server of this module's own
from tests.web.test_browser_ratings import Api

CHROMIUM = chromium_path()
AXE = Path(__file__).resolve().parents[2] / "build" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")

SHOTS = Path(os.environ["LOW_SCREENSHOT_DIR"]) if os.environ.get("LOW_SCREENSHOT_DIR") else None
WIDE = {"width": 1366, "height": 768}




class LangApi(Api):
    """A player signed up through the JSON API from a browser speaking ``lang`` (Accept-Language):
    the account takes that language."""

    def __init__(self, base: str, name: str, lang: str | None = None):
        self.name = name
        headers = {"Accept-Language": lang} if lang else {}
        self.http = httpx.Client(base_url=base, timeout=30, headers=headers)
        self.csrf = self.http.get("/api/session").json()["csrf"]
        r = self.post("/api/signup", {"name": name, "password": "password-123"})
        assert r.status_code == 201, r.text
        self.csrf = self.http.get("/api/session").json()["csrf"]


def world(base: str, a: str, b: str, lang: str | None = None) -> dict[str, Any]:
    ada, bo = LangApi(base, a, lang), LangApi(base, b, lang)
    deck = ada.post("/api/decks", {"name": "Ada deck", "army": "orcs"})
    assert deck.status_code == 201, deck.text
    t = ada.post("/api/tournaments", {"name": "Winter Cup", "rounds": 3})
    assert t.status_code == 201, t.text
    tid = t.json()["tournament"]
    assert bo.post(f"/api/tournaments/{tid}/join", {"army": "elves"}).status_code == 200
    running = ada.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1", "public": True}})
    assert running.status_code in (200, 201), running.text
    inv = ada.post("/api/invitations", {"opponent": b, "options": {"creator_side": "1"}})
    finished = int(bo.post(f"/api/invitations/{inv.json()['invitation']}/accept").json()["game"])
    for _ in range(4):
        s = ada.http.get(f"/api/games/{finished}").json()
        who = ada if s["legal"] else bo
        s = who.http.get(f"/api/games/{finished}").json()
        who.post(f"/api/games/{finished}/actions", {"action": s["legal"][0], "version": s["game"]["version"]})
    assert bo.post(f"/api/games/{finished}/resign").status_code == 200
    inv = bo.post("/api/invitations", {"opponent": a, "options": {"creator_side": "2"}})  # a challenge to ada
    assert inv.status_code == 201, inv.text
    d = deck.json()
    return {"deck": d.get("deck", d.get("id")), "tid": tid, "running": int(running.json()["game"]), "finished": finished}



def new_page(browser: Any, viewport: dict[str, int] = WIDE) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors
    return page


def sign_in(browser: Any, base: str, name: str) -> Any:
    """A browser page signed in as ``name`` (an account made through the API beforehand)."""
    page = new_page(browser)
    page.goto(base + "/signin")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "password-123")
    page.click("#signin-submit")
    page.wait_for_selector("#new-game-form")
    return page


def open_game(page: Any, url: str) -> None:
    page.goto(url)
    low(page).wait_for_function("() => window.LoW && window.LoW.live && window.LoW.live.S.game !== null")
    page.wait_for_selector("#conn", state="hidden")


# --- axe ------------------------------------------------------------------------------------------


def audit(page: Any, label: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it is, one readable line each."""
    page.wait_for_timeout(400)  # transitions ended (a colour half-way through one is no colour of the page)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text() + "\n;0")  # not a <script> tag: the page's policy allows no inline script
    result = page.evaluate(
        """async () => {
            const r = await axe.run(document, { resultTypes: ['violations'] });
            return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.map(n => ({ target: n.target.join(' '), summary: n.failureSummary })) }));
        }"""
    )
    lines = []
    for v in result:
        if v["impact"] not in ("serious", "critical"):
            continue
        for n in v["nodes"][:6]:
            summary = " ".join(str(n["summary"]).split())[:240]
            lines.append(f"{label}: [{v['impact']}] {v['id']} ({v['help']}) at {n['target']}: {summary}")
        if len(v["nodes"]) > 6:
            lines.append(f"{label}: [{v['impact']}] {v['id']}: {len(v['nodes']) - 6} more nodes")
    return lines


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (scripts/install-browser)")
def test_axe_finds_no_serious_violation_on_any_page(browser: Any, server: str) -> None:  # noqa: F811
    base = server
    w = world(base, "ada", "bors")  # players, a deck, a tournament, a running game, a finished one
    deck_id, tid, game, finished = w["deck"], w["tid"], w["running"], w["finished"]

    problems: list[str] = []
    visited: list[str] = []

    def check(page: Any, path: str, ready: str | None = None, label: str | None = None) -> None:
        page.goto(base + path)
        if ready:
            page.wait_for_selector(ready)
        page.wait_for_timeout(200)
        visited.append(label or path)
        problems.extend(audit(page, label or path))

    guest = new_page(browser)
    check(guest, "/", "#open-challenges, main")
    check(guest, "/signin")
    check(guest, "/signup")
    check(guest, "/forgot")
    check(guest, "/reset?token=altered", None, "a reset link that is not ours")
    check(guest, "/tournaments")
    check(guest, f"/tournaments/{tid}", "#tournament")
    check(guest, "/leaderboard")
    check(guest, "/players/ada")
    open_game(guest, f"{base}/games/{game}")
    visited.append("a game watched")
    problems.extend(audit(guest, "a game watched"))
    check(guest, f"/games/{finished}/replay", "#replay-list .replay-item", "a replay (signed out)")
    check(guest, "/games/999999", None, "a missing game (error page)")

    me = sign_in(browser, base, "ada")
    check(me, "/", "#new-game-form", "the lobby (signed in)")
    check(me, "/decks")
    check(me, f"/decks/{deck_id}", "#deck-stats[data-state=ready]", "the deck editor")
    check(me, "/settings")
    if me.request.get(base + "/tokens").status == 200:  # the bot API's tokens page, where there is one
        check(me, "/tokens")
    check(me, "/players/ada", None, "own profile")
    check(me, f"/games/{finished}/replay", "#replay-list .replay-item", "a replay (signed in)")
    check(me, f"/games/{finished}", "#result:not([hidden])", "a finished game")
    open_game(me, f"{base}/games/{game}")
    low(me).wait_for_function("() => window.LoW.live.S.legal.length > 0")
    visited.append("a game as a player")
    problems.extend(audit(me, "a game as a player"))
    # a card chosen: its squares lit
    me.click("#hand-bottom .hand-card.deployable >> nth=0")
    me.wait_for_selector("#mat .sq.target")
    problems.extend(audit(me, "a game, a card chosen"))
    me.keyboard.press("Escape")
    # a card magnified (a dialog: the focus goes to its Close button, and back after Escape)
    me.dblclick("#hand-bottom .hand-card >> nth=0")
    me.wait_for_selector("#magnify:not([hidden])")
    assert me.evaluate("() => document.activeElement.id") == "magnify-close"
    problems.extend(audit(me, "a game, a card magnified"))
    me.keyboard.press("Escape")
    assert me.locator("#magnify").is_hidden()
    # the screen-reader mode
    me.click("#btn-sr")
    me.wait_for_selector("#sr-panel:not([hidden])")
    problems.extend(audit(me, "a game, screen-reader mode"))
    me.click("#btn-sr")
    # high contrast
    me.click("#btn-contrast")
    problems.extend(audit(me, "a game, high contrast"))
    me.click("#btn-contrast")
    # the resign dialog
    me.click("#btn-resign")
    problems.extend(audit(me, "a game, the resign dialog"))
    me.click("#btn-resign-cancel")
    assert not problems, "axe-core found serious or critical violations:\n" + "\n".join(problems)
    assert len(visited) >= 17, visited
    assert not guest.js_errors and not me.js_errors, (guest.js_errors, me.js_errors)
    guest.context.close()
    me.context.close()


def norm(square: str) -> str:
    return mat.name(mat.parse(square, False))


# --- the keyboard and the screen-reader mode -----------------------------------------------------


def focus(page: Any) -> dict[str, Any]:
    """What has the keyboard focus: a square of the mat, a hand card or another control."""
    return dict(
        page.evaluate(
            """() => { const a = document.activeElement;
                 if (a && a.classList.contains('sq-key')) { const s = a.parentElement;
                   return {square: s.dataset.square, col: Number(s.dataset.col), row: Number(s.dataset.row),
                           lit: s.classList.contains('target'), label: a.getAttribute('aria-label')}; }
                 if (a && a.classList.contains('card-pick')) return {card: a.parentElement.dataset.card, index: a.parentElement.dataset.index,
                   label: a.getAttribute('aria-label')};
                 return {id: a ? a.id : null, tag: a ? a.tagName : null}; }"""
        )
    )


def walk(page: Any) -> tuple[set[str], set[str]]:
    """Walk the whole mat with the arrow keys (from where the focus is): the squares met, and the
    squares the focus found lit (the class the eye sees and the name a screen reader reads agree)."""
    assert "square" in focus(page)
    for key in ("ArrowUp", "ArrowLeft"):
        for _ in range(12):
            page.keyboard.press(key)
    met: set[str] = set()
    lit: set[str] = set()
    direction = "ArrowRight"
    for _ in range(12):
        for _ in range(12):
            f = focus(page)
            met.add(f["square"])
            assert f["lit"] == (", lit: " in f["label"]), f
            if f["lit"]:
                lit.add(f["square"])
            before = f["square"]
            page.keyboard.press(direction)
            if focus(page)["square"] == before:
                break
        row = focus(page)["row"]
        page.keyboard.press("ArrowDown")
        if focus(page)["row"] == row:
            break
        direction = "ArrowLeft" if direction == "ArrowRight" else "ArrowRight"
    return met, lit


def go_to(page: Any, square: str) -> None:
    """Move the focus over the mat to ``square`` with the arrow keys."""
    target = page.eval_on_selector(f'#mat [data-square="{square}"]', "e => [Number(e.dataset.col), Number(e.dataset.row)]")
    f = focus(page)
    for _ in range(abs(target[0] - f["col"])):
        page.keyboard.press("ArrowRight" if target[0] > f["col"] else "ArrowLeft")
    for _ in range(abs(target[1] - f["row"])):
        page.keyboard.press("ArrowDown" if target[1] > f["row"] else "ArrowUp")
    assert focus(page)["square"] == square


def tab_to(page: Any, test: str, most: int = 80, back: bool = False) -> None:
    """Press Tab (Shift+Tab) until ``test`` (JS, of document.activeElement ``a``) holds."""
    for _ in range(most):
        if page.evaluate(f"() => {{ const a = document.activeElement; return !!(a && ({test})); }}"):
            return
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached {test}; the focus is on {focus(page)}")


def to_card(page: Any, card: str) -> None:
    """From anywhere: Tab to the hand, then the arrow keys to ``card``."""
    tab_to(page, "a.classList.contains('card-pick') && a.closest('#hand-bottom')")
    for _ in range(12):
        if focus(page).get("card") == card:
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"{card} not reached in the hand")


def legal_of(api: Any, game: int) -> dict[str, Any]:
    return dict(api.http.get(f"/api/games/{game}").json())


def test_a_turn_played_from_the_keyboard_with_the_screen_reader_mode(browser: Any, server: str) -> None:  # noqa: F811
    base = server
    kim = Api(base, "kimi")
    r = kim.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1", "mode": "live", "minutes": 30}})
    assert r.status_code in (200, 201), r.text
    game = int(r.json()["game"])
    # a few turns through the API, to a position with a choice of squares (and maybe shots)
    rng = random.Random(5)
    for _ in range(200):
        s = legal_of(kim, game)
        assert s["game"]["status"] == "running"
        if not s["legal"]:
            time.sleep(0.05)
            continue
        open_squares = {a.split()[2] for a in s["legal"] if a.startswith("deploy ")}
        if s["view"]["turn"] >= 7 and len(open_squares) >= 3:
            break
        acts = [a for a in s["legal"] if a.startswith(("deploy ", "shoot "))] or ["draw" if "draw" in s["legal"] else s["legal"][0]]
        kim.post(f"/api/games/{game}/actions", {"action": rng.choice(acts), "version": s["game"]["version"]})
    page = sign_in(browser, base, "kimi")
    open_game(page, f"{base}/games/{game}")
    low(page).wait_for_function("() => window.LoW.live.S.legal.length > 0")
    s = legal_of(kim, game)
    legal = s["legal"]

    # the screen-reader mode, switched on from the keyboard; it is remembered
    tab_to(page, "a.id === 'btn-sr'")
    page.keyboard.press("Enter")
    page.wait_for_selector("#sr-panel:not([hidden])")
    assert page.get_attribute("#btn-sr", "aria-pressed") == "true"
    assert page.evaluate("() => localStorage.getItem('low.screenReader')") == "true"
    text = page.inner_text("#sr-text")
    view = s["view"]
    for u in view["board"]:  # every unit of the mat is told, with its square and its name
        name = low(page).evaluate("id => window.LoW.cardName(id)", u["card"])
        assert f"{norm(u['square'])}: " in text and name in text, (u, text)
    hand = view["players"]["1"]["hand"]
    assert f"Your hand ({len(hand)})" in text and f"hand ({len(view['players']['2']['hand'])})" in text
    assert "Players" in text and "eliminated" in text

    # every deployable card, chosen with Enter: the squares the arrow keys find lit are exactly
    # its legal squares; all the mat can be walked
    deploys: dict[str, set[str]] = {}
    for a in legal:
        if a.startswith("deploy "):
            deploys.setdefault(a.split()[1], set()).add(norm(a.split()[2]))
    all_squares = set(page.eval_on_selector_all("#mat .sq", "els => els.map(e => e.dataset.square)"))
    for card, squares in sorted(deploys.items()):
        to_card(page, card)
        page.keyboard.press("Enter")
        f = focus(page)
        assert f.get("lit"), f"Enter on {card} did not take the focus to a lit square: {f}"
        announced = page.inner_text("#sr-live")
        assert f"lit: {', '.join(sorted(squares))}" in announced, announced
        met, lit = walk(page)
        assert met == all_squares
        assert lit == squares, f"{card}: lit {sorted(lit)}, legal {sorted(squares)}"
        page.keyboard.press("Escape")
        assert page.locator("#mat .sq.target").count() == 0
    # the units with actions: Enter chooses one (through its menu when it has several), the lit
    # squares are exactly its legal targets
    targets: dict[tuple[str, str], set[str]] = {}
    for a in legal:
        kind, *args = a.split()
        if kind in ("shoot", "move"):
            targets.setdefault((norm(args[0]), kind), set()).add(norm(args[1]))
    for (square, kind), squares in sorted(targets.items()):
        go_to(page, square)
        page.keyboard.press("Enter")
        if page.locator("#popup").is_visible():
            for _ in range(6):
                if page.evaluate("() => document.activeElement.dataset.menu") == kind:
                    break
                page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")
        assert focus(page)["square"] == square
        met, lit = walk(page)
        assert lit == squares, f"{kind} from {square}: lit {sorted(lit)}, legal {sorted(squares)}"
        page.keyboard.press("Escape")

    # the turn: a card chosen with the keyboard, arrowed to a lit square, Enter
    card, squares = sorted(deploys.items())[0]
    square = sorted(squares)[-1]
    to_card(page, card)
    page.keyboard.press("Enter")
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(300)
        page.screenshot(path=str(SHOTS / "screen-reader.png"), full_page=True)
    go_to(page, square)
    version = s["game"]["version"]
    page.keyboard.press("Enter")
    low(page).wait_for_function("v => window.LoW.live.S.game.version > v", arg=version)
    after = legal_of(kim, game)
    assert any(norm(u["square"]) == square and u["card"] == card for u in after["view"]["board"]), "the server has not the unit"
    assert focus(page).get("square") == square  # the focus stays where it was
    # then the reinforcement, by Tab: Draw (or Pass)
    low(page).wait_for_function("() => !window.LoW.live.UI.pending")
    legal = legal_of(kim, game)["legal"]
    button = "draw" if "draw" in legal else "pass" if "pass" in legal else None
    if button is not None:
        before = len(low(page).evaluate("() => window.LoW.live.S.log"))
        version = low(page).evaluate("() => window.LoW.live.S.game.version")
        tab_to(page, f"a.id === 'btn-{button}'")
        page.keyboard.press("Enter")
        # the bot's answer arrives over the WebSocket: each of its events is announced
        low(page).wait_for_function(
            "v => { const S = window.LoW.live.S; return S.game.version > v + 1 && (S.legal.length > 0 || S.game.status !== 'running'); }",
            arg=version, timeout=30_000,
        )
        assert legal_of(kim, game)["game"]["version"] > version + 1  # the server took the draw, and the bot played
        log = low(page).evaluate("() => window.LoW.live.S.log")
        said = low(page).evaluate(
            "es => es.map(e => window.LoW.describeText(e, {1: 'kimi', 2: window.LoW.live.S.game.players[2].name}))",
            [e for e in log[before:] if e.get("player") == 2],
        )
        assert said, "the bot did not play"
        page.wait_for_timeout(200)
        announced = page.eval_on_selector_all("#sr-live p", "els => els.map(e => e.textContent)")
        for line in said:
            assert line in announced, (line, announced)
    assert not page.js_errors, page.js_errors
    page.context.close()


def test_a_berserker_choice_from_the_keyboard(browser: Any, server: str) -> None:  # noqa: F811
    """A berserker's advance: the choice is announced, the squares the arrow keys find lit are
    exactly the legal ones, and Enter on one of them is the action the server applies."""
    from tests.helpers import berserker_choice_game
    from tests.web.test_browser_game_page import _insert_game

    base = server
    liv, _ = Api(base, "livia"), Api(base, "marek")
    decks, seed, actions = berserker_choice_game()
    game = _insert_game(DATABASES[base], "livia", "marek", decks, ["orcs", "templars"], seed, actions)
    page = sign_in(browser, base, "livia")
    page.evaluate("() => localStorage.setItem('low.screenReader', 'true')")  # the mode, remembered
    open_game(page, f"{base}/games/{game}")
    assert page.get_attribute("#btn-sr", "aria-pressed") == "true" and page.is_visible("#sr-panel")
    legal = legal_of(liv, game)["legal"]
    assert legal and all(a.startswith("advance ") for a in legal)
    squares = {norm(a.split()[2]) for a in legal}
    announced = page.inner_text("#sr-live")
    assert "chosen to advance" in announced and ", ".join(sorted(squares)) in announced, announced
    tab_to(page, "a.classList.contains('sq-key')")
    _, lit = walk(page)
    assert lit == squares, (lit, squares)
    square = sorted(squares)[0]
    go_to(page, square)
    page.keyboard.press("Enter")
    low(page).wait_for_function("v => window.LoW.live.S.game.version > v", arg=len(actions))
    after = legal_of(liv, game)
    frm = legal[0].split()[1]
    assert any(norm(u["square"]) == square for u in after["view"]["board"]) and f"advance {frm} {square}" in [
        " ".join([a.split()[0], a.split()[1], norm(a.split()[2])]) for a in legal
    ]
    assert "advances" in page.inner_text("#sr-live")  # its own event, announced too
    assert not page.js_errors, page.js_errors
    page.context.close()
