"""The lessons in a real browser: a signed-out newcomer completes every lesson by doing what the
page says (choosing cards and units of the board and clicking lit squares, the moves from the
lesson data), the board lighting exactly the destinations the server allows at each step; a wrong
try and a refused click show their explanations; the first exercise is played by keyboard; the
progress kept in the browser shows on the hub and joins the account at sign-in.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the lesson screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lordsofwar.learn import lessons as L
from tests.web.server import chromium_path, running_server
from tests.web.test_browser import ARRIVED, SHOTS, visit

pytestmark = pytest.mark.skipif(
    chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("server")
    with running_server(data) as base:
        yield base


class Api:
    """The lesson API as a second client: the legal actions the server allows after the same
    actions (the API is stateless), to compare with what the page lights."""

    def __init__(self, base: str):
        self.http = httpx.Client(base_url=base)
        self.csrf = self.http.get("/api/session").json()["csrf"]

    def legal(self, slug: str, eid: str, actions: list[str]) -> list[str]:
        r = self.http.post(
            f"/api/learn/lessons/{slug}/exercises/{eid}/play",
            json={"actions": actions},
            headers={"X-CSRF-Token": self.csrf},
        )
        assert r.status_code == 200, r.text
        return list(r.json()["legal"])


def lit(page: Any) -> set[str]:
    return set(
        page.eval_on_selector_all("#lesson-board .board-mat .sq.target", "els => els.map(e => e.dataset.square)")
    )


def settle(page: Any) -> None:
    page.wait_for_selector("#lesson:not(.busy) .board:not(.busy)")


def do(page: Any, action: str, legal: list[str]) -> None:
    """Play one action as a player would: choose the card or the unit, check the lit squares, click."""
    parts = action.split()
    verb = parts[0]
    if verb in ("draw", "pass"):
        page.click(f"#lesson-board .board-{verb}")
        return
    if verb == "deploy":
        card, to = parts[1], parts[2]
        page.click(f"#lesson-board .board-hand-own .hand-card[data-card='{card}'] >> nth=0")
        want = {a.split()[2] for a in legal if a.startswith(f"deploy {card} ")}
    else:
        frm = parts[1]
        to = parts[2] if len(parts) > 2 else ""
        kinds = {a.split()[0] for a in legal if a.split()[0] != "deploy" and len(a.split()) > 1 and a.split()[1] == frm}
        if not (verb == "advance" and page.locator(f"#lesson-board [data-square='{frm}'].selected").count()):
            page.click(f"#lesson-board .board-mat [data-square='{frm}']")
        if len(kinds) > 1 or verb == "recall":
            page.click(f"#lesson-board .board-menu [data-menu='{verb}']")
            if verb == "recall":
                return
        want = {a.split()[2] for a in legal if a.startswith(f"{verb} {frm} ")}
    page.wait_for_function(
        "n => document.querySelectorAll('#lesson-board .board-mat .sq.target').length === n", arg=len(want)
    )
    assert lit(page) == want, (action, lit(page), want)
    page.click(f"#lesson-board .board-mat [data-square='{to}']")


def test_a_newcomer_completes_every_lesson(browser: Any, server: str) -> None:
    api = Api(server)
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(20_000)
    visit(page, server + "/learn")
    total = sum(len(les.exercises) for les in L.lessons())
    assert page.inner_text("#lesson-progress").startswith(f"0 of {total}")
    page.click("#part-lessons h2 a")
    page.wait_for_url("**/learn/lessons")
    page.click(".lesson-item >> nth=0 >> a")
    for n, les in enumerate(L.lessons()):
        page.wait_for_url(f"**/learn/lessons/{les.slug}")
        for i, ex in enumerate(les.exercises):
            page.wait_for_selector(f".lesson-step.current[data-exercise='{ex.id}']")
            settle(page)
            assert page.inner_text("#lesson-prompt") == L.text("en", les.slug, ex.id, "prompt")
            # the first exercise by keyboard: a hand card's button, Enter, Enter on the lit square
            if n == 0 and i == 0:
                page.focus("#lesson-board .board-hand-own .card-pick >> nth=0")
                page.keyboard.press("Enter")
                page.wait_for_function("() => document.activeElement.closest('.sq.target') !== null")
                assert lit(page) == {"c3"}
                page.keyboard.press("Enter")
                settle(page)
                do(page, "draw", [])
            else:
                done: list[str] = []
                for action in ex.answer:
                    legal = api.legal(les.slug, ex.id, done)
                    assert action in legal
                    do(page, action, legal)
                    done.append(action)
                    settle(page)
            page.wait_for_selector("#lesson-result.ok")
            assert L.text("en", les.slug, ex.id, "success") in page.inner_text("#lesson-result")
            assert page.locator(f".lesson-step.solved[data-exercise='{ex.id}']").count() == 1
            if les.slug == "combat" and i == 0 and SHOTS:
                page.screenshot(path=str(SHOTS / "lesson-solved-desktop.png"), full_page=True)
            if i + 1 < len(les.exercises):
                page.click("#btn-next")
        assert page.is_visible("#lesson-complete")
        page.click("#next-lesson")
    page.wait_for_url("**/learn/puzzles")
    visit(page, server + "/learn")
    page.wait_for_function("n => document.querySelector('#lesson-progress').dataset.done === String(n)", arg=total)
    if SHOTS:
        page.screenshot(path=str(SHOTS / "learn-hub-desktop.png"), full_page=True)
    # signing up: the progress of this browser joins the account
    visit(page, server + "/signup")
    page.fill("input[name=name]", "newcomer")
    page.fill("input[name=password]", "correct horse battery")
    page.fill("input[name=password2]", "correct horse battery")
    page.click("#signup-submit")
    # Signing up hashes the password (slow on purpose) in a server process that shares the CI
    # machine's two cores with the other test workers: a longer wait than the page's default.
    # The welcome page is known by its flash, not its URL (its script drops the query as soon as
    # it runs); a refused sign-up shows the form's error instead, which the failure then names.
    page.wait_for_function(
        f"() => document.querySelector('#form-error') !== null || ({ARRIVED})('/')", timeout=60_000
    )
    refused = page.locator("#form-error")
    assert not refused.count(), f"the sign-up was refused at {page.url}: {refused.inner_text()}"
    visit(page, server + "/learn/lessons")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.lesson-item')].every(e => e.classList.contains('complete'))"
    )
    assert page.evaluate("() => localStorage.getItem('low.lessons')") is None
    page.close()


def test_wrong_tries_are_explained(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_default_timeout(20_000)
    visit(page, server + "/learn/lessons/combat")
    settle(page)
    if SHOTS:
        page.click("#lesson-board .board-hand-own .hand-card[data-card='orcs:06']")
        page.screenshot(path=str(SHOTS / "lesson-phone.png"), full_page=True)
        page.keyboard.press("Escape")
    # a legal but wrong try: played, then explained, and the exercise can be tried again
    do(page, "deploy orcs:30 d3", Api(server).legal("combat", "together", []))
    page.wait_for_selector("#lesson-result.wrong")
    assert L.text("en", "combat", "together", "wrong.trade") in page.inner_text("#lesson-result")
    assert "eliminated: Goblin Shanker (d3)" in page.inner_text("#lesson-result")
    assert lit(page) == set() and page.is_visible("#btn-retry") and not page.is_visible("#btn-show")
    if SHOTS:
        page.screenshot(path=str(SHOTS / "lesson-wrong-phone.png"), full_page=True)
    page.click("#btn-retry")
    settle(page)
    assert (
        not page.is_visible("#lesson-result")
        and page.locator("#lesson-board .unit[data-card='dwarves:06']").count() == 1
    )
    # a refused click: the card chosen, a square it may not go to; nothing is played
    visit(page, server + "/learn/lessons/engagement")
    settle(page)
    page.click("#lesson-board .board-hand-own .hand-card[data-card='orcs:06']")
    assert "e3" not in lit(page)
    page.click("#lesson-board .board-mat [data-square='e3']")
    page.wait_for_selector("#lesson-result.wrong")
    assert page.inner_text("#lesson-result") == L.text("en", "engagement", "engage", "wrong.must-engage")
    assert page.locator("#lesson-board .unit").count() == 2  # nothing was deployed
    # a unit the rules keep on the mat: clicked when a reinforcement is due, the page says why
    visit(page, server + "/learn/lessons/cavalry")
    settle(page)
    do(page, "deploy orcs:11 c3", Api(server).legal("cavalry", "ride-away", []))
    settle(page)
    assert page.is_visible("#lesson-board .board-draw")
    page.click("#lesson-board .board-mat [data-square='f4']")
    page.wait_for_selector("#lesson-result.wrong")
    assert page.inner_text("#lesson-result") == L.text("en", "cavalry", "ride-away", "wrong.spear-holds")
    assert page.locator("#lesson-board .unit[data-card='orcs:13']").count() == 1
    # "show me" plays the expected answer
    visit(page, server + "/learn/lessons/engagement")
    settle(page)
    page.click("#btn-show")
    page.wait_for_selector("#lesson-result.ok")
    assert page.locator("#lesson-board .unit[data-card='orcs:30']").count() == 1
    page.close()
