"""Every page fits a 390 × 844 phone: no sideways scrolling, and no element wider than the screen
or reaching past its right edge (unless a box that scrolls or clips it sits inside the screen).

The pages are visited signed out and signed in, with something on each to show: a rated game
under way and a finished one, a deck, an open and a finished tournament, a token, an email
settings form, and the error pages (404 of a page and of a game, a refused form).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lordsofwar.learn import puzzles
from tests.web.server import running_server
from tests.web.test_browser import Api, finished_tournament, rated_game, sign_in, visit
from tests.web.test_browser_moderation import grant_quickly

PHONE = {"width": 390, "height": 844}

OVERFLOW = """() => {
  const W = document.documentElement.clientWidth;
  const clips = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX !== 'visible' && s.overflowX !== 'clip' || s.overflow === 'hidden') {
        const r = p.getBoundingClientRect();
        if (r.right <= W + 0.5 && r.left >= -0.5) return true;
      }
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.classList.length ? '.' + [...el.classList].join('.') : '');
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden' || s.position === 'fixed') continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    if ((r.right > W + 0.5 || r.width > W + 0.5) && !clips(el)) {
      wide.push(name(el) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
  }
  return {scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 8)};
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with one of everything to show; the addresses of the pages."""
    data = tmp_path_factory.mktemp("phone")
    # mail is "available" (the settings page shows its address field); nothing is sent
    with running_server(data, LOW_SMTP_URL="smtp://127.0.0.1:9") as base:
        # names as long as the sign-up allows: the longest a page has to fit
        alice, bob = Api(base, "alexandria_of_the_north"), Api(base, "bartholomew-the-bold")
        playing = rated_game(alice, bob, creator_army="lizardmen", opponent_army="undead")
        over = rated_game(alice, bob, creator_army="orcs", opponent_army="dwarves")
        for p in (alice, bob):  # each makes a first turn: the game is rated, not aborted
            for step in ("deploy", "draw"):
                state = p.http.get(f"/api/games/{over}").json()
                action = next(a for a in state["legal"] if a.startswith("deploy ")) if step == "deploy" else "draw"
                r = p.post(f"/api/games/{over}/actions", {"action": action, "version": state["game"]["version"]})
                assert r.status_code == 200, r.text
        assert bob.post(f"/api/games/{over}/resign").status_code == 200
        assert alice.http.get("/api/leaderboard?provisional=true").json()["total"] == 2  # shown on the leaderboard
        deck = alice.post("/api/decks", {"name": "A long deck name for a small screen", "army": "undead"})
        assert deck.status_code == 201, deck.text
        greta = Api(base, "greta", "de")  # her account speaks German (the language she signed up in)
        german_deck = greta.post("/api/decks", {"name": "Orks", "army": "orcs"})
        assert german_deck.status_code == 201, german_deck.text
        tokens = alice.post("/api/tokens", {"description": "my bot on a small screen", "scopes": ["bot:play"]})
        assert tokens.status_code == 201, tokens.text
        opts = {"mode": "live", "rated": True}
        upcoming = alice.post("/api/tournaments", {"name": "Upcoming phone cup", "kind": "swiss", "rounds": 3, "options": opts})
        assert upcoming.status_code == 201, upcoming.text
        tid = finished_tournament(alice, bob, "Finished phone cup")
        reported = alice.post("/api/reports", {"reason": "spam", "text": "adverts in the chat", "player": bob.name})
        assert reported.status_code == 201, reported.text
        grant_quickly(data, alice.name)  # the moderators' page, with that report on its queue
        assert alice.post(f"/api/players/{bob.name}/follow").status_code == 200  # a friend with a long name
        assert alice.post("/api/players/greta/block").status_code == 200  # and a block
        yield {
            "base": base,
            "public": [
                "/", f"/games/{playing}", f"/games/{over}", f"/games/{over}/replay", "/tournaments",
                f"/tournaments/{tid}", f"/tournaments/{upcoming.json()['tournament']}", "/leaderboard",
                "/leaderboard?pool=turn", f"/players/{alice.name}", "/players/general%20bot", "/signin", "/signup",
                "/no-such-page", "/games/999999", "/players/nobody-at-all", "/privacy", "/forgot", "/reset?token=altered",
                "/learn/cards", "/learn/cards?army=elves&class=ranged", "/learn/rules",
                "/learn/puzzles", f"/learn/puzzles/{puzzles.load()[0].id}", "/learn/puzzles/daily", "/learn/puzzles/streak",
                "/learn", "/learn/lessons", "/learn/lessons/combat", "/learn/lessons/berserkers",
            ],
            "german_deck": f"/decks/{german_deck.json()['id']}",
            "signed_in": [
                "/", f"/games/{playing}", f"/games/{over}", f"/games/{over}/replay", "/decks",
                f"/decks/{deck.json()['id']}", "/tournaments", f"/tournaments/{tid}",
                f"/tournaments/{upcoming.json()['tournament']}", "/leaderboard", f"/players/{alice.name}",
                "/privacy", "/settings/close",
                "/settings", "/tokens", "/decks/999999", f"/learn/mistakes/{over}", "/learn/puzzles", "/learn/puzzles/streak",
                "/friends", f"/players/{bob.name}",
                "/moderation",
                "/admin/workers",
            ],
        }


def check(page: Any, url: str) -> str | None:
    visit(page, url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(400)  # the scripts draw the mat, the lists and the deck editor
    found = page.evaluate(OVERFLOW)
    if found["scroll"] <= PHONE["width"] and not found["wide"]:
        return None
    return f"{url}: {found['scroll']} px wide; {found['wide']}"


def test_every_page_fits_a_phone_signed_out(browser: Any, site: dict[str, Any]) -> None:
    page = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True).new_page()
    problems = [p for p in (check(page, site["base"] + url) for url in site["public"]) if p]
    assert not problems, "\n".join(problems)


def test_every_page_fits_a_phone_signed_in(browser: Any, site: dict[str, Any]) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    sign_in(page, site["base"], "alexandria_of_the_north")
    problems = [p for p in (check(page, site["base"] + url) for url in site["signed_in"]) if p]
    # a refused form keeps its page: the settings form with a bad address
    visit(page, site["base"] + "/settings")
    page.fill("#settings-email", "a@b")
    page.evaluate("() => document.querySelector('#settings-email').type = 'text'")
    page.click("#settings-submit")
    page.wait_for_selector("#form-error")
    found = page.evaluate(OVERFLOW)
    if found["scroll"] > PHONE["width"] or found["wide"]:
        problems.append(f"refused settings form: {found}")
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_page_that_is_too_wide(browser: Any, site: dict[str, Any]) -> None:
    """The measure itself: an element wider than the phone is reported, one inside a scrolling
    box is not."""
    page = browser.new_context(viewport=PHONE).new_page()
    visit(page, site["base"] + "/signin")
    assert check(page, site["base"] + "/signin") is None
    page.evaluate("() => { const d = document.createElement('div'); d.id = 'wide'; d.style.width = '500px';"
                  " d.style.height = '10px'; document.querySelector('main').append(d); }")
    found = page.evaluate(OVERFLOW)
    assert found["scroll"] > 390 and any(w.startswith("div#wide") for w in found["wide"])
    page.evaluate("() => { const s = document.createElement('div'); s.style.overflowX = 'auto';"
                  " document.querySelector('main').append(s); s.append(document.getElementById('wide')); }")
    found = page.evaluate(OVERFLOW)
    assert found["scroll"] <= 390 and found["wide"] == []


INLINE = """() => [...document.querySelectorAll('#mail-settings input[type=radio]')].map((input) => {
  const label = input.closest('label');
  const range = document.createRange();
  range.selectNodeContents(label);
  range.setStartAfter(input);
  const words = range.getClientRects()[0];
  const box = input.getBoundingClientRect();
  return {beside: words.left >= box.right - 1, level: Math.abs((words.top + words.bottom) / 2 - (box.top + box.bottom) / 2) < 8};
})"""


@pytest.mark.parametrize("width", [390, 1366])
def test_the_settings_radio_buttons_sit_beside_their_words(browser: Any, site: dict[str, Any], width: int) -> None:
    page = browser.new_context(viewport={"width": width, "height": 844}).new_page()
    sign_in(page, site["base"], "alexandria_of_the_north")
    visit(page, site["base"] + "/settings")
    found = page.evaluate(INLINE)
    assert len(found) == 3 and all(f == {"beside": True, "level": True} for f in found), found


FITS = """() => [...document.querySelectorAll('.browser-card')].slice(0, 40).map((tile) => {
  const button = tile.querySelector('.add-card');
  const b = button.getBoundingClientRect();
  const t = tile.getBoundingClientRect();
  return {text: button.textContent, whole: button.scrollWidth <= button.clientWidth,
          inside: b.left >= t.left - 0.5 && b.right <= t.right + 0.5};
})"""


@pytest.mark.parametrize("width", [390, 1366])
def test_the_deck_editors_add_button_fits_its_card_in_german(browser: Any, site: dict[str, Any], width: int) -> None:
    page = browser.new_context(viewport={"width": width, "height": 844}, locale="de-DE").new_page()
    page.set_default_timeout(30_000)
    sign_in(page, site["base"], "greta")
    visit(page, site["base"] + site["german_deck"])
    page.wait_for_selector(".browser-card .add-card")
    found = page.evaluate(FITS)
    assert found and {f["text"] for f in found} <= {"+ Hinzufügen", "⇄ Tauschen"}, found[:3]
    assert all(f["inside"] and f["whole"] for f in found), [f for f in found if not (f["inside"] and f["whole"])][:3]
