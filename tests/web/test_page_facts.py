"""Every page carries the server's facts for its scripts (lordsofwar/web/facts.py, base.html's
``#facts`` block): the built-in bots, the core armies and the deck-building limits, each taken
from its one definition in the package and put in the page's language; the lobby's own choices
are the same definitions."""

from __future__ import annotations

import re

import pytest

from lordsofwar import i18n
from lordsofwar.bots import BOT_LEVELS, BOTS
from lordsofwar.decks import FILE_LIMIT, NAME_LIMIT
from lordsofwar.rules.cards import CLASSES, CORE_ARMIES, DECK_SIZE, RANK_COUNTS, RANKS
from tests.web.conftest import Player
from tests.web.page_facts import facts_of


def test_the_facts_are_the_packages_definitions(alice: Player) -> None:
    facts = facts_of(alice.get("/").text)
    assert facts["bots"] == [
        {"name": b.name, "player_name": b.player_name, "title": b.title, "blurb": b.blurb} for b in BOT_LEVELS
    ]
    assert [b["name"] for b in facts["bots"]] == list(BOTS)
    assert facts["armies"] == [{"name": a, "label": a.capitalize(), "word": a} for a in CORE_ARMIES]
    assert facts["deck"] == {
        "size": DECK_SIZE,
        "ranks": [{"rank": r, "count": RANK_COUNTS[r]} for r in RANKS],
        "classes": list(CLASSES),
        "name_limit": NAME_LIMIT,
        "file_limit": FILE_LIMIT,
    }
    assert sum(RANK_COUNTS.values()) == DECK_SIZE


def test_the_lobby_offers_the_packages_bots_and_armies(alice: Player) -> None:
    page = alice.get("/").text
    assert re.findall(r'name="against" value="bot:([a-z]+)"', page) == list(BOTS)
    for select in ("creator_army", "opponent_army"):
        options = re.search(rf'<select name="{select}">(.*?)</select>', page, re.S)
        assert options is not None
        assert re.findall(r'<option value="([a-z]+)"', options.group(1)) == ["random", *CORE_ARMIES]
    assert re.findall(r'name="custom_armies" value="([a-z]+)"', page) == list(CORE_ARMIES)


@pytest.mark.parametrize("lang", ["de", "pl"])
def test_the_facts_are_in_the_pages_language(alice: Player, lang: str) -> None:
    assert alice.post("/api/language", {"language": lang}).status_code == 200
    facts = facts_of(alice.get("/decks").text)
    words = i18n.translations(lang)
    assert facts["bots"] == [
        {
            "name": b.name,
            "player_name": words.gettext(b.player_name),
            "title": words.gettext(b.title),
            "blurb": words.gettext(b.blurb),
        }
        for b in BOT_LEVELS
    ]
    for bot in facts["bots"]:  # every word translated (a missing translation would come back in English)
        level = next(b for b in BOT_LEVELS if b.name == bot["name"])
        assert bot["player_name"] != level.player_name and bot["blurb"] != level.blurb, bot
    labels = {a["name"]: a["label"] for a in facts["armies"]}
    assert labels == {a: words.gettext(a.capitalize()) for a in CORE_ARMIES}
    assert all(labels[a] != a.capitalize() for a in CORE_ARMIES)
    # inside a sentence, other languages than English use the army's name (lordsofwar/web/words.py)
    assert {a["name"]: a["word"] for a in facts["armies"]} == labels
    assert facts["deck"]["ranks"] == [{"rank": r, "count": RANK_COUNTS[r]} for r in RANKS]
