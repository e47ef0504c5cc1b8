"""The platform in a real browser: Debian's Chromium driven by Playwright against a real
`lordsofwar serve` process on 127.0.0.1.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the screenshots of the lobby, a game in
progress and the replay viewer.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lordsofwar.rules import notation
from tests.helpers import berserker_choice_game
from tests.web.hooks import low
from tests.web.server import chromium_path, running_server

CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-browser)")

SHOTS = Path(os.environ["LOW_SCREENSHOT_DIR"]) if os.environ.get("LOW_SCREENSHOT_DIR") else None


DATABASES: dict[str, Path] = {}


def server_db_path(base: str) -> Path:
    """The SQLite file of the test server at ``base``."""
    return DATABASES[base]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("server")
    with running_server(data) as base:
        DATABASES[base] = data / "low.sqlite3"
        yield base


@pytest.fixture(scope="module")
def card_classes(server: str) -> dict[str, str]:
    return {c["id"]: c["class"] for c in httpx.get(server + "/api/cards").json()}


def shot(page: Any, name: str, full_page: bool = False) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_timeout(300)
        page.screenshot(path=str(SHOTS / name), full_page=full_page)


def sign_up(browser: Any, server: str, name: str) -> Any:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.set_default_timeout(30_000)
    visit(page, server + "/")
    page.click("text=Create an account")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "password-123")
    page.fill("input[name=password2]", "password-123")
    page.click("#signup-submit")
    page.wait_for_selector("#new-game-form")
    return page


def sign_in(page: Any, server: str, name: str) -> None:
    """Sign ``page`` in as ``name`` (an account made beforehand) through the sign-in form."""
    visit(page, server + "/signin")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "password-123")
    page.click("#signin-submit")
    page.wait_for_selector("#new-game-form")


class Api:
    """A player signed up and signed in through the JSON API (in ``language``)."""

    def __init__(self, base: str, name: str, language: str = "en"):
        self.name = name
        # keepalive_expiry: idle connections dropped before the server closes them (test_two_processes.Client)
        self.http = httpx.Client(
            base_url=base,
            timeout=30,
            headers={"Accept-Language": language},
            limits=httpx.Limits(keepalive_expiry=1.0),
        )
        self.csrf = self.http.get("/api/session").json()["csrf"]
        r = self.post("/api/signup", {"name": name, "password": "password-123"})
        assert r.status_code == 201, r.text
        self.csrf = self.http.get("/api/session").json()["csrf"]

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.http.post(path, json=body or {}, headers={"X-CSRF-Token": self.csrf})


def finished_tournament(organiser: Api, other: Api, name: str) -> int:
    """A rated live Swiss tournament of one round between the two, played out (the loser of its
    one game resigns); its id."""
    done = organiser.post(
        "/api/tournaments", {"name": name, "kind": "swiss", "rounds": 1, "options": {"mode": "live", "rated": True}}
    )
    assert done.status_code == 201, done.text
    tid = int(done.json()["tournament"])
    assert other.post(f"/api/tournaments/{tid}/join", {"army": "orcs"}).status_code == 200
    assert organiser.post(f"/api/tournaments/{tid}/join", {"army": "elves"}).status_code == 200
    started = organiser.post(f"/api/tournaments/{tid}/start")
    assert started.status_code == 200, started.text
    board = started.json()["rounds_played"][0]["boards"][0]
    loser = organiser if board["white"] == organiser.name else other
    assert loser.post(f"/api/games/{board['game']}/resign").status_code == 200
    deadline = time.monotonic() + 20  # the tournament finishes right after its last game
    while organiser.http.get(f"/api/tournaments/{tid}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the tournament did not finish"
        time.sleep(0.2)
    return tid


def rated_game(a: Api, b: Api, **options: Any) -> int:
    """A rated game of a (side 1) against b, started through an accepted challenge; its id."""
    r = a.post("/api/invitations", {"opponent": b.name, "options": {"creator_side": "1", "rated": True, **options}})
    assert r.status_code == 201, r.text
    r = b.post(f"/api/invitations/{r.json()['invitation']}/accept")
    assert r.status_code == 200, r.text
    return int(r.json()["game"])


ARRIVED = "path => location.pathname === path && document.querySelector('.flash') !== null"
"""For ``page.wait_for_function(ARRIVED, arg=PATH)``: the page at PATH shows a flash. A page
reached by a redirect to ``PATH?flash=...`` is known this way, not by its URL: its flash script
drops the query as soon as it runs, which can be before a ``wait_for_url`` begins."""


def visit(page: Any, url: str) -> None:
    """Open ``url``. An open lobby reloads itself when its lists change, and a reload that starts
    while Playwright navigates aborts that navigation (net::ERR_ABORTED): leave such a page for a
    blank one first, where no script runs, then go."""
    from playwright.sync_api import Error

    for attempt in range(3):
        try:
            page.goto("about:blank")
            page.goto(url)
            return
        except Error as e:
            if "ERR_ABORTED" not in str(e) or attempt == 2:
                raise


def live(page: Any) -> dict[str, Any]:
    return dict(low(page).evaluate("() => { const S = window.LoW.live.S; return {legal: S.legal, game: S.game}; }"))


def wait_live(page: Any) -> None:
    low(page).wait_for_function("() => window.LoW && window.LoW.live && window.LoW.live.S.game !== null")


def perform(page: Any, action: str) -> None:
    """Carry out one legal action by clicking, as a player would; wait until the server answered."""
    version = live(page)["game"]["version"]
    kind, *args = action.split()
    if kind == "deploy":
        page.click(f'#hand-bottom .hand-card[data-card="{args[0]}"] >> nth=0')
        page.click(f'#mat [data-square="{args[1]}"]')
    elif kind in ("shoot", "move", "advance"):
        target = page.locator(f'#mat [data-square="{args[1]}"]')
        # the page may have selected the unit already (a berserker choice waits): then its
        # destinations are lit, and clicking the unit again would magnify it
        source = page.locator(f'#mat [data-square="{args[0]}"]')
        lit = "target" in (target.get_attribute("class") or "").split()
        if not (lit and "selected" in (source.get_attribute("class") or "").split()):
            page.click(f'#mat [data-square="{args[0]}"]')
            if page.locator("#popup").is_visible():
                page.click(f'#popup [data-menu="{kind}"]')
        target.click()
    elif kind == "recall":
        page.click(f'#mat [data-square="{args[0]}"]')
        page.click('#popup [data-menu="recall"]')
    else:
        page.click(f"#btn-{kind}")
    low(page).wait_for_function("v => window.LoW.live.S.game.version > v", arg=version)


def test_two_players_invite_accept_play_and_resign(browser: Any, server: str, card_classes: dict[str, str]) -> None:
    alice = sign_up(browser, server, "alice")
    bob = sign_up(browser, server, "bob")

    # alice challenges bob by name
    alice.check("input[name=against][value=player]")
    alice.fill("#opponent-name", "bob")
    alice.select_option("select[name=creator_army]", "lizardmen")
    alice.select_option("select[name=opponent_army]", "orcs")
    alice.select_option("select[name=creator_side]", "1")
    alice.click("#create-game")
    assert "Invitation posted" in alice.inner_text(".flash")
    assert "to bob" in alice.inner_text("#invitations")

    # bob's open lobby shows it by itself, and he accepts
    bob.wait_for_selector("#invitations li:has-text('alice challenges you')", timeout=20_000)
    shot(bob, "lobby.png", full_page=True)
    bob.click("#invitations button:has-text('Accept')")
    bob.wait_for_url("**/games/*")
    wait_live(bob)
    game_url = bob.url

    visit(alice, server + "/")
    alice.click("#your-turn a:has-text('Play') >> nth=0")
    alice.wait_for_url(game_url)
    wait_live(alice)
    assert "Deploy" in alice.inner_text("#status")

    rng = random.Random(7)
    done = {"deploy": 0, "shoot": 0, "recall": 0}
    for _ in range(400):
        page = alice if live(alice)["legal"] else bob if live(bob)["legal"] else None
        if page is None:
            page = alice
            page.wait_for_timeout(50)
            continue
        legal = live(page)["legal"]
        shots = [a for a in legal if a.startswith("shoot ")]
        recalls = [a for a in legal if a.startswith("recall ")]
        deploys = [a for a in legal if a.startswith("deploy ")]
        if shots and done["shoot"] < 2:
            action = rng.choice(shots)
            if done["shoot"] == 0:
                page.click(f'#mat [data-square="{action.split()[1]}"]')
                if page.locator('#popup [data-menu="shoot"]').is_visible():
                    page.click('#popup [data-menu="shoot"]')
                assert page.locator("#mat .sq.target").count() >= 1  # the targets light up
                page.keyboard.press("Escape")
                page.click("#status")  # clear the selection
        elif recalls and done["recall"] < 1 and done["deploy"] >= 6:
            action = rng.choice(recalls)
        elif deploys:
            # look ahead on this player's own view for a deployment after which a shot is legal
            view = notation.parse_position(low(page).evaluate("() => window.LoW.live.S.view"))
            aiming = [a for a in deploys if any(x.kind == "shoot" for x in view.apply(a)[0].legal_actions())]
            ranged = [a for a in deploys if card_classes[a.split()[1]] == "ranged"]
            action = rng.choice(aiming or ranged or deploys)
        else:
            action = "draw" if "draw" in legal else rng.choice(legal)
        perform(page, action)
        done[action.split()[0]] = done.get(action.split()[0], 0) + 1
        if done["shoot"] and done["recall"] and done["deploy"] >= 8:
            break
        if live(page)["game"]["status"] != "running":
            break
    assert done["deploy"] >= 8 and done["shoot"] >= 1 and done["recall"] >= 1, done

    # both pages show the same log, updated live
    for page in (alice, bob):
        low(page).wait_for_function("v => window.LoW.live.S.game.version === v", arg=live(alice)["game"]["version"])
    assert alice.locator("#log .log-entry").count() == bob.locator("#log .log-entry").count() > 10
    assert "shoots" in alice.inner_text("#log") or "shot" in alice.inner_text("#log")
    shot(alice, "game-two-players.png")

    # bob resigns; both see the result
    bob.click("#btn-resign")
    bob.click("#btn-resign-confirm")
    for page in (alice, bob):
        page.wait_for_selector("#result:visible")
        assert "resign" in page.inner_text("#result").lower()
    assert "You won" in alice.inner_text("#result") and "bob resigned" in alice.inner_text("#result")
    assert "You lost" in bob.inner_text("#result")

    # the record downloads and the replay viewer steps through the game
    with alice.expect_download() as download:
        alice.click("#link-record")
    assert download.value.suggested_filename.startswith("lordsofwar-game-")
    alice.click("#link-replay")
    alice.wait_for_selector("#replay-list .replay-item.current")
    assert low(alice).evaluate("() => window.LoW.replay.R.ply") == 0  # the replay opens at the start
    first = alice.locator("#mat .unit").count()
    for _ in range(6):
        alice.click("#replay-next")
    assert alice.locator("#replay-list .replay-item.current").count() == 1
    assert alice.locator("#mat .unit").count() >= first
    alice.keyboard.press("End")
    shot(alice, "replay.png")
    alice.context.close()
    bob.context.close()


def test_a_game_against_the_bot_played_to_its_end(browser: Any, server: str) -> None:
    carol = sign_up(browser, server, "carol")
    carol.check("input[name=against][value='bot:random']")
    carol.select_option("select[name=length]", "15/3")
    carol.select_option("select[name=creator_side]", "2")
    carol.click("#create-game")
    carol.wait_for_url("**/games/*")
    wait_live(carol)
    rng = random.Random(3)
    for _ in range(1500):
        state = live(carol)
        if state["game"]["status"] != "running":
            break
        if not state["legal"]:
            low(carol).wait_for_function(
                "v => window.LoW.live.S.game.version > v || window.LoW.live.S.legal.length > 0",
                arg=state["game"]["version"],
            )
            continue
        legal = state["legal"]
        deploys = [a for a in legal if a.startswith("deploy ")]
        perform(carol, rng.choice(deploys) if deploys else ("draw" if "draw" in legal else rng.choice(legal)))
    state = live(carol)
    assert state["game"]["status"] == "over", "the game against the bot did not reach its end"
    carol.wait_for_selector("#result:visible")
    assert carol.inner_text("#result").startswith(("You won", "You lost", "Draw"))
    # a rematch against the bot starts at once, sides swapped
    finished = carol.url
    carol.click("#btn-rematch")
    carol.wait_for_url(lambda url: url != finished and "/games/" in url)
    wait_live(carol)
    assert live(carol)["game"]["you"] == 1 and live(carol)["game"]["status"] == "running"
    carol.context.close()


def test_the_page_reconnects_after_a_server_restart_and_nothing_is_lost(browser: Any, tmp_path: Path) -> None:
    from tests.web.server import free_port

    port = free_port()
    with running_server(tmp_path, port=port) as base:
        page = sign_up(browser, base, "dave")
        page.check("input[name=against][value='bot:random']")
        page.select_option("select[name=creator_side]", "1")
        page.click("#create-game")
        page.wait_for_url("**/games/*")
        wait_live(page)
        legal = live(page)["legal"]
        perform(page, next(a for a in legal if a.startswith("deploy ")))
        perform(page, "draw")
        low(page).wait_for_function("() => window.LoW.live.S.legal.length > 0")  # the bot has played
        before = live(page)["game"]["version"]
        log_before = page.locator("#log .log-entry").count()
    # the server is down: the page says so and keeps trying
    page.wait_for_selector("#conn:visible", timeout=20_000)
    with running_server(tmp_path, port=port):
        page.wait_for_selector("#conn", state="hidden", timeout=30_000)
        assert live(page)["game"]["version"] == before
        assert page.locator("#log .log-entry").count() == log_before
        # play on without reloading the page
        legal = live(page)["legal"]
        perform(page, next(a for a in legal if a.startswith("deploy ")))
        assert live(page)["game"]["version"] == before + 1
    page.context.close()


def test_cancel_decline_and_watching_through_the_lobby(browser: Any, server: str) -> None:
    erin = sign_up(browser, server, "erin")
    frank = sign_up(browser, server, "frank")
    # an open challenge, cancelled by its creator
    erin.click("#create-game")
    assert "open to anyone" in erin.inner_text("#invitations")
    erin.click("#invitations button:has-text('Cancel')")
    assert "Invitation cancelled" in erin.inner_text(".flash")
    assert "open to anyone" not in erin.inner_text("#invitations")
    # a direct challenge, declined by the challenged player
    erin.check("input[name=against][value=player]")
    erin.fill("#opponent-name", "frank")
    erin.click("#create-game")
    frank.wait_for_selector("#invitations li:has-text('erin challenges you')", timeout=20_000)
    frank.click("#invitations button:has-text('Decline')")
    assert "Invitation declined" in frank.inner_text(".flash")
    visit(erin, server + "/")
    assert "to frank" not in erin.inner_text("#invitations")
    # a public game against the bot, watched by frank: both hands hidden, no controls
    erin.check("input[name=against][value='bot:random']")
    erin.select_option("select[name=creator_side]", "1")
    erin.click("#create-game")
    erin.wait_for_url("**/games/*")
    wait_live(erin)
    visit(frank, server + "/")
    frank.click("#open-challenges a:has-text('Open') >> nth=0")
    wait_live(frank)
    assert frank.url == erin.url
    assert live(frank)["game"]["you"] is None and live(frank)["legal"] == []
    assert frank.locator("#hand-bottom .hand-card").count() == 0  # no face-up hand for a spectator
    assert frank.locator("#hand-top .opp-card.face").count() == 0
    assert frank.locator("#btn-resign").is_hidden()
    # the spectator sees erin's action at once
    perform(erin, next(a for a in live(erin)["legal"] if a.startswith("deploy ")))
    low(frank).wait_for_function("() => window.LoW.live.S.game.version >= 1")
    assert frank.locator("#mat .unit").count() >= 1
    erin.context.close()
    frank.context.close()


def test_a_berserker_choice_through_the_page(browser: Any, server: str) -> None:
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import create_engine, text

    from lordsofwar.rules.state import Variant

    gina = sign_up(browser, server, "gina")
    hugo = sign_up(browser, server, "hugo")
    decks, seed, actions = berserker_choice_game()
    engine = create_engine(f"sqlite:///{server_db_path(server)}")  # the game is set up in the server's database
    now = datetime.now(UTC)
    with engine.begin() as conn:
        ids: dict[str, int] = dict(
            conn.execute(text("SELECT name_key, id FROM users WHERE name_key IN ('gina', 'hugo')")).all()
        )
        row = {
            "p1": ids["gina"],
            "p2": ids["hugo"],
            "variant": json.dumps(Variant().to_json()),
            "decks": json.dumps(decks),
            "armies": json.dumps(["orcs", "templars"]),
            "seed": seed,
            "actions": json.dumps(actions),
            "version": len(actions),
            "now": now,
            "deadline": now + timedelta(days=3),
            "turn_ms": 3 * 86_400_000,
        }
        conn.execute(
            text(
                "INSERT INTO games (player1_id, player2_id, public, variant, decks, armies, seed, actions, version,"
                " status, waiting_for, mode, initial_ms, increment_ms, turn_ms, clock1_ms, clock2_ms, since,"
                " deadline_at, created_at) VALUES (:p1, :p2, 1, :variant, :decks, :armies, :seed, :actions, :version,"
                " 'running', 1, 'turn', 0, 0, :turn_ms, 0, 0, :now, :deadline, :now)"
            ),
            row,
        )
        game = conn.execute(text("SELECT max(id) FROM games")).scalar_one()
    engine.dispose()
    visit(gina, f"{server}/games/{game}")
    wait_live(gina)
    legal = live(gina)["legal"]
    assert legal and all(a.startswith("advance ") for a in legal)
    assert "berserker" in gina.inner_text("#status").lower() or "advance" in gina.inner_text("#status").lower()
    perform(gina, legal[0])
    state = live(gina)
    assert state["game"]["version"] == len(actions) + 1
    assert "advances" in gina.inner_text("#log")
    visit(hugo, f"{server}/games/{game}")
    wait_live(hugo)
    assert live(hugo)["game"]["version"] == len(actions) + 1
    gina.context.close()
    hugo.context.close()


def test_build_a_mercenary_deck_and_play_it(browser: Any, server: str) -> None:
    from lordsofwar.rules.cards import CORE

    def of(army: str, rank: str) -> list[str]:
        return [c.id for c in CORE.army(army) if c.rank == rank]

    dora = sign_up(browser, server, "dora")
    ivan = sign_up(browser, server, "ivan")
    dora.on("dialog", lambda d: d.accept())
    # a new deck from the orcs, then two veterans swapped for elves' veterans
    dora.click("nav a:has-text('Decks')")
    dora.fill("#new-deck-form input[name=name]", "Elf-eared orcs")
    dora.select_option("#new-deck-form select[name=army]", "orcs")
    dora.click("#new-deck-submit")
    dora.wait_for_url("**/decks/*")
    dora.wait_for_selector("#deck-stats[data-state=ready][data-cards='36']")
    assert "Complete" in dora.inner_text("#deck-status")
    # a full rank refuses a new card, and says why
    elf_elite = of("elves", "elite")[0]
    dora.fill("#card-search", elf_elite)
    # the search re-renders the browser after a short pause: a click on a tile being replaced
    # is lost, so click again (a full rank adds nothing, whatever the number of clicks)
    for _ in range(3):
        dora.click(f".browser-card[data-ids~='{elf_elite}'] .add-card")
        try:
            dora.wait_for_function(
                "() => /rank is full/.test(document.querySelector('#deck-message').textContent)", timeout=2000
            )
            break
        except Exception:
            continue
    message = dora.inner_text("#deck-message")
    assert "elite rank is full (4 of 4)" in message and "take an elite card out" in message
    dora.fill("#card-search", "")
    swapped = []
    for out, new in zip(of("orcs", "veteran")[:2], of("elves", "veteran")[:2], strict=True):
        dora.click(f"#deck-ranks .deck-card[data-card='{out}'] >> nth=0")
        assert dora.is_visible("#browser-swap")
        dora.click(f".browser-card[data-ids~='{new}'] .add-card")
        dora.wait_for_selector(f"#deck-ranks .deck-card[data-card='{new}']")
        swapped.append(new)
    dora.wait_for_selector("#deck-stats[data-state=ready][data-cards='36']")
    status = dora.inner_text("#deck-status")
    assert "Complete" in status and "mercenary" in status.lower()
    assert "2" in dora.inner_text("#deck-stats [data-stat=armies]")
    shot(dora, "deck-editor.png")
    dora.click("#deck-save")
    dora.wait_for_selector("#deck-dirty", state="hidden")
    saved = dora.evaluate("async () => (await (await fetch('/api/decks')).json()).decks")
    assert len(saved) == 1 and saved[0]["name"] == "Elf-eared orcs" and saved[0]["armies"] == ["elves", "orcs"]
    deck = saved[0]["cards"]
    assert all(c in deck for c in swapped) and len(deck) == 36
    visit(dora, server + "/decks")
    assert "mercenary" in dora.inner_text("#decks-table").lower()
    shot(dora, "decks.png", full_page=True)

    # a game against the bot that allows custom decks, played with it
    visit(dora, server + "/")
    dora.check("input[name=against][value='bot:random']")
    dora.select_option("select[name=creator_side]", "1")
    dora.check("input[name=custom_decks]")
    dora.select_option("#creator-deck", label="Elf-eared orcs")
    dora.click("#create-game")
    dora.wait_for_url("**/games/*")
    wait_live(dora)
    dora.wait_for_selector("#hand-bottom .hand-card[data-card]")
    hand = dora.eval_on_selector_all("#hand-bottom .hand-card[data-card]", "els => els.map(e => e.dataset.card)")
    assert hand and all(c in deck for c in hand)
    view = low(dora).evaluate("() => window.LoW.live.S.view")
    assert view["players"]["1"]["army"] == "mercenary" and sorted(view["players"]["1"]["hand"]) == sorted(hand)
    assert dora.inner_text("#panel-bottom .tag.army") == "Mercenary"
    shot(dora, "game-custom-deck.png")

    # ivan challenges dora allowing orcs only: her deck does not fit, and the lobby says why
    visit(ivan, server + "/")
    ivan.check("input[name=against][value=player]")
    ivan.fill("#opponent-name", "dora")
    ivan.check("input[name=custom_decks]")
    for army in ("dwarves", "elves", "lizardmen", "templars", "undead"):
        ivan.uncheck(f"input[name=custom_armies][value={army}]")
    ivan.click("#create-game")
    visit(dora, server + "/")
    dora.wait_for_selector("#invitations li:has-text('ivan challenges you')")
    option = dora.locator("#invitations .deck-choice option:has-text('Elf-eared orcs')")
    assert option.is_disabled() and "does not fit" in option.inner_text()
    dora.click("#invitations .deck-why summary")
    assert "army 'elves'" in dora.inner_text("#invitations .deck-why")
    shot(dora, "lobby-deck-choice.png")
    dora.click("#invitations button:has-text('Decline')")
    # allowing orcs and elves, she accepts with her deck
    visit(ivan, server + "/")
    ivan.check("input[name=against][value=player]")
    ivan.fill("#opponent-name", "dora")
    ivan.check("input[name=custom_decks]")
    ivan.click("#create-game")
    visit(dora, server + "/")
    dora.wait_for_selector("#invitations li:has-text('ivan challenges you')")
    dora.select_option("#invitations .deck-choice", label="Elf-eared orcs")
    dora.click("#invitations button:has-text('Accept')")
    dora.wait_for_url("**/games/*")
    wait_live(dora)
    seat = str(live(dora)["game"]["you"])
    view = low(dora).evaluate("() => window.LoW.live.S.view")
    assert view["players"][seat]["army"] == "mercenary"
    assert all(c in deck for c in view["players"][seat]["hand"])
    dora.context.close()
    ivan.context.close()
