"""The rules guide's content (lordsofwar/learn/guide): every language has every section and every
diagram text with the same placeholders; every diagram's position is a real, settled position;
every claim a diagram makes (the lit squares, the action legal or refused and why, what it
eliminates, the events it causes) is what the rules engine says; and every kind of refusal links
to a section of the guide."""

from __future__ import annotations

import re
import string
from typing import Any

import pytest

from lordsofwar import i18n
from lordsofwar.learn import guide
from lordsofwar.rules import engine, mat, notation
from lordsofwar.rules.cards import CORE, DECK_SIZE, RANK_COUNTS
from lordsofwar.rules.errors import REFUSALS, IllegalActionError
from lordsofwar.rules.state import Position

DIAGRAMS = guide.diagrams()
SECTIONS = guide.sections()


def _placeholders(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def _texts(doc: Any, path: str = "") -> dict[str, str]:
    """Every text of a language file by its path (``sections.goal.body.1``)."""
    if isinstance(doc, str):
        return {path: doc}
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    out: dict[str, str] = {}
    for k, v in items:
        out.update(_texts(v, f"{path}.{k}" if path else str(k)))
    return out


def test_sections_have_unique_anchors_and_existing_diagrams() -> None:
    ids = [s.id for s in SECTIONS]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][a-z0-9-]*", i) for i in ids)
    parts, _ = guide.structure()
    assert {s.part for s in SECTIONS} == set(parts)
    shown = [d for s in SECTIONS for d in s.diagrams]
    assert sorted(shown) == sorted(DIAGRAMS), "every diagram is shown exactly once"


@pytest.mark.parametrize("language", guide.LANGUAGES)
def test_every_language_has_every_text_with_the_same_placeholders(language: str) -> None:
    english = _texts(guide.texts("en"))
    other = _texts(guide.texts(language))
    assert set(other) == set(english), set(other) ^ set(english)
    for key, text in english.items():
        assert _placeholders(other[key]) == _placeholders(text), key
        assert other[key].strip(), key
    t = guide.texts(language)
    assert set(t["sections"]) == {s.id for s in SECTIONS}
    assert set(t["diagrams"]) == set(DIAGRAMS)
    for d in DIAGRAMS:
        assert set(t["diagrams"][d]) == {"caption", "alt"}


@pytest.mark.parametrize("language", guide.LANGUAGES)
def test_placeholders_are_filled_from_the_rules_facts(language: str) -> None:
    with i18n.use(language):
        page = guide.page(language)
    for key, text in _texts(page["parts"]).items():
        assert "{" not in text and "}" not in text, key
    decks = next(s for p in page["parts"] for s in p["sections"] if s["id"] == "deck-building")
    assert str(DECK_SIZE) in decks["body"][0]
    assert all(str(n) in decks["body"][0] for n in RANK_COUNTS.values())


def test_an_unknown_language_reads_the_english() -> None:
    assert guide.page("fr")["language"] == "en"
    assert guide.page("fr")["title"] == guide.texts("en")["title"]


def test_every_refusal_links_to_a_section() -> None:
    assert set(guide.REFUSAL_SECTIONS) == set(REFUSALS)
    anchors = {s.id for s in SECTIONS}
    for kind in REFUSALS:
        assert guide.REFUSAL_SECTIONS[kind] in anchors, kind
        assert guide.rule_link(kind) == f"/learn/rules#{guide.REFUSAL_SECTIONS[kind]}"
    assert guide.rule_link(None) is None


def test_every_refusal_of_the_engine_names_its_kind() -> None:
    """Refusals of random actions in real positions always carry a kind the guide knows."""
    pos = notation.deal([_deck("orcs"), _deck("dwarves")], 7)
    tried = 0
    for step in range(60):
        if pos.result is not None:
            break
        legal = {str(a) for a in pos.legal_actions()}
        squares = [mat.name(s) for s in list(pos.board)[:4]] + ["c3", "e4", "a1"]
        hand = [c for c in pos.hands[pos.decider] if c is not None][:2]
        candidates = [f"recall {s}" for s in squares] + [f"shoot {s} {t}" for s in squares[:2] for t in squares[:3]]
        candidates += [f"deploy {c} {s}" for c in hand for s in squares] + ["draw", "pass"]
        for text in candidates:
            if text in legal:
                continue
            try:
                action = notation.parse_action(text, pos)
            except Exception:
                continue
            with pytest.raises(IllegalActionError) as refused:
                pos.copy().push(action)
            assert refused.value.kind in REFUSALS, text
            tried += 1
        pos.push(sorted(legal)[step % len(legal)])
    assert tried > 100


def _deck(army: str) -> list[str]:
    return CORE.standard_deck(army)


def _arrow_squares(pos: Position, square: str) -> set[str]:
    sq = mat.parse(square, pos.variant.bordered)
    return {mat.name(sq + d) for d, _ in pos.board[sq].attacks if pos.variant.bordered is False or sq + d in mat.ON_MAT}


def _grid_squares(pos: Position, square: str) -> set[str]:
    sq = mat.parse(square, pos.variant.bordered)
    return {mat.name(sq + d) for d in pos.board[sq].targets if sq + d in mat.ON_MAT}


@pytest.mark.parametrize("key", sorted(DIAGRAMS))
def test_diagram_matches_the_engine(key: str) -> None:
    d = DIAGRAMS[key]
    start = guide.position(d["position"])
    # a settled start of a turn: it reads back from its own notation, and no unit has taken more
    # damage than its defence (such a unit would have been eliminated already)
    again = notation.parse_position(notation.position_to_json(start))
    assert notation.position_to_json(again) == notation.position_to_json(start)
    for sq, dmg in engine.damage(start).items():
        assert dmg <= start.board[sq].defence, f"{mat.name(sq)} would already be eliminated"
    played = guide.play(d)
    shown = played.shown
    if "hinted_are" in d:
        what, square = d["hinted_are"].split()
        expected = _arrow_squares(shown, square) if what == "arrows" else _grid_squares(shown, square)
        assert set(d["hinted"]) == expected
    if "targets_of" in d:
        prefix = d["targets_of"] + " "
        legal = {str(a)[len(prefix):] for a in shown.legal_actions() if str(a).startswith(prefix)}
        assert set(d["targets"]) == legal, "the lit squares are exactly the legal ones"
    else:
        assert not d.get("targets")
    if "action" not in d:
        assert played.after is None
        return
    assert (played.after is not None) is d["legal"]
    if not d["legal"]:
        assert played.refusal == d["refusal"]
        assert d["action"] not in {str(a) for a in shown.legal_actions()}
        return
    assert d["action"] in {str(a) for a in shown.legal_actions()}
    eliminated = sorted(e["square"] for e in played.events if e["type"] == "eliminated")
    assert eliminated == sorted(d["eliminated"])
    kinds = {e["type"] for e in played.events}
    assert set(d.get("events", [])) <= kinds


@pytest.mark.parametrize("key", sorted(DIAGRAMS))
def test_drawn_diagram_hides_what_the_player_may_not_know(key: str) -> None:
    item = guide.drawn()[key]
    me = item["you"]
    for view in (item["view"], item.get("after")):
        if view is None:
            continue
        assert "seed" not in view
        for p in ("1", "2"):
            assert isinstance(view["players"][p]["deck"], int), "a deck is a count"
        other = view["players"][str(3 - me)]["hand"]
        assert all(c is None for c in other), "the opponent's hand stays hidden"
    if item.get("legal") is not None:
        assert item["legal"] is DIAGRAMS[key]["legal"]
