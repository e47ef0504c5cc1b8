"""The card gallery in a real browser: every card drawn by the site's renderer, the filters
(army, rank, class, text) showing exactly the cards the card data says, the filter state kept
in the address (a link reopens the same view), and a card magnified by mouse and by keyboard.

Set LOW_SCREENSHOT_DIR (e.g. docs/screenshots) to keep the gallery's screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.server import chromium_path, running_server
from tests.web.test_browser import SHOTS, visit

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("server")
    with running_server(data) as base:
        yield base


def shown(page: Any) -> list[str]:
    """The cards the gallery shows, in order (each with its face drawn)."""
    return list(page.eval_on_selector_all(
        "#gallery > li:not([hidden])",
        "els => els.filter(e => e.offsetParent !== null && e.querySelector('.gc-face .card[data-card]')).map(e => e.dataset.card)",
    ))


def test_the_filters_show_exactly_the_cards_of_the_data(browser: Any, server: str) -> None:
    cards = httpx.get(server + "/api/cards").json()
    every = [c["id"] for c in cards]
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    visit(page, server + "/learn/cards")
    page.wait_for_selector("body.gallery-drawn")
    assert shown(page) == every and len(every) == 216
    # each face is the renderer's card, with one arrow per attack direction of the data
    arrows = page.eval_on_selector_all(".gc-face .card", "els => els.map(e => [e.dataset.card, e.querySelectorAll('.arrow').length])")
    assert dict(arrows) == {c["id"]: len(c["attacks"]) for c in cards}
    if SHOTS:
        page.screenshot(path=str(SHOTS / "gallery-desktop.png"))

    def expect(keep: Any, query: str) -> None:
        want = [c["id"] for c in cards if keep(c)]
        page.wait_for_function("n => document.querySelector('#gallery-count').dataset.shown === String(n)", arg=len(want))
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
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    visit(page, server + "/learn/cards?army=orcs")
    page.wait_for_selector("body.gallery-drawn")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    box = page.eval_on_selector("#gallery li:not([hidden]) .gc-face .card", "e => e.getBoundingClientRect().width")
    assert box >= 180  # large on a phone too
    if SHOTS:
        page.screenshot(path=str(SHOTS / "gallery-phone.png"))
    context.close()
