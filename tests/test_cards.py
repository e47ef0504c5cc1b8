"""The core card data: every fact against the reference table, and the deck rule (8.4)."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from lordsofwar.rules.cards import CORE, RANK_COUNTS, RANKS, Card, CardSet, parse_card_file
from lordsofwar.rules.errors import UnknownCardError

SHARED = Path(os.environ.get("LOW_SHARED", Path(__file__).resolve().parents[2] / "shared"))
REFERENCE_FILE = SHARED / "cards" / "reference-cards.json"
NO_REFERENCE = f"reference card table not found at {REFERENCE_FILE} (set LOW_SHARED to the shared folder)"

CORE_ARMIES = ("orcs", "dwarves", "elves", "lizardmen", "templars", "undead")
FACT_KEYS = {"id", "army", "name", "rank", "class", "defence", "attacks", "ranged", "moves"}


def _load_reference() -> list[dict[str, Any]]:
    if not REFERENCE_FILE.is_file():
        return []
    return json.loads(REFERENCE_FILE.read_text(encoding="utf-8"))


REFERENCE = _load_reference()
REFERENCE_PARAMS = (
    [pytest.param(entry, id=entry["id"]) for entry in REFERENCE]
    if REFERENCE
    else [pytest.param(None, id="no-reference", marks=pytest.mark.skip(reason=NO_REFERENCE))]
)


def _needs_reference() -> list[dict[str, Any]]:
    if not REFERENCE:
        pytest.skip(NO_REFERENCE)
    return REFERENCE


def _normalised_attacks(attacks: dict[str, int] | None) -> dict[str, int]:
    """notation.md 1: a missing or 0 value means no arrow."""
    return {d: v for d, v in (attacks or {}).items() if v}


def _normalised_ranged(ranged: dict[str, Any] | None) -> tuple[int, list[tuple[int, int]]] | None:
    if ranged is None:
        return None
    return ranged["damage"], sorted((int(r), int(f)) for r, f in ranged["targets"])


# --- against the reference table (needs ../shared) ---------------------------------------------


def test_reference_and_core_hold_the_same_card_ids() -> None:
    reference = _needs_reference()
    ref_ids = [entry["id"] for entry in reference]
    assert len(ref_ids) == len(set(ref_ids))
    assert set(ref_ids) == set(CORE)


@pytest.mark.parametrize("ref", REFERENCE_PARAMS)
def test_card_facts_match_reference(ref: dict[str, Any]) -> None:
    card = CORE.card(ref["id"])
    facts = card.facts()
    assert set(facts) == FACT_KEYS
    assert facts["id"] == ref["id"]
    assert facts["army"] == ref["army"]
    assert facts["name"] == ref["name"]
    assert facts["rank"] == ref["rank"]
    assert facts["class"] == ref["class"]
    assert facts["defence"] == ref["defence"]
    assert _normalised_attacks(facts["attacks"]) == _normalised_attacks(ref.get("attacks"))
    assert _normalised_ranged(facts["ranged"]) == _normalised_ranged(ref.get("ranged"))
    assert sorted(facts["moves"]) == sorted(ref.get("moves") or [])
    # The Card object itself agrees with its facts.
    assert card.cls == ref["class"]
    assert dict(card.attacks) == _normalised_attacks(ref.get("attacks"))
    assert (card.ranged is None) == (ref.get("ranged") is None)


def test_facts_are_json_in_the_notation_shape() -> None:
    for card in CORE.values():
        facts = card.facts()
        assert json.loads(json.dumps(facts)) == facts
        assert all(v > 0 for v in facts["attacks"].values()), card.id
        if facts["ranged"] is not None:
            assert all(len(t) == 2 for t in facts["ranged"]["targets"])


def test_the_one_erratum_keeps_the_reference_rank_and_carries_a_note() -> None:
    reference = _needs_reference()
    ref_errata = {entry["id"]: entry for entry in reference if entry.get("erratum")}
    core_errata = {card.id: card for card in CORE.values() if card.erratum}
    assert set(core_errata) == set(ref_errata)
    assert len(core_errata) == 1
    for card_id, card in core_errata.items():
        assert card.rank == ref_errata[card_id]["rank"]
        assert isinstance(card.erratum, str) and card.erratum.strip()


def test_erratum_card_is_the_veteran_orc_ravager() -> None:
    card = CORE.card("orcs:32")
    assert card.erratum
    assert "elite" in card.erratum
    assert card.rank == "veteran"
    assert card.name == "Orc Ravager"


# --- the core set on its own ---------------------------------------------------------------------


def test_core_holds_216_cards() -> None:
    assert len(CORE) == 216
    assert len(set(CORE)) == 216


def test_core_armies_are_the_six_of_the_notation() -> None:
    assert list(CORE.armies) == list(CORE_ARMIES)


@pytest.mark.parametrize("army", CORE_ARMIES)
def test_each_core_army_holds_36_cards(army: str) -> None:
    cards = CORE.army(army)
    assert len(cards) == 36
    assert all(c.army == army for c in cards)


@pytest.mark.parametrize("army", CORE_ARMIES)
def test_rank_counts_per_army_equal_the_deck_rule(army: str) -> None:
    counts = Counter(c.rank for c in CORE.army(army))
    assert counts == Counter(RANK_COUNTS)
    assert [counts[r] for r in RANKS] == [1, 5, 4, 4, 6, 8, 8]


@pytest.mark.parametrize("army", CORE_ARMIES)
def test_six_command_units_per_army(army: str) -> None:
    assert sum(1 for c in CORE.army(army) if c.is_command) == 6


@pytest.mark.parametrize("army", CORE_ARMIES)
def test_core_standard_deck_validates(army: str) -> None:
    deck = CORE.standard_deck(army)
    assert len(deck) == 36
    assert CORE.validate_deck(deck) == deck
    assert CORE.validate_deck(deck, allowed_armies=[army], custom=False) == deck
    assert CORE.standard_army_of(deck) == army


@pytest.mark.parametrize("army", CORE_ARMIES)
def test_card_ids_are_army_and_two_digit_number(army: str) -> None:
    ids = [c.id for c in CORE.army(army)]
    for card_id in ids:
        assert re.fullmatch(rf"{army}:[0-9]{{2}}", card_id), card_id
    assert sorted(ids) == [f"{army}:{n:02d}" for n in range(1, 37)]


def test_no_core_card_has_movement_arrows() -> None:
    """clarifications 7.1: none of the 216 core cards has movement arrows."""
    assert all(c.moves == () for c in CORE.values())


def test_support_units_are_spear_and_ranged() -> None:
    for card in CORE.values():
        assert card.is_support == (card.cls in ("spear", "ranged"))
        assert (card.ranged is not None) == (card.cls == "ranged"), card.id


def test_unknown_card_is_refused_by_name() -> None:
    with pytest.raises(UnknownCardError, match="orcs:99"):
        CORE.card("orcs:99")
    with pytest.raises(UnknownCardError, match="goblins"):
        CORE.army("goblins")
    assert issubclass(UnknownCardError, ValueError)


# --- the package data --------------------------------------------------------------------------


def _data_files() -> dict[str, str]:
    base = resources.files("lordsofwar.rules").joinpath("data")
    return {p.name: p.read_text(encoding="utf-8") for p in base.iterdir() if p.name.endswith(".json")}


def test_package_data_files_load_from_the_installed_package() -> None:
    files = _data_files()
    assert set(files) == {f"{a}.json" for a in CORE_ARMIES}
    cards: list[Card] = []
    for name, text in files.items():
        loaded = parse_card_file(text, name)
        assert len(loaded) == 36
        assert {c.army for c in loaded} == {name.removesuffix(".json")}
        cards.extend(loaded)
    rebuilt = CardSet(cards)
    assert set(rebuilt) == set(CORE)
    assert all(rebuilt[c].facts() == CORE[c].facts() for c in CORE)
    assert all(rebuilt[c].erratum == CORE[c].erratum for c in CORE)


def test_package_data_files_declare_the_card_format() -> None:
    for name, text in _data_files().items():
        doc = json.loads(text)
        assert doc["format"] == "lordsofwar-cards", name
        assert doc["version"] == 1, name
