"""The deck editor in German and Polish: counts in the statistics take the plural form of their
number (Polish has three: "1 Dowódca", "2 Dowódcy", "5 Dowódców"), an empty deck is "pusta", the
attack compass names its directions in the page's language (letters on screen, whole words for a
screen reader), no statistics label breaks inside a word, and the search box's hint and the sort
box are not cut off, on a desktop screen (1366×900) and a phone (390×844).

LOW_SCREENSHOTS=DIR keeps a picture of each editor (docs/screenshots/i18n-LANG-deck-editor.png is
the German and Polish desktop one)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.server import chromium_path, running_server
from tests.web.test_browser import sign_up, visit
from tests.web.test_browser_i18n import choose_language

pytestmark = pytest.mark.skipif(
    chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)"
)

SHOTS = Path(os.environ["LOW_SCREENSHOTS"]) if os.environ.get("LOW_SCREENSHOTS") else None
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("deck-languages")) as base:
        yield base


@pytest.fixture(scope="module")
def account(browser: Any, server: str) -> Iterator[dict[str, Any]]:
    """One player with three decks: the elves' standard deck, one with two command units and
    three ranged units and one command unit, and an empty one; the page's cookies."""
    page = sign_up(browser, server, "lena")
    decks = page.evaluate(
        """async () => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const post = async (path, body, method = 'POST') => (await fetch(path, {method, body: JSON.stringify(body),
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf}})).json();
          const cards = await (await fetch('/api/cards')).json();
          const list = Array.isArray(cards) ? cards : (cards.cards || Object.values(cards));
          const of = (rank, cls) => list.filter((c) => c.rank === rank && (!cls || c.class === cls)).map((c) => c.id);
          const standard = await post('/api/decks', {name: 'Elves', army: 'elves'});
          const empty = await post('/api/decks', {name: 'Nothing'});
          const few = await post('/api/decks', {name: 'Few'});
          // two command units and three ranged units (none of them a command unit)
          const ranged = list.filter((c) => c.rank === 'recruit' && c.class === 'ranged').map((c) => c.id).slice(0, 3);
          const sent = await post('/api/decks/' + few.id, {name: 'Few', cards: [...of('command').slice(0, 2), ...ranged], version: few.version}, 'PUT');
          return {standard: standard.id, empty: empty.id, few: few.id, few_cards: sent.cards ? sent.cards.length : -1};
        }"""
    )
    assert decks["few_cards"] == 5, decks
    yield {"decks": decks, "cookies": [c for c in page.context.cookies() if c["name"] != "low_lang"]}
    page.context.close()


def editor(browser: Any, server: str, account: dict[str, Any], lang: str, deck: int, size: str = "desktop") -> Any:
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale={"de": "de-DE", "pl": "pl-PL", "en": "en-GB"}[lang]
    )
    context.add_cookies(account["cookies"])
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    visit(page, f"{server}/decks/{deck}")
    if page.evaluate("() => document.documentElement.lang") != lang:
        choose_language(page, lang)  # the player's own setting from now on
        visit(page, f"{server}/decks/{deck}")  # without the menu's "language changed"
    assert page.evaluate("() => document.documentElement.lang") == lang
    page.wait_for_selector("#deck-stats[data-state=ready] .st-figs")
    return page


def figure(page: Any, stat: str) -> str:
    """A figure's number and its label (not the change since the last save)."""
    fig = f"#deck-stats .st-fig[data-stat='{stat}']"
    return " ".join(f"{page.text_content(fig + ' .v')} {page.text_content(fig + ' > span')}".split())


EXPECTED = {
    # deck: (command figure, ranged figure)
    "pl": {"standard": ("6 Dowódców", "ranged"), "few": ("2 Dowódcy", "3 jednostki artyleryjskie")},
    "de": {"standard": ("6 Kommandanten", "ranged"), "few": ("2 Kommandanten", "3 Fernkämpfer")},
}


@pytest.mark.parametrize("lang", ["pl", "de"])
def test_counts_take_the_plural_form_of_their_number(
    browser: Any, server: str, account: dict[str, Any], lang: str
) -> None:
    decks = account["decks"]
    page = editor(browser, server, account, lang, decks["few"])
    command, ranged = EXPECTED[lang]["few"]
    assert figure(page, "command") == command
    assert figure(page, "ranged") == ranged
    assert figure(page, "cards") == {"pl": "5 z 36 kart", "de": "5 von 36 Karten"}[lang]
    # one ranged unit taken out: two are "2 jednostki", one is "1 jednostka"
    state = page.evaluate("async () => (await import('/static/js/deck-editor.js')).editor.state()")
    page.evaluate(
        """() => { for (const b of document.querySelectorAll('#deck-ranks .rank-group[data-rank=recruit] .remove-card')) { b.click(); break; } }"""
    )
    page.wait_for_selector("#deck-stats[data-state=ready][data-cards='4']")
    assert figure(page, "ranged") == {"pl": "2 jednostki artyleryjskie", "de": "2 Fernkämpfer"}[lang]
    page.evaluate(
        """() => { for (const b of document.querySelectorAll('#deck-ranks .rank-group[data-rank=recruit] .remove-card')) { b.click(); break; } }"""
    )
    page.wait_for_selector("#deck-stats[data-state=ready][data-cards='3']")
    assert figure(page, "ranged") == {"pl": "1 jednostka artyleryjska", "de": "1 Fernkämpfer"}[lang]
    assert len(state["cards"]) == 5
    # the standard deck: the general and 5 command cards, and its ranged units
    page = editor(browser, server, account, lang, decks["standard"])
    assert figure(page, "command") == EXPECTED[lang]["standard"][0]
    n = int(page.inner_text("#deck-stats .st-fig[data-stat='ranged'] .v"))
    words = {
        "pl": {1: "jednostka artyleryjska", 2: "jednostki artyleryjskie", 5: "jednostek artyleryjskich"},
        "de": {1: "Fernkämpfer", 2: "Fernkämpfer", 5: "Fernkämpfer"},
    }[lang]
    form = 1 if n == 1 else 2 if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else 5
    assert figure(page, "ranged") == f"{n} {words[form]}"
    assert page.errors == []


def test_an_empty_deck_is_pusta_in_polish(browser: Any, server: str, account: dict[str, Any]) -> None:
    page = editor(browser, server, account, "pl", account["decks"]["empty"])
    assert (page.text_content("#deck-stats [data-stat=armies] h3 .kind") or "").strip() == "pusta"
    page = editor(browser, server, account, "de", account["decks"]["empty"])
    assert (page.text_content("#deck-stats [data-stat=armies] h3 .kind") or "").strip() == "leer"


def test_an_empty_draw_pile_is_pusta_in_polish(browser: Any, server: str, account: dict[str, Any]) -> None:
    """The game's deck counter lists the cards left of a deck: none left is the deck's "empty"."""
    page = editor(browser, server, account, "pl", account["decks"]["standard"])
    said = page.evaluate(
        """async () => {
          const { deckCount } = await import('/static/js/panels.js');
          let pop = document.getElementById('hover-pop');
          if (!pop) { pop = document.createElement('div'); pop.id = 'hover-pop'; document.body.append(pop); }
          const el = deckCount(1, { cards: [], includes_hand: false }, { count: 0, own: true });
          document.body.append(el);
          el.dispatchEvent(new Event('focus'));
          return pop.querySelector('.hp-none').textContent;
        }"""
    )
    assert said == "pusta"


COMPASS = {
    "de": (
        ["V", "VR", "R", "HR", "H", "HL", "L", "VL"],
        ["vorne", "vorne rechts", "rechts", "hinten rechts", "hinten", "hinten links", "links", "vorne links"],
    ),
    "pl": (
        ["Prz", "PP", "Pr", "PT", "T", "LT", "L", "LP"],
        ["przód", "prawy przód", "prawo", "prawy tył", "tył", "lewy tył", "lewo", "lewy przód"],
    ),
    "en": (
        ["F", "FR", "R", "BR", "B", "BL", "L", "FL"],
        ["front", "front-right", "right", "back-right", "back", "back-left", "left", "front-left"],
    ),
}


@pytest.mark.parametrize("lang", ["de", "pl", "en"])
def test_the_attack_compass_speaks_the_pages_language(
    browser: Any, server: str, account: dict[str, Any], lang: str
) -> None:
    page = editor(browser, server, account, lang, account["decks"]["standard"])
    letters, words = COMPASS[lang]
    assert (
        page.eval_on_selector_all("#deck-stats .st-compass svg .cp-lbl", "els => els.map((e) => e.textContent)")
        == letters
    )
    label = page.get_attribute("#deck-stats .st-compass svg", "aria-label") or ""
    values = page.eval_on_selector_all("#deck-stats .st-compass svg .cp-val", "els => els.map((e) => e.textContent)")
    head = {"de": "Angriff nach Richtung: ", "pl": "Atak według kierunku: ", "en": "Attack by direction: "}[lang]
    assert label == head + ", ".join(f"{w} {v}" for w, v in zip(words, values, strict=True))
    # the tooltip names the front's letter
    title = page.get_attribute("#deck-stats .st-compass", "title") or ""
    assert f"({letters[0]})" in title, title


# each statistics label: a line of it that ends where no word ends is a word broken
BROKEN = """() => {
  const out = [];
  for (const el of document.querySelectorAll('#deck-stats .st-fig > span, #deck-stats .st-bar .lbl, #deck-stats h3')) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const text = t.textContent;
      let top = null;
      for (let i = 0; i < text.length; i++) {
        const r = document.createRange();
        r.setStart(t, i); r.setEnd(t, i + 1);
        const box = r.getClientRects()[0];
        if (!box) continue;
        if (top !== null && box.top > top + 2) {
          // a new line starts at i: the line before must end at a space or a hyphen (or the
          // new one start after a space)
          const before = text.slice(0, i).replace(/\\s+$/, '');
          const last = before[before.length - 1];
          if (/[\\p{L}\\p{N}]/u.test(last) && /[\\p{L}\\p{N}]/u.test(text[i]) && !/\\s/.test(text[i - 1])) out.push(el.textContent.trim() + ' @ ' + i);
        }
        top = box.top;
      }
    }
  }
  return out;
}"""

CUT = """() => {
  const out = [];
  const search = document.getElementById('card-search');
  // the hint, typed into the box (where the box scrolls a text too long for it)
  search.value = search.placeholder;
  if (search.scrollWidth > search.clientWidth) out.push(`search hint: scrollWidth ${search.scrollWidth} > ${search.clientWidth}`);
  search.value = '';
  const c = document.createElement('canvas').getContext('2d');
  for (const sel of document.querySelectorAll('.cb-filters select')) {
    const s = getComputedStyle(sel);
    c.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    const text = sel.options[sel.selectedIndex].text;
    // the text, its padding and the arrow (about 1.2em) within the box
    const w = c.measureText(text).width + parseFloat(s.paddingLeft) + parseFloat(s.paddingRight) + 1.2 * parseFloat(s.fontSize);
    if (w > sel.clientWidth + 0.5) out.push(`${sel.id}: ${w.toFixed(0)} > ${sel.clientWidth}`);
    if (sel.scrollWidth > sel.clientWidth) out.push(`${sel.id}: scrollWidth ${sel.scrollWidth} > ${sel.clientWidth}`);
  }
  return out;
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("lang", ["de", "pl"])
def test_no_word_broken_and_nothing_cut_off(
    browser: Any, server: str, account: dict[str, Any], lang: str, size: str
) -> None:
    page = editor(browser, server, account, lang, account["decks"]["standard"], size)
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.wait_for_timeout(300)
        page.screenshot(path=str(SHOTS / f"i18n-{lang}-deck-editor{'' if size == 'desktop' else '-phone'}.png"))
        page.locator("#deck-stats").screenshot(path=str(SHOTS / f"i18n-{lang}-deck-stats-{size}.png"))
        page.locator("#card-browser .cb-head").screenshot(path=str(SHOTS / f"i18n-{lang}-deck-search-{size}.png"))
    assert page.evaluate(BROKEN) == []
    # the kind of deck beside "Armies" leaves the heading whole (beside it or under it)
    overlap = page.evaluate(
        """() => {
          const h3 = document.querySelector('#deck-stats [data-stat=armies] h3');
          const r = document.createRange();
          r.selectNodeContents(h3.firstChild);
          const text = r.getBoundingClientRect(), kind = h3.querySelector('.kind').getBoundingClientRect();
          return kind.left < text.right - 0.5 && kind.top < text.bottom - 0.5;
        }"""
    )
    assert not overlap
    # and no label runs out of its tile
    assert (
        page.eval_on_selector_all(
            "#deck-stats .st-fig > span, #deck-stats .st-bar .lbl",
            "els => els.filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > e.closest('.st-fig, .st-bars').getBoundingClientRect().right + 1).map((e) => e.textContent)",
        )
        == []
    )
    # every sort choice fits its box, as does the search hint
    for value in page.eval_on_selector_all("#browser-sort option", "els => els.map((e) => e.value)"):
        page.select_option("#browser-sort", value)
        assert page.evaluate(CUT) == [], value
    # no tile runs out of the page
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SIZES[size][0]
