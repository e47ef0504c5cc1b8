"""The server's facts that the browser's scripts need, in the page's language: the built-in bots,
the armies and the deck-building limits. Every page carries them as a JSON data block
(``<script type="application/json" id="facts">`` in base.html; the content security policy runs
no inline script, and a data block is not one), read by js/facts.js. The scripts keep no copy:
each fact has its one definition in the Python package (docs/web.md, "Facts for the scripts")."""

from __future__ import annotations

from typing import Any

from lordsofwar import decks, i18n
from lordsofwar.bots import BOT_LEVELS
from lordsofwar.i18n import _
from lordsofwar.rules import cards
from lordsofwar.web.words import army_word


def page_facts() -> dict[str, Any]:
    """The facts as the page's scripts read them (their shape: ``Facts`` in js/facts.js)."""
    return {
        "bots": [
            {"name": b.name, "player_name": _(b.player_name), "title": _(b.title), "blurb": _(b.blurb)}
            for b in BOT_LEVELS
        ],
        "armies": [{"name": a, "label": i18n.army_name(a), "word": army_word(a)} for a in cards.CORE_ARMIES],
        "deck": {
            "size": cards.DECK_SIZE,
            "ranks": [{"rank": r, "count": cards.RANK_COUNTS[r]} for r in cards.RANKS],
            "classes": list(cards.CLASSES),
            "name_limit": decks.NAME_LIMIT,
            "file_limit": decks.FILE_LIMIT,
        },
    }


def rank_counts_text() -> str:
    """Each rank's quota in a deck, as a list in the page's language: "General 1, Command 5, ..."."""
    return ", ".join(f"{i18n.rank_name(r)} {cards.RANK_COUNTS[r]}" for r in cards.RANKS)
