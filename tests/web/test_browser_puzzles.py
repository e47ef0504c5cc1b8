"""Puzzles in a real browser: the board lights exactly the legal actions the server sent, a puzzle
solved wrong then right signed out (kept in the browser, nothing rated) and signed in (the
first try rated, shown on the page; the second try by keyboard), and streak mode.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the puzzle page (desktop and phone) and
the streak page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lordsofwar.learn import puzzles
from lordsofwar.learn.puzzles import Puzzle
from lordsofwar.web.puzzles import service
from tests.web.server import chromium_path, running_server
from tests.web.test_browser import SHOTS, Api, visit

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("server")
    with running_server(data) as base:
        yield base


def parts(action: str) -> list[str]:
    return action.split(" ")


def simple(action: str) -> bool:
    """An action the test can pick with two clicks: a deployment, a move, a shot or an advance."""
    return parts(action)[0] in ("deploy", "move", "shoot", "advance")


def two_puzzles() -> tuple[Puzzle, Puzzle]:
    """Two shipped puzzles whose solution and some other action are simple to pick."""
    found = [p for p in puzzles.load() if simple(p.solution) and any(simple(a) and a != p.solution for a in legal_of(p))]
    assert len(found) >= 2, "the shipped puzzles hold too few to test on"
    return found[0], found[1]


def legal_of(p: Puzzle) -> list[str]:
    return sorted(str(a) for a in p.position().legal_actions())


def wrong_of(p: Puzzle) -> str:
    return next(a for a in legal_of(p) if simple(a) and a != p.solution)


def squares(page: Any, cls: str) -> set[str]:
    return set(page.eval_on_selector_all(f"#puzzle-board .board-mat .sq.{cls}", "els => els.map(e => e.dataset.square)"))


def choose(page: Any, action: str) -> None:
    """Pick ``action`` on the board by mouse, as a player would."""
    p = parts(action)
    board = "#puzzle-board"
    if p[0] in ("draw", "pass"):
        page.click(f"{board} .board-{p[0]}")
        return
    if p[0] == "deploy":
        page.click(f"{board} .board-hand-own .hand-card[data-card='{p[1]}']")
    else:
        page.click(f"{board} .board-mat [data-square='{p[1]}']")
        item = page.locator(f"{board} .board-menu:not([hidden]) [data-menu='{p[0]}']")
        if item.count():
            item.click()
        if p[0] == "recall":
            return
    page.click(f"{board} .board-mat [data-square='{p[-1]}'].target")


def choose_by_keyboard(page: Any, action: str) -> None:
    """Pick ``action`` with Enter on the board's buttons (a hand card's, then a square's)."""
    p = parts(action)
    board = "#puzzle-board"
    if p[0] == "deploy":
        page.focus(f"{board} .board-hand-own .hand-card[data-card='{p[1]}'] .card-pick")
    else:
        page.focus(f"{board} .board-mat [data-square='{p[1]}'] > .sq-key")
    page.keyboard.press("Enter")
    item = page.locator(f"{board} .board-menu:not([hidden]) [data-menu='{p[0]}']")
    if item.count():
        item.focus()
        page.keyboard.press("Enter")
    page.focus(f"{board} .board-mat [data-square='{p[-1]}'].target > .sq-key")
    page.keyboard.press("Enter")


def open_puzzle(page: Any, server: str, pid: str) -> None:
    visit(page, f"{server}/learn/puzzles/{pid}")
    page.wait_for_selector("#puzzle-page[data-state='solving']")


def lights_exactly_the_legal_actions(page: Any, legal: list[str]) -> None:
    """The units with a gold ring are those of the server's moves, shots, advances and recalls;
    each deployable card lights exactly its legal squares."""
    froms = {parts(a)[1] for a in legal if parts(a)[0] in ("move", "shoot", "advance", "recall")}
    assert squares(page, "source") == froms
    deploys: dict[str, set[str]] = {}
    for a in legal:
        if parts(a)[0] == "deploy":
            deploys.setdefault(parts(a)[1], set()).add(parts(a)[2])
    lit = set(page.eval_on_selector_all("#puzzle-board .board-hand-own .hand-card.deployable", "els => els.map(e => e.dataset.card)"))
    assert lit == set(deploys)
    for card, where in deploys.items():
        page.click(f"#puzzle-board .board-hand-own .hand-card[data-card='{card}']")
        assert squares(page, "target") == where, card
    page.keyboard.press("Escape")


def test_solve_wrong_then_right_signed_out(browser: Any, server: str) -> None:
    first, _second = two_puzzles()
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    open_puzzle(page, server, first.id)
    shown = page.evaluate("() => JSON.parse(document.getElementById('puzzle-data').textContent).puzzle.legal")
    assert shown == legal_of(first)  # what the server sent is the engine's list
    lights_exactly_the_legal_actions(page, shown)
    assert "solution" not in page.content().split('id="puzzle-data"')[1].split("</script>")[0]
    if SHOTS:
        page.screenshot(path=str(SHOTS / "puzzle-desktop.png"))
    choose(page, wrong_of(first))
    page.wait_for_selector("#puzzle-page[data-state='wrong']")
    assert page.get_attribute("#verdict", "aria-live") == "assertive"
    assert "Not this one" in page.inner_text("#verdict")
    assert "Not rated: sign in" in page.inner_text("#rating-line")
    assert page.is_visible("#try-again") and page.is_visible("#next-button") and page.is_visible("#solution-line")
    assert not page.is_visible("#streak-restart") and not page.is_visible("#puzzle-board .board-draw")
    assert page.evaluate("() => JSON.parse(localStorage.getItem('low.puzzles'))") == {first.id: False}
    page.click("#try-again")
    page.wait_for_selector("#puzzle-page[data-state='solving']")
    choose(page, first.solution)
    page.wait_for_selector("#puzzle-page[data-state='right']")
    assert "Right!" in page.inner_text("#verdict")
    assert not page.is_visible("#try-again") and page.is_visible("#next-button")
    assert page.evaluate("() => JSON.parse(localStorage.getItem('low.puzzles'))") == {first.id: True}
    # the start page shows this browser's progress, and the next puzzle is another one
    easiest_first = sorted(puzzles.load(), key=lambda p: (p.rating, p.id))  # the list's order
    at = easiest_first.index(first) // service.PAGE + 1
    visit(page, server + f"/learn/puzzles?page={at}")
    page.wait_for_function("() => document.getElementById('guest-progress').textContent !== ''")
    assert "tried 1 puzzle" in page.inner_text("#guest-progress")
    assert page.inner_text(f"#puzzle-list tr[data-puzzle='{first.id}'] .puzzle-status") == "solved"
    page.wait_for_function(f"() => !document.getElementById('next-puzzle').href.endsWith('/{first.id}')")
    if SHOTS:
        page.screenshot(path=str(SHOTS / "puzzles-list.png"))
    context.close()


def test_solve_right_and_wrong_signed_in_rates_the_first_try(browser: Any, server: str) -> None:
    first, second = two_puzzles()
    api = Api(server, "solver")
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_cookies([{"name": c.name, "value": c.value or "", "url": server} for c in api.http.cookies.jar])
    page = context.new_page()
    page.set_default_timeout(30_000)
    open_puzzle(page, server, first.id)
    choose(page, first.solution)
    page.wait_for_selector("#puzzle-page[data-state='right']")
    mine = api.http.get("/api/learn/puzzles").json()["you"]
    assert mine["tries"] == 1 and mine["solved"] == 1 and mine["rating"] > 1500
    assert f"Your puzzle rating: {mine['rating']} (+{mine['rating'] - 1500})" in page.inner_text("#rating-line")
    open_puzzle(page, server, second.id)
    choose(page, wrong_of(second))
    page.wait_for_selector("#puzzle-page[data-state='wrong']")
    after = api.http.get("/api/learn/puzzles").json()["you"]
    assert after["tries"] == 2 and after["solved"] == 1 and after["rating"] < mine["rating"]
    assert f"Your puzzle rating: {after['rating']} (−{mine['rating'] - after['rating']})" in page.inner_text("#rating-line")
    assert page.evaluate("() => document.activeElement.id") == "try-again"  # the keyboard is taken on
    page.keyboard.press("Enter")
    page.wait_for_selector("#puzzle-page[data-state='solving']")
    choose_by_keyboard(page, second.solution)
    page.wait_for_selector("#puzzle-page[data-state='right']")
    assert page.evaluate("() => document.activeElement.id") == "next-button"
    assert "only your first try" in page.inner_text("#rating-line")
    assert api.http.get("/api/learn/puzzles").json()["you"] == after | {"solved": 1}  # no change
    assert page.evaluate("() => localStorage.getItem('low.puzzles')") is None  # kept on the server
    if SHOTS:
        phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        small = phone.new_page()
        open_puzzle(small, server, first.id)
        small.screenshot(path=str(SHOTS / "puzzle-phone.png"), full_page=True)
        phone.close()
    context.close()


def test_streak_mode_signed_out(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    visit(page, server + "/learn/puzzles/streak")
    page.wait_for_selector("#puzzle-page[data-state='solving']")
    assert page.inner_text("#streak-count") == "0"
    assert not any(page.is_visible(b) for b in ("#try-again", "#next-button", "#streak-restart"))
    ratings = []
    for step in range(2):
        pid = page.get_attribute("#puzzle-page", "data-puzzle")
        puzzle = puzzles.by_id(str(pid))
        assert puzzle is not None
        ratings.append(puzzle.rating)
        choose(page, puzzle.solution)
        page.wait_for_selector("#puzzle-page[data-state='right']")
        assert page.inner_text("#streak-count") == str(step + 1)
        if SHOTS and step == 1:
            page.screenshot(path=str(SHOTS / "puzzle-streak.png"), full_page=True)
        page.click("#next-button")
        page.wait_for_function(f"() => document.getElementById('puzzle-page').dataset.puzzle !== '{pid}'")
        page.wait_for_selector("#puzzle-page[data-state='solving']")
    assert ratings == sorted(ratings)  # rising difficulty
    run = page.evaluate("() => JSON.parse(localStorage.getItem('low.puzzleStreak'))")
    assert run["step"] == 2 and run["best"] == 2
    pid = str(page.get_attribute("#puzzle-page", "data-puzzle"))
    puzzle = puzzles.by_id(pid)
    assert puzzle is not None
    miss = next(a for a in legal_of(puzzle) if a != puzzle.solution)
    choose(page, miss)
    page.wait_for_selector("#puzzle-page[data-state='wrong']")
    assert "The streak ends here" in page.inner_text("#verdict")
    assert page.inner_text("#streak-count") == "0" and page.inner_text("#streak-best") == "2"
    page.click("#streak-restart")
    page.wait_for_selector("#puzzle-page[data-state='solving']")
    context.close()
