"""The game page and the replay viewer as a player sees them, in Debian's Chromium against a
real `lordsofwar serve`: what the page SHOWS is checked against what the server ALLOWS.

At every decision point of several real games (against the bot, as player 1 and as player 2
with the mat turned, and at a berserker choice), `check_display` selects each deployable hand
card in turn and each unit the page marks as able to act, and asserts that the lit squares are
exactly the squares of that card's or unit's legal actions in the server's list; it also
collects every action the page offers (lit squares, popup menu items, buttons) and asserts
that this is exactly the legal list: nothing shown that the server refuses, nothing legal that
cannot be reached by clicking.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep screenshots of the game page (a hand card
selected, its squares lit), the deck hover and the replay viewer.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from lordsofwar.rules import mat, notation
from tests.helpers import berserker_choice_game
from tests.web.hooks import low
from tests.web.server import (
    chromium_path,
    running_server,
)

CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")

SHOTS = Path(os.environ["LOW_SCREENSHOT_DIR"]) if os.environ.get("LOW_SCREENSHOT_DIR") else None
WIDE = {"width": 1366, "height": 768}


# --- fixtures and small helpers ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("server")
    with running_server(data) as base:
        yield base, data / "low.sqlite3"


def shot(page: Any, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_timeout(150)
        page.screenshot(path=str(SHOTS / name))


def sign_up(browser: Any, base: str, name: str, viewport: dict[str, int] = WIDE) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.js_errors = errors  # checked at the end of each test
    page.goto(base + "/signup")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "password-123")
    page.fill("input[name=password2]", "password-123")
    page.click("#signup-submit")
    page.wait_for_selector("#new-game-form")
    return page


def api(page: Any, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """A JSON request from the page, with its cookies and CSRF token."""
    return dict(
        page.evaluate(
            """async ([method, path, body]) => {
                const meta = document.querySelector('meta[name="csrf-token"]');
                const r = await fetch(path, { method, credentials: 'same-origin',
                  headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': meta ? meta.content : '' },
                  body: body == null ? undefined : JSON.stringify(body) });
                return { status: r.status, body: await r.json().catch(() => null) };
            }""",
            [method, path, body],
        )
    )


def open_game(page: Any, base: str, game: int) -> None:
    page.goto(f"{base}/games/{game}")
    low(page).wait_for_function("() => window.LoW && window.LoW.live && window.LoW.live.S.game !== null")
    page.wait_for_selector("#conn", state="hidden")  # the live connection is up


def bot_game(page: Any, base: str, **options: Any) -> int:
    answer = api(page, "POST", "/api/invitations", {"options": {"mode": "live", **options}, "bot": "random"})
    assert answer["status"] in (200, 201), answer
    game = int(answer["body"]["game"])
    open_game(page, base, game)
    return game


def state(page: Any) -> dict[str, Any]:
    return dict(
        low(page).evaluate(
            "() => { const S = window.LoW.live.S; return {legal: S.legal, game: S.game, view: S.view, deck: S.deck,"
            " pending: window.LoW.live.UI.pending}; }"
        )
    )


def wait_turn(page: Any) -> dict[str, Any]:
    """Wait until this player must act (and no answer is awaited) or the game is over."""
    low(page).wait_for_function(
        "() => { const L = window.LoW.live; return !L.UI.pending && (L.S.legal.length > 0 || L.S.game.status !== 'running'); }",
        timeout=20_000,
    )
    return state(page)


def classes(page: Any, selector: str) -> list[str]:
    return str(page.locator(selector).first.get_attribute("class") or "").split()


def lit(page: Any) -> set[str]:
    """The squares lit as destinations; each must show its mark."""
    found = page.eval_on_selector_all(
        "#mat .sq.target",
        "els => els.map(e => [e.dataset.square, (e.querySelector('.tmark') || e).getBoundingClientRect().width])",
    )
    assert all(width > 0 for _, width in found), found
    return {square for square, _ in found}


def reset(page: Any) -> None:
    """Close what is open and drop the selection, as a player does: Escape, once per layer
    (magnify, popup, selection)."""
    layers = low(page).evaluate(
        """() => { const m = document.getElementById('magnify'), p = document.getElementById('popup');
                   return (m && !m.hidden ? 1 : 0) + (p && !p.hidden ? 1 : 0) + (window.LoW.live.UI.sel ? 1 : 0); }"""
    )
    for _ in range(int(layers)):
        page.keyboard.press("Escape")


def norm(square: str) -> str:
    return mat.name(mat.parse(square, False))


def parse(action: str) -> dict[str, str]:
    kind, *args = action.split()
    if kind == "deploy":
        return {"kind": kind, "card": args[0], "to": norm(args[1])}
    if kind in ("shoot", "move", "advance"):
        return {"kind": kind, "from": norm(args[0]), "to": norm(args[1])}
    if kind == "recall":
        return {"kind": kind, "from": norm(args[0])}
    return {"kind": kind}


def canon(action: str) -> str:
    """An action with its squares written as the page writes them (d3, or -1,3 off the mat)."""
    a = parse(action)
    return " ".join(a[k] for k in ("kind", "card", "from", "to") if k in a)


def toast(page: Any) -> str:
    page.wait_for_selector("#toasts .toast")
    return str(page.inner_text("#toasts .toast"))


# --- what the page shows against what the server allows -------------------------------------------


def check_display(page: Any, seen: Counter[str]) -> None:
    """At a decision point of the page's player: every lit set the page shows equals the legal
    destinations of the selected card or unit, and the actions reachable by clicking are exactly
    the server's legal list (both ways). ``seen`` counts the kinds of action checked."""
    st = state(page)
    legal = set(st["legal"])
    assert legal and not st["pending"]
    acts = [parse(a) for a in legal]
    seen.update(a["kind"] for a in acts)
    reachable: set[str] = set()
    reset(page)

    # the reinforcement buttons
    for kind in ("draw", "pass"):
        button = page.locator(f"#btn-{kind}")
        assert button.is_visible() == (kind in legal), (kind, legal)
        if kind in legal:
            assert button.is_enabled()
            reachable.add(kind)

    # hand cards: each deployable card lights exactly its own legal squares
    deploys: dict[str, set[str]] = {}
    for a in acts:
        if a["kind"] == "deploy":
            deploys.setdefault(a["card"], set()).add(a["to"])
    hand = page.eval_on_selector_all(
        "#game .hand-card[data-card], #game .opp-card.own[data-card]",
        "els => els.map(e => ({card: e.dataset.card, index: e.dataset.index, deployable: e.classList.contains('deployable')}))",
    )
    assert {c["card"] for c in hand if c["deployable"]} == set(deploys), (hand, deploys)
    for card in sorted(deploys):
        index = next(c["index"] for c in hand if c["card"] == card)
        selector = f'#game [data-index="{index}"][data-card="{card}"]'
        page.click(selector)
        assert "selected" in classes(page, selector)
        shown = lit(page)
        assert shown == deploys[card], f"{card}: lit {sorted(shown)}, legal {sorted(deploys[card])}"
        reachable |= {f"deploy {card} {sq}" for sq in shown}
        reset(page)

    # units: the page marks exactly the units with actions; each offers exactly its actions
    targets: dict[str, dict[str, set[str]]] = {}
    for a in acts:
        if "from" in a:
            targets.setdefault(a["from"], {}).setdefault(a["kind"], set())
            if "to" in a:
                targets[a["from"]][a["kind"]].add(a["to"])
    sources = set(page.eval_on_selector_all("#mat .sq.source", "els => els.map(e => e.dataset.square)"))
    assert sources == set(targets), (sources, targets)
    for square in sorted(sources):
        kinds = targets[square]
        unit = f'#mat [data-square="{square}"]'
        for kind in sorted(kinds):
            if kind == "recall":
                continue
            reset(page)
            if "selected" not in classes(page, unit):  # a lone berserker choice is selected already
                page.click(unit)
                if page.locator("#popup").is_visible():
                    menu = set(page.eval_on_selector_all("#popup [data-menu]", "els => els.map(e => e.dataset.menu)"))
                    assert menu - {"magnify"} == set(kinds), (square, menu, kinds)
                    page.click(f'#popup [data-menu="{kind}"]')
                else:
                    assert set(kinds) == {kind}, (square, kinds)
            assert "selected" in classes(page, unit)
            shown = lit(page)
            assert shown == kinds[kind], f"{kind} from {square}: lit {sorted(shown)}, legal {sorted(kinds[kind])}"
            reachable |= {f"{kind} {square} {sq}" for sq in shown}
        if "recall" in kinds:
            # a recall is offered in the unit's menu (never a single click: it ends the turn)
            reset(page)
            page.click(unit)
            menu = set(
                page.eval_on_selector_all("#popup:not([hidden]) [data-menu]", "els => els.map(e => e.dataset.menu)")
            )
            assert menu - {"magnify"} == set(kinds), (square, menu, kinds)
            reachable.add(f"recall {square}")
    reset(page)
    wanted = {canon(a) for a in legal}
    reachable = {canon(a) for a in reachable}
    assert reachable == wanted, (
        f"shown but not legal: {sorted(reachable - wanted)}; legal but not shown: {sorted(wanted - reachable)}"
    )
    # a unit NOT marked offers nothing: its click says why, and selects nothing
    if not any(a["kind"] == "advance" for a in acts):  # (a berserker choice keeps its selection)
        others = page.eval_on_selector_all("#mat .sq.occupied:not(.source)", "els => els.map(e => e.dataset.square)")
        for square in others[:2]:
            page.click(f'#mat [data-square="{square}"]')
            assert not page.locator("#magnify").is_visible()
            message = toast(page)
            assert "has no legal action now" in message or "is not yours to command" in message, message
            assert page.locator("#mat .sq.selected").count() == 0
        reset(page)


def perform(page: Any, action: str) -> None:
    """Carry out one legal action by clicking, as a player would; wait for the server."""
    version = state(page)["game"]["version"]
    a = parse(action)
    reset(page)
    if a["kind"] == "deploy":
        page.click(f'#game .hand-card[data-card="{a["card"]}"] >> nth=0')
        page.click(f'#mat [data-square="{a["to"]}"]')
    elif a["kind"] in ("shoot", "move", "advance"):
        unit = f'#mat [data-square="{a["from"]}"]'
        if "selected" not in classes(page, unit):
            page.click(unit)
            if page.locator("#popup").is_visible():
                page.click(f'#popup [data-menu="{a["kind"]}"]')
        page.click(f'#mat [data-square="{a["to"]}"]')
    elif a["kind"] == "recall":
        page.click(f'#mat [data-square="{a["from"]}"]')
        page.click('#popup [data-menu="recall"]')
    else:
        page.click(f"#btn-{a['kind']}")
    low(page).wait_for_function("v => window.LoW.live.S.game.version > v", arg=version)


def choose(page: Any, legal: list[str], rng: random.Random, done: Counter[str]) -> str:
    """A varied game: shots when there are some, a recall now and then, deployments that open
    shots, else a draw."""
    shots = [a for a in legal if a.startswith("shoot ")]
    recalls = [a for a in legal if a.startswith("recall ")]
    deploys = [a for a in legal if a.startswith("deploy ")]
    if shots and rng.random() < 0.8:
        return rng.choice(shots)
    if recalls and done["recall"] < 1 and done["deploy"] >= 5:
        return rng.choice(recalls)
    if deploys:
        view = notation.parse_position(low(page).evaluate("() => window.LoW.live.S.view"))
        aiming = [a for a in deploys if any(x.kind == "shoot" for x in view.apply(a)[0].legal_actions())]
        return rng.choice(aiming or deploys)
    if "draw" in legal:
        return "draw"
    return rng.choice(legal)


def play_and_check(page: Any, decisions: int, seed: int, need: tuple[str, ...] = (), most: int = 40) -> Counter[str]:
    """Play ``decisions`` decision points by clicking, checking the display at each; go on (up
    to ``most``) until every kind of action in ``need`` has been offered and checked (the bot's
    game differs from run to run)."""
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    done: Counter[str] = Counter()
    for i in range(most):
        if i >= decisions and all(seen[k] for k in need):
            break
        st = wait_turn(page)
        if st["game"]["status"] != "running":
            break
        check_display(page, seen)
        action = choose(page, st["legal"], rng, done)
        perform(page, action)
        done[action.split()[0]] += 1
    return seen


def unit_colours(page: Any) -> dict[str, set[str]]:
    """The border colour of every unit on the mat and hand card, by owner."""
    found = page.evaluate(
        """() => [...document.querySelectorAll('#mat .unit[data-owner], #game .hand-card, #game .opp-card.own')]
             .map(e => [e.dataset.owner, getComputedStyle(e).borderTopColor])"""
    )
    out: dict[str, set[str]] = {}
    for owner, colour in found:
        out.setdefault(str(owner), set()).add(colour)
    return out


def no_js_errors(*pages: Any) -> None:
    for page in pages:
        assert not page.js_errors, page.js_errors


# --- tests ----------------------------------------------------------------------------------------


def test_player_one_sees_exactly_the_legal_squares_of_the_selection(browser: Any, server: tuple[str, Path]) -> None:
    base, _ = server
    page = sign_up(browser, base, "ann")
    bot_game(page, base, creator_side="1", creator_army="elves", opponent_army="dwarves")
    seen = play_and_check(page, 10, seed=3, need=("deploy", "draw", "shoot", "recall"))
    assert seen["deploy"] and seen["draw"] and seen["shoot"] and seen["recall"], seen

    # a click on a square the selected card may not go to says why, and keeps the selection
    st = wait_turn(page)
    rng = random.Random(5)
    while not any(a.startswith("deploy ") for a in st["legal"]):
        perform(page, choose(page, st["legal"], rng, Counter()))
        st = wait_turn(page)
    card = next(a.split()[1] for a in st["legal"] if a.startswith("deploy "))
    squares = {norm(a.split()[2]) for a in st["legal"] if a.startswith(f"deploy {card} ")}
    page.click(f'#hand-bottom .hand-card[data-card="{card}"] >> nth=0')
    shot(page, "game.png")
    free = page.eval_on_selector_all("#mat .sq:not(.occupied)", "els => els.map(e => e.dataset.square)")
    unlit = next(sq for sq in free if sq not in squares)
    page.click(f'#mat [data-square="{unlit}"]')
    message = toast(page)
    assert f"({card}) cannot be deployed on {unlit}: choose a lit square" in message
    assert page.locator("#toasts .toast").is_visible()
    assert page.locator(f'#hand-bottom .hand-card.selected[data-card="{card}"]').count() == 1
    assert lit(page) == squares
    assert state(page)["game"]["version"] == st["game"]["version"]  # nothing was sent

    page.click("#toasts .toast")  # a click closes a message; the selection stays
    assert page.locator("#toasts .toast").count() == 0
    assert page.locator(f'#hand-bottom .hand-card.selected[data-card="{card}"]').count() == 1
    # a hidden card says so
    page.click("#hand-top .opp-card >> nth=0")
    assert "hand is hidden" in toast(page)
    page.click("#toasts .toast")

    # the deck counters list what the player may know of each deck
    me = str(st["game"]["you"])
    page.hover("#panel-bottom .deck-count")
    pop = page.locator("#hover-pop")
    assert pop.is_visible()
    deck_left = st["view"]["players"][me]["deck"]
    assert f"Your deck: {deck_left} cards left" in pop.inner_text()
    shown = pop.locator(".card[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert sorted(shown) == sorted(st["deck"][me]["cards"]) and len(shown) == deck_left
    shot(page, "game-deck-hover.png")
    page.hover("#panel-top .deck-count")
    opp = str(3 - int(me))
    hidden_hand = len(st["view"]["players"][opp]["hand"])
    text = pop.inner_text()
    assert "deck or hand" in text and f"{st['view']['players'][opp]['deck'] + hidden_hand} cards" in text
    assert pop.locator(".card[data-card]").count() == st["view"]["players"][opp]["deck"] + hidden_hand
    page.mouse.move(2, 400)
    assert not pop.is_visible()
    no_js_errors(page)
    page.context.close()


def test_player_two_with_the_mat_turned_and_flipped_colours(browser: Any, server: tuple[str, Path]) -> None:
    base, _ = server
    page = sign_up(browser, base, "ben")
    bot_game(page, base, creator_side="2", creator_army="undead", opponent_army="lizardmen", mat="unbordered")
    assert page.get_attribute("#mat", "data-bottom") == "2"  # player 2 sits at the bottom: the mat turned
    seen = play_and_check(page, 8, seed=11, need=("deploy", "draw", "recall"))
    assert seen["deploy"] and seen["draw"], seen

    # colours follow the owner: after a flip, your units and cards keep yours
    wait_turn(page)
    before = unit_colours(page)
    assert before.get("2") and len(before["2"]) == 1, before
    if before.get("1"):  # the bot may have no unit on the mat at this moment (recalled or eliminated)
        assert before["1"] != before["2"], before
    panels = page.evaluate(
        '() => [1, 2].map(p => getComputedStyle(document.querySelector(`.player-panel[data-player="${p}"]`)).borderLeftColor)'
    )
    assert panels[0] != panels[1]
    me_panel = page.eval_on_selector("#panel-bottom", "e => getComputedStyle(e).borderLeftColor")
    page.click("#btn-flip")
    assert page.get_attribute("#mat", "data-bottom") == "1"
    after = unit_colours(page)
    assert after == before, (before, after)
    assert (
        page.eval_on_selector('.player-panel[data-player="2"]', "e => getComputedStyle(e).borderLeftColor") == me_panel
    )
    # your hand, now at the top, is still yours to play
    st = state(page)
    if any(a.startswith("deploy ") for a in st["legal"]):
        check_display(page, Counter())
    page.click("#btn-flip")
    assert page.get_attribute("#mat", "data-bottom") == "2"
    no_js_errors(page)
    page.context.close()


def test_a_stale_request_message_covers_no_control(browser: Any, server: tuple[str, Path]) -> None:
    base, _ = server
    for viewport in (WIDE, {"width": 1024, "height": 700}):
        page = sign_up(browser, base, f"cy{viewport['width']}", viewport)
        bot_game(page, base, creator_side="1")
        st = wait_turn(page)
        perform(page, next(a for a in st["legal"] if a.startswith("deploy ")))
        st = wait_turn(page)
        assert "draw" in st["legal"] and page.locator("#btn-draw").is_visible()
        # an action on an old version (a second tab, say): the server refuses it as stale
        low(page).evaluate(
            "a => window.LoW.live.send({type: 'action', action: a, version: window.LoW.live.S.game.version - 1})",
            st["legal"][0],
        )
        page.wait_for_selector("#toasts .toast.error")
        page.wait_for_timeout(250)  # faded in
        assert "stale request" in page.inner_text("#toasts .toast")
        box = page.locator("#toasts .toast").bounding_box()
        controls = page.evaluate(
            """() => [...document.querySelectorAll('#hand-bottom, #hand-bottom .card, #game button, #game a.btn, #game input, #mat .sq.target, #mat .sq.source')]
                 .filter(e => e.offsetParent !== null && !e.closest('#toasts'))
                 .map(e => { const r = e.getBoundingClientRect(); return {id: e.id || e.className, x: r.x, y: r.y, w: r.width, h: r.height}; })
                 .filter(r => r.w > 0 && r.h > 0)"""
        )
        assert controls
        for c in controls:
            overlap = (
                box["x"] < c["x"] + c["w"]
                and c["x"] < box["x"] + box["width"]
                and box["y"] < c["y"] + c["h"]
                and c["y"] < box["y"] + box["height"]
            )
            assert not overlap, f"the toast {box} covers {c} at {viewport}"
        # the message goes away by itself; the Draw button works meanwhile
        perform(page, "draw")
        no_js_errors(page)
        page.context.close()


def test_two_players_resignation_heading_not_your_turn_and_panels(browser: Any, server: tuple[str, Path]) -> None:
    base, _ = server
    dee = sign_up(browser, base, "dee")
    eve = sign_up(browser, base, "eve")
    invitation = api(
        dee,
        "POST",
        "/api/invitations",
        {"options": {"creator_side": "1", "creator_army": "orcs", "opponent_army": "elves"}, "opponent": "eve"},
    )
    assert invitation["status"] in (200, 201), invitation
    accepted = api(eve, "POST", f"/api/invitations/{invitation['body']['invitation']}/accept", {})
    game = int(accepted["body"]["game"])
    open_game(dee, base, game)
    open_game(eve, base, game)
    rng = random.Random(2)
    seen: Counter[str] = Counter()
    # four turns, each player checking their own display (eve's mat turned)
    while state(dee)["view"]["turn"] <= 4:
        page = dee if state(dee)["legal"] else eve if state(eve)["legal"] else None
        if page is None:
            dee.wait_for_timeout(50)
            continue
        other = eve if page is dee else dee
        check_display(page, seen)
        # the player who must wait is told so when clicking
        other.click("#hand-bottom .hand-card >> nth=0")
        assert "Not your turn: waiting for " + ("dee" if page is dee else "eve") in toast(other)
        perform(page, choose(page, state(page)["legal"], rng, Counter()))
        low(other).wait_for_function("v => window.LoW.live.S.game.version >= v", arg=state(page)["game"]["version"])
    assert eve.get_attribute("#mat", "data-bottom") == "2" and dee.get_attribute("#mat", "data-bottom") == "1"
    assert seen["deploy"] and seen["draw"], seen

    # the panels hide and show; the rings stay in view on the button; the choice is remembered
    dee.click("#btn-panels")
    assert dee.locator("#panel-bottom .pp-body").is_hidden() and dee.locator("#panel-top .pp-body").is_hidden()
    assert dee.locator("#btn-panels .rings").count() == 2 and dee.locator("#btn-panels .rings >> nth=0").is_visible()
    assert dee.locator("#panel-bottom .clock").is_visible()  # the clocks stay
    assert "/4" in dee.inner_text("#btn-panels")
    dee.reload()
    low(dee).wait_for_function("() => window.LoW.live.S.game !== null")
    dee.wait_for_selector("#conn", state="hidden")
    assert dee.locator("#panel-bottom .pp-body").is_hidden()
    dee.click("#btn-panels")
    assert dee.locator("#panel-bottom .pp-body").is_visible()
    dee.reload()
    low(dee).wait_for_function("() => window.LoW.live.S.game !== null")
    dee.wait_for_selector("#conn", state="hidden")
    assert dee.locator("#panel-bottom .pp-body").is_visible()

    # the player who is not to move resigns after the mover deployed: the log files the
    # resignation under the resigner's own heading, not under the mover's turn
    mover_page = dee if state(dee)["legal"] else eve
    st = state(mover_page)
    deploy = next((a for a in st["legal"] if a.startswith("deploy ")), None)
    if deploy is not None:
        perform(mover_page, deploy)
    assert state(mover_page)["legal"]  # still the mover's turn
    resigner, other = (eve, dee) if mover_page is dee else (dee, eve)
    name = "eve" if resigner is eve else "dee"
    resigner.click("#btn-resign")
    resigner.click("#btn-resign-confirm")
    for page in (dee, eve):
        page.wait_for_selector("#result:visible")
        heading = page.evaluate(
            """() => { const items = [...document.querySelectorAll('#log .log-turn, #log .log-entry')];
                       const i = items.findIndex(e => e.classList.contains('log-entry') && /resigns/.test(e.textContent));
                       for (let j = i - 1; j >= 0; j--) if (items[j].classList.contains('log-turn')) return items[j].textContent;
                       return null; }"""
        )
        assert heading is not None and name in heading.lower(), heading
    # the replay list too
    other.goto(f"{base}/games/{game}/replay")
    other.wait_for_selector("#replay-list .replay-item")
    heading = other.evaluate(
        """() => { const items = [...document.querySelectorAll('#replay-list .log-turn, #replay-list .replay-item')];
                   const i = items.findIndex(e => /resigns/.test(e.textContent) && e.classList.contains('replay-item'));
                   for (let j = i - 1; j >= 0; j--) if (items[j].classList.contains('log-turn')) return items[j].textContent;
                   return null; }"""
    )
    assert heading is not None and name in heading.lower(), heading
    no_js_errors(dee, eve)
    dee.context.close()
    eve.context.close()


def _insert_game(
    db: Path, p1: str, p2: str, decks: list[list[str]], armies: list[str], seed: int, actions: list[str]
) -> int:
    """A running game set up in the server's database (turn-based, public)."""
    from sqlalchemy import create_engine, text

    from lordsofwar.rules.state import Variant

    engine = create_engine(f"sqlite:///{db}")
    now = datetime.now(UTC)
    try:
        with engine.begin() as conn:
            ids: dict[str, int] = dict(
                conn.execute(
                    text("SELECT name_key, id FROM users WHERE name_key IN (:a, :b)"), {"a": p1, "b": p2}
                ).all()
            )
            pos = notation.deal(decks, seed)
            for action in actions:
                pos.push(action)
            row = {
                "p1": ids[p1],
                "p2": ids[p2],
                "variant": json.dumps(Variant().to_json()),
                "decks": json.dumps(decks),
                "armies": json.dumps(armies),
                "seed": seed,
                "actions": json.dumps(actions),
                "version": len(actions),
                "now": now,
                "deadline": now + timedelta(days=3),
                "turn_ms": 3 * 86_400_000,
                "waiting": pos.decider,
            }
            conn.execute(
                text(
                    "INSERT INTO games (player1_id, player2_id, public, variant, decks, armies, seed, actions, version,"
                    " status, waiting_for, mode, initial_ms, increment_ms, turn_ms, clock1_ms, clock2_ms, since,"
                    " deadline_at, created_at) VALUES (:p1, :p2, 1, :variant, :decks, :armies, :seed, :actions, :version,"
                    " 'running', :waiting, 'turn', 0, 0, :turn_ms, 0, 0, :now, :deadline, :now)"
                ),
                row,
            )
            return int(conn.execute(text("SELECT max(id) FROM games")).scalar_one())
    finally:
        engine.dispose()


def test_a_berserker_choice_and_a_mercenary_deck(browser: Any, server: tuple[str, Path]) -> None:
    from lordsofwar.rules.cards import CORE

    base, db = server
    fay = sign_up(browser, base, "fay")
    gus = sign_up(browser, base, "gus")
    decks, seed, actions = berserker_choice_game()
    game = _insert_game(db, "fay", "gus", decks, ["orcs", "templars"], seed, actions)
    open_game(fay, base, game)
    st = wait_turn(fay)
    assert st["legal"] and all(a.startswith("advance ") for a in st["legal"])
    seen: Counter[str] = Counter()
    check_display(fay, seen)  # the advance squares lit are exactly the legal ones
    perform(fay, st["legal"][-1])
    assert "advances" in fay.inner_text("#log")
    if state(fay)["legal"]:  # fay acts on (else it is gus's turn)
        check_display(fay, seen)
    assert seen["advance"], seen

    # a mercenary deck: its owner sees its cards, the opponent only its count
    merc = CORE.standard_deck("orcs")
    orc_vet = next(c for c in merc if CORE[c].rank == "veteran")
    merc[merc.index(orc_vet)] = next(c for c in CORE.standard_deck("elves") if CORE[c].rank == "veteran")
    game = _insert_game(db, "fay", "gus", [CORE.standard_deck("dwarves"), merc], ["dwarves", "mercenary"], 4, [])
    open_game(fay, base, game)
    open_game(gus, base, game)
    fay.hover('.player-panel[data-player="2"] .deck-count')
    assert "not known" in fay.inner_text("#hover-pop") and fay.locator("#hover-pop .card").count() == 0
    assert state(fay)["deck"]["2"] is None
    gus.hover('.player-panel[data-player="2"] .deck-count')
    own = state(gus)
    assert (
        gus.locator("#hover-pop .card").count() == own["view"]["players"]["2"]["deck"] == len(own["deck"]["2"]["cards"])
    )
    # a spectator sees both decks as an opponent does
    spectator = browser.new_context(viewport=WIDE).new_page()
    spectator.goto(f"{base}/games/{game}")
    low(spectator).wait_for_function("() => window.LoW && window.LoW.live && window.LoW.live.S.game !== null")
    deck = state(spectator)["deck"]
    assert deck["2"] is None and deck["1"]["includes_hand"] is True and len(deck["1"]["cards"]) == 36
    no_js_errors(fay, gus)
    fay.context.close()
    gus.context.close()
    spectator.context.close()


def test_the_replay_opens_at_the_start_with_its_controls_in_view(browser: Any, server: tuple[str, Path]) -> None:
    base, _ = server
    hal = sign_up(browser, base, "hal")
    game = bot_game(hal, base, creator_side="1", creator_army="templars", opponent_army="orcs")
    rng = random.Random(4)
    for _ in range(14):
        st = wait_turn(hal)
        legal = st["legal"]
        deploys = [a for a in legal if a.startswith("deploy ")]
        low(hal).evaluate(
            "a => window.LoW.live.send({type: 'action', action: a, version: window.LoW.live.S.game.version})",
            rng.choice(deploys) if deploys else "draw" if "draw" in legal else rng.choice(legal),
        )
        low(hal).wait_for_function("v => window.LoW.live.S.game.version > v", arg=st["game"]["version"])
    wait_turn(hal)
    hal.click("#btn-resign")
    hal.click("#btn-resign-confirm")
    hal.wait_for_selector("#result:visible")

    def in_view(page: Any, selector: str) -> bool:
        box = page.locator(selector).bounding_box()
        size = page.viewport_size
        return (
            box is not None
            and box["y"] >= 0
            and box["y"] + box["height"] <= size["height"]
            and box["x"] + box["width"] <= size["width"]
        )

    for viewport in (WIDE, {"width": 1024, "height": 700}):
        hal.set_viewport_size(viewport)
        hal.goto(f"{base}/games/{game}/replay")
        hal.wait_for_selector("#replay-list .replay-item.current")
        assert low(hal).evaluate("() => window.LoW.replay.R.ply") == 0
        assert hal.get_attribute("#replay-list .replay-item.current", "data-ply") == "0"
        assert hal.inner_text("#replay-ply-label").startswith("0 /")
        controls = ["#replay-first", "#replay-prev", "#replay-next", "#replay-last", "#replay-ply"]
        for scroll in ("0", "document.body.scrollHeight"):
            hal.evaluate(f"() => window.scrollTo(0, {scroll})")
            hal.wait_for_timeout(50)
            for selector in controls:
                assert in_view(hal, selector), (viewport, scroll, selector)
        hal.keyboard.press("End")
        for selector in controls:
            assert in_view(hal, selector), (viewport, "end", selector)
        hal.click("#replay-first")

    # a click on a card name in an entry goes to that step; magnify is a double-click
    hal.set_viewport_size(WIDE)
    # the page lays itself out again 80 ms after a resize: a click during that lands elsewhere
    hal.wait_for_timeout(400)
    item = hal.locator("#replay-list .replay-item:has(.cardref)").nth(3)
    item.scroll_into_view_if_needed()
    ply = int(item.get_attribute("data-ply"))
    item.locator(".cardref").first.click()
    assert low(hal).evaluate("() => window.LoW.replay.R.ply") == ply
    assert hal.locator("#magnify").is_hidden()
    assert hal.get_attribute("#replay-list .replay-item.current", "data-ply") == str(ply)
    hal.hover("#replay-list .replay-item.current .cardref >> nth=0")
    assert hal.locator("#hover-pop .card").count() == 1  # a preview on hover
    other = hal.locator("#replay-list .replay-item:has(.cardref)").nth(5)
    other.locator(".cardref").first.dblclick()
    assert hal.locator("#magnify").is_visible()
    hal.keyboard.press("Escape")
    assert hal.locator("#magnify").is_hidden()
    # the replay's colours follow the owner too: player 1 blue, flipped or not
    before = hal.evaluate(
        "() => [...document.querySelectorAll('#mat .unit[data-owner=\"1\"]')].map(e => getComputedStyle(e).borderTopColor)"
    )
    hal.click("#btn-flip")
    after = hal.evaluate(
        "() => [...document.querySelectorAll('#mat .unit[data-owner=\"1\"]')].map(e => getComputedStyle(e).borderTopColor)"
    )
    assert before and set(before) == set(after)
    hal.click("#btn-flip")
    hal.click("#replay-first")
    for _ in range(12):
        hal.click("#replay-next")
    shot(hal, "replay.png")
    no_js_errors(hal)
    hal.context.close()
