"""The card gallery and learning from your mistakes in a real browser (one server for both).

The gallery: every card drawn by the site's renderer, the filters (army, rank, class, text)
showing exactly the cards the card data says, the filter state kept in the address (a link
reopens the same view), and a card magnified by mouse and by keyboard.

Mistakes: a finished game with a stored analysis (crafted: no search runs), the replay's
"Practise your mistakes" link for the player who made them, the exercise on the board with the
played action marked, a wrong try (the played action) said to be wrong with the analysis'
preferred action then marked, and the preferred action accepted; a 390 px phone; the content
security policy.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the screenshots."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from lordsofwar.bots.analysis import decisions_of, squares_of
from lordsofwar.rules import notation
from lordsofwar.web.models import GameAnalysis
from tests.web.server import chromium_path, running_server
from tests.web.test_browser import SHOTS, Api, sign_in, visit
from tests.web.test_mistakes import unflagged

pytestmark = pytest.mark.skipif(
    chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)"
)


DATA: dict[str, Path] = {}  # the server's data folder by its base URL


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("server")
    with running_server(data) as base:
        DATA[base] = data
        yield base


def shown(page: Any) -> list[str]:
    """The cards the gallery shows, in order (each with its face drawn)."""
    return list(
        page.eval_on_selector_all(
            "#gallery > li:not([hidden])",
            "els => els.filter(e => e.offsetParent !== null && e.querySelector('.gc-face .card[data-card]')).map(e => e.dataset.card)",
        )
    )


def test_the_filters_show_exactly_the_cards_of_the_data(browser: Any, server: str) -> None:
    cards = httpx.get(server + "/api/cards").json()
    every = [c["id"] for c in cards]
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    visit(page, server + "/learn/cards")
    page.wait_for_selector("body.gallery-drawn")
    assert shown(page) == every and len(every) == 216
    # each face is the renderer's card, with one arrow per attack direction of the data
    arrows = page.eval_on_selector_all(
        ".gc-face .card", "els => els.map(e => [e.dataset.card, e.querySelectorAll('.arrow').length])"
    )
    assert dict(arrows) == {c["id"]: len(c["attacks"]) for c in cards}
    if SHOTS:
        page.screenshot(path=str(SHOTS / "gallery-desktop.png"))

    def expect(keep: Any, query: str) -> None:
        want = [c["id"] for c in cards if keep(c)]
        page.wait_for_function(
            "n => document.querySelector('#gallery-count').dataset.shown === String(n)", arg=len(want)
        )
        assert shown(page) == want
        assert page.evaluate("() => location.search") == query
        assert f"{len(want)} card" in page.inner_text("#gallery-count")

    page.select_option("#f-army", "elves")
    expect(lambda c: c["army"] == "elves", "?army=elves")
    page.select_option("#f-rank", "elite")
    expect(lambda c: c["army"] == "elves" and c["rank"] == "elite", "?army=elves&rank=elite")
    page.select_option("#f-army", "")
    page.select_option("#f-class", "ranged")
    expect(lambda c: c["rank"] == "elite" and c["class"] == "ranged", "?rank=elite&class=ranged")
    # the link reopens the same view, the form filled in
    visit(page, server + "/learn/cards?rank=elite&class=ranged")
    page.wait_for_selector("body.gallery-drawn")
    assert shown(page) == [c["id"] for c in cards if c["rank"] == "elite" and c["class"] == "ranged"]
    assert page.input_value("#f-rank") == "elite" and page.input_value("#f-class") == "ranged"
    # the text search, as typed
    page.click("#f-clear")
    expect(lambda c: True, "")
    page.fill("#f-q", "warrior")
    expect(lambda c: "warrior" in c["name"].lower(), "?q=warrior")
    page.fill("#f-q", "zzz")
    expect(lambda c: False, "?q=zzz")
    assert page.is_visible("#gallery-empty")
    page.close()


def test_a_card_magnified_by_mouse_and_by_keyboard(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    visit(page, server + "/learn/cards?army=dwarves&rank=elite&class=ranged")
    page.wait_for_selector("body.gallery-drawn")
    first = shown(page)[0]
    name = httpx.get(server + "/api/cards").json()
    name = next(c["name"] for c in name if c["id"] == first)
    page.click(f"#gallery li[data-card='{first}'] .gc-face")
    page.wait_for_selector("#magnify:not([hidden])")
    assert name in page.inner_text("#magnify") and "Ranged weapon" in page.inner_text("#magnify")
    page.keyboard.press("Escape")
    page.wait_for_selector("#magnify", state="hidden")
    # keyboard only: the face is a button in the tab order
    page.focus(f"#gallery li[data-card='{first}'] .gc-face")
    page.keyboard.press("Enter")
    page.wait_for_selector("#magnify:not([hidden])")
    page.keyboard.press("Escape")
    page.wait_for_selector("#magnify", state="hidden")
    page.close()


def test_the_gallery_on_a_phone(browser: Any, server: str) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    visit(page, server + "/learn/cards?army=orcs")
    page.wait_for_selector("body.gallery-drawn")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    box = page.eval_on_selector("#gallery li:not([hidden]) .gc-face .card", "e => e.getBoundingClientRect().width")
    assert box >= 180  # large on a phone too
    if SHOTS:
        page.screenshot(path=str(SHOTS / "gallery-phone.png"))
    context.close()


# --- learning from your mistakes ---------------------------------------------------------------


@pytest.fixture(scope="module")
def site(server: str) -> Iterator[dict[str, Any]]:
    """A server, and a finished game between mia (player 1) and ned whose stored analysis marks
    mia's first decision a mistake (preferred: another deployment) and one of ned's."""
    base, data = server, DATA[server]
    mia, ned = Api(base, "mia"), Api(base, "ned")
    r = mia.post(
        "/api/invitations",
        {"opponent": "ned", "options": {"creator_side": "1", "creator_army": "orcs", "opponent_army": "elves"}},
    )
    r = ned.post(f"/api/invitations/{r.json()['invitation']}/accept")
    game = int(r.json()["game"])
    rng = random.Random(11)
    for _ in range(14):
        for p in (mia, ned):
            s = p.http.get(f"/api/games/{game}").json()
            if s["legal"]:
                assert (
                    p.post(
                        f"/api/games/{game}/actions",
                        {"action": rng.choice(s["legal"]), "version": s["game"]["version"]},
                    ).status_code
                    == 200
                )
    assert ned.post(f"/api/games/{game}/resign").status_code == 200
    record = notation.parse_record(mia.http.get(f"/api/games/{game}/record").json())
    decisions = decisions_of(record)
    first = next(d for d in decisions if d["player"] == 1 and not d["forced"])
    theirs = next(d for d in decisions if d["player"] == 2 and not d["forced"])
    view = notation.parse_position(first["view"])
    best = sorted(str(a) for a in view.legal_actions() if str(a) != first["played"])[0]
    entries = []
    for d in decisions:
        e = unflagged(d)
        if d is first:
            e.update(
                best=best,
                squares=squares_of(notation.parse_action(best, view)),
                win_best=0.64,
                win_played=0.45,
                drop=0.19,
                verdict="mistake",
            )
        if d is theirs:
            e.update(verdict="blunder", drop=0.3)
        entries.append(e)
    result = {
        "level": "general",
        "decisions": entries,
        "graph": [0.5] * (len(entries) + 1),
        "mistakes": [first["n"], theirs["n"]],
    }
    engine = create_engine(f"sqlite:///{data / 'low.sqlite3'}")
    with Session(engine) as db:
        db.add(
            GameAnalysis(
                game_id=game, status="done", done=len(entries), total=len(entries), level="general", result=result
            )
        )
        db.commit()
    engine.dispose()
    yield {"base": base, "game": game, "first": first, "best": best}


def choose(page: Any, action: str) -> None:
    """Pick ``action`` on the board by mouse, as a player would (a deployment or a draw here)."""
    p = action.split()
    board = "#mx-board"
    if p[0] in ("draw", "pass"):
        page.click(f"{board} .board-{p[0]}")
        return
    assert p[0] == "deploy", action
    page.click(f"{board} .board-hand-own .hand-card[data-card='{p[1]}']")
    page.click(f"{board} .board-mat [data-square='{p[2]}'].target")


def marked(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("#mx-board .board-mat .sq.hinted", "els => els.map(e => e.dataset.square)"))


def test_a_wrong_try_is_told_and_the_preferred_action_accepted(browser: Any, site: dict[str, Any]) -> None:
    base, game, first, best = site["base"], site["game"], site["first"], site["best"]
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    sign_in(page, base, "mia")
    # the game-over banner and the replay's analysis both link to the exercises
    visit(page, f"{base}/games/{game}")
    page.wait_for_selector("#link-mistakes")
    assert page.get_attribute("#link-mistakes", "href") == f"/learn/mistakes/{game}"
    visit(page, f"{base}/games/{game}/replay")
    page.wait_for_selector("#analysis-practise:visible")
    page.click("#analysis-practise a")
    page.wait_for_selector("#mistakes.mx-ready")
    assert page.locator(".mx-step").count() == 1  # ned's blunder is not mia's exercise
    assert page.get_attribute("#mx-prompt", "data-played") == first["played"]
    assert "mistake" in page.inner_text("#mx-prompt")
    played = first["played"].split()
    assert marked(page) == {played[2]}
    # the board offers exactly the legal deployments: the cards of mia's hand then
    hand = set(
        page.eval_on_selector_all(
            "#mx-board .board-hand-own .hand-card.deployable", "els => els.map(e => e.dataset.card)"
        )
    )
    legal = [str(a) for a in notation.parse_position(first["view"]).legal_actions()]
    assert hand == {a.split()[1] for a in legal if a.startswith("deploy")}
    # the mistake again: wrong, and the preferred action is marked
    choose(page, first["played"])
    page.wait_for_selector("#mx-result[data-verdict='played']")
    assert "what you played" in page.inner_text("#mx-result")
    assert page.get_attribute("#mx-prompt", "data-best") == best
    assert marked(page) == {best.split()[2]}
    assert page.is_visible("#mx-retry")
    if SHOTS:
        page.screenshot(path=str(SHOTS / "mistakes-exercise.png"), full_page=True)
    # again, the preferred action: right
    page.click("#mx-retry")
    choose(page, best)
    page.wait_for_selector("#mx-result[data-verdict='best']")
    assert page.inner_text("#mx-result").startswith("Right")
    assert page.locator(".mx-step.solved").count() == 1
    page.close()


def test_the_exercise_on_a_phone(browser: Any, site: dict[str, Any]) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    sign_in(page, site["base"], "mia")
    visit(page, f"{site['base']}/learn/mistakes/{site['game']}")
    page.wait_for_selector("#mistakes.mx-ready")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    if SHOTS:
        page.screenshot(path=str(SHOTS / "mistakes-phone.png"), full_page=True)
    context.close()


def test_the_exercise_works_under_the_content_security_policy(browser: Any, site: dict[str, Any]) -> None:
    """The page with a real exercise (the shared policy test's site has no analysed game)."""
    from tests.web.test_browser_csp import Watched

    context = browser.new_context()
    sign_in(context.new_page(), site["base"], "mia")
    w = Watched(context)
    problems = w.visit(f"{site['base']}/learn/mistakes/{site['game']}")
    assert w.page.is_visible("#mistakes.mx-ready")
    problems += w.visit(f"{site['base']}/games/{site['game']}/replay")
    assert problems == [], "\n".join(problems)
    context.close()
