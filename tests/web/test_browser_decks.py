"""The deck pages as modules: the editor draws its cards with the card and magnifier modules
alone (not the game page's code), and a refused request shows the server's sentence, on the
editor and on the list (an export of a deck deleted meanwhile, from another tab)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lordsofwar.rules.cards import DECK_SIZE, RANK_COUNTS, RANKS
from tests.web.page_facts import serve_changed_facts
from tests.web.server import chromium_path, running_server
from tests.web.test_browser import sign_up, visit

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (scripts/install-browser)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("decks")) as base:
        yield base


def new_deck(page: Any, name: str) -> int:
    made = page.evaluate(
        """async (name) => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const r = await fetch('/api/decks', {method: 'POST', body: JSON.stringify({name, army: 'elves'}),
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf}});
          return (await r.json()).id;
        }""",
        name,
    )
    return int(made)


def delete_elsewhere(page: Any, deck: int) -> None:
    """The deck deleted as another tab would, behind the page's back."""
    status = page.evaluate(
        """async (id) => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          return (await fetch('/api/decks/' + id, {method: 'DELETE', headers: {'X-CSRF-Token': csrf}})).status;
        }""",
        deck,
    )
    assert status == 200


def test_the_editor_loads_the_card_drawing_not_the_game_page(browser: Any, server: str) -> None:
    page = sign_up(browser, server, "erna")
    deck = new_deck(page, "Modules")
    scripts: list[str] = []
    page.on("request", lambda r: scripts.append(r.url.split("?")[0].removeprefix(server)) if r.resource_type == "script" else None)
    visit(page, f"{server}/decks/{deck}")
    page.wait_for_selector("#deck-stats[data-state=ready][data-cards='36']")
    page.wait_for_selector("#browser-results .browser-card[data-card]")
    # the editor's state, from its module (the page's own instance)
    state = page.evaluate("async () => (await import('/static/js/deck-editor.js')).editor.state()")
    assert state["id"] == deck and state["name"] == "Modules" and len(state["cards"]) == 36 and state["dirty"] is False
    # a card of the deck, selected, magnified from the swap bar
    page.click("#deck-ranks .deck-card .dc-pick >> nth=0")
    page.click("#browser-swap [data-act=magnify]")
    page.wait_for_selector("#magnify:not([hidden]) .magnify-card .card")
    assert "/static/js/deck-editor.js" in scripts and "/static/js/cards.js" in scripts
    assert not [s for s in scripts if s.endswith(("/game.js", "/replay.js", "/mat.js", "/socket.js"))], scripts


def test_a_refused_export_shows_the_servers_sentence(browser: Any, server: str) -> None:
    page = sign_up(browser, server, "fritz")
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the editor
    deck = new_deck(page, "Gone soon")
    visit(page, f"{server}/decks/{deck}")
    page.wait_for_selector("#deck-stats[data-state=ready][data-cards='36']")
    delete_elsewhere(page, deck)
    page.click("#deck-export-text")
    page.wait_for_selector("#deck-message.error")
    message = page.inner_text("#deck-message .msg-text")
    assert message.startswith("Not exported: ") and "deck" in message.lower() and "not defined" not in message, message
    # the list: the row of a deck deleted meanwhile
    other = new_deck(page, "Gone too")
    visit(page, f"{server}/decks")
    page.wait_for_selector(f"#decks-table tr[data-deck='{other}']")
    delete_elsewhere(page, other)
    page.click(f"#decks-table tr[data-deck='{other}'] a.deck-export-json")
    page.wait_for_selector("#decks-message.error")
    message = page.inner_text("#decks-message .msg-text")
    assert message.startswith("Could not export “Gone too”: ") and "not defined" not in message, message
    assert errors == []


def rank_heads(page: Any) -> list[tuple[str, str, str]]:
    """Each rank group of the editor's deck: its rank, its count "4 / 4" and its state."""
    heads = page.eval_on_selector_all(
        "#deck-ranks .rank-group",
        """gs => gs.map(g => [g.dataset.rank, g.querySelector('.rank-head .rc').textContent,
          ['full', 'short', 'over'].find(c => g.classList.contains(c))])""",
    )
    return [tuple(h) for h in heads]


def test_the_editors_quotas_are_the_servers(browser: Any, server: str) -> None:
    """The editor counts each rank against the quotas the page brings from the server (no copy of
    its own): the real ones, then changed ones on their way to the browser."""
    page = sign_up(browser, server, "quinn")
    deck = new_deck(page, "Quotas")  # the elves' standard deck
    url = f"{server}/decks/{deck}"
    visit(page, url)
    page.wait_for_selector("#deck-stats[data-state=ready][data-cards='36']")
    assert rank_heads(page) == [(r, f"{RANK_COUNTS[r]} / {RANK_COUNTS[r]}", "full") for r in RANKS]
    assert page.inner_text("#deck-status").startswith(f"Complete: {DECK_SIZE} of {DECK_SIZE}")

    def one_more_elite(facts: dict[str, Any]) -> None:
        for quota in facts["deck"]["ranks"]:
            quota["count"] += {"elite": 1, "veteran": -1}.get(quota["rank"], 0)

    serve_changed_facts(page, url, one_more_elite)
    visit(page, url)
    page.wait_for_selector("#deck-stats[data-state=ready][data-cards='36']")
    heads = {rank: (count, state) for rank, count, state in rank_heads(page)}
    assert heads["elite"] == (f"{RANK_COUNTS['elite']} / {RANK_COUNTS['elite'] + 1}", "short")
    assert heads["veteran"] == (f"{RANK_COUNTS['veteran']} / {RANK_COUNTS['veteran'] - 1}", "over")
    assert heads["general"] == (f"{RANK_COUNTS['general']} / {RANK_COUNTS['general']}", "full")
    veterans = RANK_COUNTS["veteran"]
    assert page.inner_text("#deck-status") == (
        f"Over: the deck has {veterans} veteran cards (1 over the {veterans - 1} allowed)"
    )
    page.context.close()
