"""The rules guide in a real browser: every diagram drawn by the game's own mat and cards, each
showing exactly the units, the marked squares, the action, the card and the eliminations of its
data (which tests/test_guide_diagrams.py checks against the engine); the contents list used by
keyboard; and, on a game page, a refused action's message linking to the guide's section.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the guide's screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lordsofwar.learn import guide
from tests.web.hooks import low
from tests.web.server import chromium_path, running_server
from tests.web.test_browser import SHOTS, Api, sign_in, visit

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)")

DRAWN = "() => { const b = [...document.querySelectorAll('.guide-boards')]; return b.length > 0 && b.every((e) => e.dataset.drawn); }"

SHOWN = """(fig) => {
  const squares = (stage, sel) => [...fig.querySelectorAll(`.guide-mat[data-stage="${stage}"] .sq${sel}`)].map((e) => e.dataset.square).sort();
  const units = (stage) => [...fig.querySelectorAll(`.guide-mat[data-stage="${stage}"] .sq .unit`)]
    .map((e) => [e.closest('.sq').dataset.square, e.dataset.card, Number(e.dataset.owner)]);
  return {
    before: units('before'), after: units('after'),
    hinted: squares('before', '.hinted'), targets: squares('before', '.target'),
    action: squares('before', '.guide-action'), refused: squares('before', '.guide-refused'),
    lost: squares('after', '.guide-lost'),
    card: [...fig.querySelectorAll('.guide-card .card')].map((e) => e.dataset.card),
    alt: fig.querySelector('.guide-boards').getAttribute('aria-label'),
  };
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("server")
    with running_server(data) as base:
        yield base


def _board(view: dict[str, Any]) -> list[list[Any]]:
    return sorted([u["square"], u["card"], u["owner"]] for u in view["board"])


def test_every_diagram_shows_its_data(browser: Any, server: str) -> None:
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    visit(page, server + guide.PATH)
    page.wait_for_function(DRAWN)
    data = guide.drawn()
    texts = guide.texts("en")["diagrams"]
    figures = page.query_selector_all("figure.guide-diagram")
    assert sorted(f.get_attribute("data-diagram") for f in figures) == sorted(data)
    for fig in figures:
        key = fig.get_attribute("data-diagram")
        d = data[key]
        seen = fig.evaluate(SHOWN)
        assert sorted(seen["before"]) == _board(d["view"]), key
        assert seen["hinted"] == sorted(d["hinted"]), key
        assert seen["targets"] == sorted(d["targets"]), key
        assert seen["alt"] == texts[key]["alt"], key
        if "action" not in d:
            assert seen["action"] == seen["refused"] == seen["card"] == seen["after"] == [], key
            continue
        assert (seen["action"] if d["legal"] else seen["refused"]) == sorted(d["squares"]), key
        assert (seen["refused"] if d["legal"] else seen["action"]) == [], key
        assert seen["card"] == ([d["card"]] if "card" in d else []), key
        if d["legal"]:
            assert sorted(seen["after"]) == _board(d["after"]), key
            occupied = {u["square"] for u in d["after"]["board"]}
            assert seen["lost"] == sorted(g["square"] for g in d["ghosts"] if g["square"] not in occupied), key
        else:
            assert seen["after"] == [], key
    if SHOTS:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "guide-contents-desktop.png"))
        page.evaluate("() => document.getElementById('combat').scrollIntoView()")
        page.screenshot(path=str(SHOTS / "guide-desktop.png"))
    # the contents by keyboard: a link of the list, Enter, and the section is in view
    page.focus('.guide-toc a[href="#ranged-attacks"]')
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash === '#ranged-attacks'")
    top = page.evaluate("() => document.getElementById('ranged-attacks').getBoundingClientRect().top")
    assert 0 <= top < 100
    page.close()


def test_the_guide_fits_a_phone_in_polish(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="pl-PL", extra_http_headers={"Accept-Language": "pl"})
    page = context.new_page()
    page.set_default_timeout(30_000)
    visit(page, server + guide.PATH + "#berserkers")
    page.wait_for_function(DRAWN)
    assert page.evaluate("() => document.documentElement.lang") == "pl"
    assert page.inner_text("#berserkers h3").startswith(guide.texts("pl")["sections"]["berserkers"]["title"])
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    widths = page.eval_on_selector_all(".guide-mat", "els => els.map((e) => e.getBoundingClientRect().right)")
    assert widths and max(widths) <= 390
    if SHOTS:
        page.evaluate("() => document.getElementById('berserkers').scrollIntoView()")
        page.screenshot(path=str(SHOTS / "guide-phone-pl.png"))
    context.close()


def test_a_refused_action_links_to_the_rule(browser: Any, server: str) -> None:
    ann, ben = Api(server, "ann"), Api(server, "ben")
    r = ann.post("/api/invitations", {"opponent": "ben", "options": {"creator_side": "1", "creator_army": "orcs"}})
    game = ben.post(f"/api/invitations/{r.json()['invitation']}/accept").json()["game"]
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    sign_in(page, server, "ann")
    visit(page, f"{server}/games/{game}")
    low(page).wait_for_function("() => window.LoW.live.S.game !== null && window.LoW.live.S.legal.length > 0")
    # turn 1 deploys only on c3: a deployment elsewhere (as a stale page or another client might
    # send) is refused by the server, and the message links to the section on the opening
    send = """() => {
      const S = window.LoW.live.S;
      const card = S.legal[0].split(' ')[1];
      return window.LoW.live.send({type: 'action', action: `deploy ${card} d3`, version: S.game.version});
    }"""
    for _ in range(100):  # once the game's socket is open
        if page.evaluate(send):
            break
        page.wait_for_timeout(100)
    link = page.wait_for_selector("#toasts .toast.error a.toast-rule")
    assert link.get_attribute("href") == "/learn/rules#opening"
    assert "c3" in page.inner_text("#toasts .toast.error")
    if SHOTS:
        page.wait_for_timeout(400)  # the message's fade-in
        page.screenshot(path=str(SHOTS / "guide-refusal-link.png"))
    with page.context.expect_page() as opened:
        link.click()
    rules = opened.value
    rules.wait_for_load_state()
    assert rules.url.endswith("/learn/rules#opening")
    assert rules.locator("#opening h3").is_visible()
    rules.close()
    page.close()
