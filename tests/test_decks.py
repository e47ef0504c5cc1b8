"""Deck validation (clarifications 8.4): size, rank counts, allowed armies, custom decks."""

from __future__ import annotations

import random

import pytest

from lordsofwar.rules.cards import CORE, RANKS
from lordsofwar.rules.errors import DeckError, LordsOfWarError, UnknownCardError
from lordsofwar.rules.notation import deal

ARMIES = ("orcs", "dwarves", "elves", "lizardmen", "templars", "undead")


def of_rank(army: str, rank: str) -> list[str]:
    return [c.id for c in CORE.army(army) if c.rank == rank]


def swap(deck: list[str], old: str, new: str) -> list[str]:
    out = list(deck)
    out[out.index(old)] = new
    return out


@pytest.mark.parametrize("army", ARMIES)
def test_standard_deck_is_valid(army: str) -> None:
    deck = CORE.standard_deck(army)
    assert CORE.validate_deck(deck) == deck


def test_validate_deck_accepts_any_iterable_and_order() -> None:
    deck = CORE.standard_deck("elves")
    shuffled = list(deck)
    random.Random(5).shuffle(shuffled)
    assert CORE.validate_deck(iter(shuffled)) == shuffled
    assert CORE.validate_deck(tuple(shuffled), custom=False) == shuffled


@pytest.mark.parametrize("size", [35, 37, 0])
def test_wrong_deck_size_is_refused_with_the_count(size: int) -> None:
    deck = CORE.standard_deck("orcs")
    deck = deck[:size] if size <= 36 else deck + of_rank("orcs", "recruit")[: size - 36]
    with pytest.raises(DeckError) as err:
        CORE.validate_deck(deck)
    assert str(size) in str(err.value)
    assert "36" in str(err.value)


def test_seven_recruits_and_nine_regulars_names_both_ranks() -> None:
    deck = swap(CORE.standard_deck("orcs"), of_rank("orcs", "recruit")[0], of_rank("orcs", "regular")[0])
    with pytest.raises(DeckError) as err:
        CORE.validate_deck(deck)
    message = str(err.value)
    assert "regular" in message and "recruit" in message
    assert "over" in message and "under" in message
    assert "8.4" in message
    # "over" belongs to the regulars, "under" to the recruits
    parts = message.split(";")
    assert len(parts) == 2
    regular_part = next(p for p in parts if "regular" in p)
    recruit_part = next(p for p in parts if "recruit" in p)
    assert "9" in regular_part and "over" in regular_part
    assert "7" in recruit_part and "under" in recruit_part


@pytest.mark.parametrize("rank", RANKS)
def test_every_rank_count_is_checked(rank: str) -> None:
    """Swap one card of ``rank`` for a card of another rank: both ranks are named."""
    deck = CORE.standard_deck("dwarves")
    other = "recruit" if rank != "recruit" else "regular"
    bad = swap(deck, of_rank("dwarves", rank)[0], of_rank("dwarves", other)[0])
    with pytest.raises(DeckError) as err:
        CORE.validate_deck(bad)
    assert rank in str(err.value) and other in str(err.value)


def test_mercenary_deck_of_same_rank_swaps_is_accepted() -> None:
    deck = CORE.standard_deck("orcs")
    for rank, army in (("elite", "elves"), ("recruit", "undead"), ("command", "dwarves"), ("general", "templars")):
        for old, new in zip(of_rank("orcs", rank)[:2], of_rank(army, rank), strict=False):
            deck = swap(deck, old, new)
    assert {CORE[c].army for c in deck} == {"orcs", "elves", "undead", "dwarves", "templars"}
    assert CORE.validate_deck(deck) == deck
    assert CORE.validate_deck(deck, allowed_armies=["orcs", "elves", "undead", "dwarves", "templars"]) == deck
    assert CORE.standard_army_of(deck) is None


def test_random_same_rank_swaps_always_validate() -> None:
    rng = random.Random(8_4)
    by_rank = {r: [c for c in CORE if CORE[c].rank == r] for r in RANKS}
    for _ in range(50):
        deck = CORE.standard_deck(rng.choice(ARMIES))
        for _ in range(rng.randint(1, 36)):
            i = rng.randrange(36)
            deck[i] = rng.choice(by_rank[CORE[deck[i]].rank])
        assert CORE.validate_deck(deck) == deck


def test_copies_of_one_card_are_not_limited() -> None:
    deck = CORE.standard_deck("lizardmen")
    recruits = of_rank("lizardmen", "recruit")
    for r in recruits[1:]:
        deck = swap(deck, r, recruits[0])
    assert deck.count(recruits[0]) == 8
    assert CORE.validate_deck(deck) == deck


def test_allowed_armies_refuses_a_card_from_another_army() -> None:
    elf = of_rank("elves", "elite")[0]
    deck = swap(CORE.standard_deck("orcs"), of_rank("orcs", "elite")[0], elf)
    with pytest.raises(DeckError) as err:
        CORE.validate_deck(deck, allowed_armies=["orcs", "dwarves"])
    assert elf in str(err.value)
    assert "elves" in str(err.value)
    assert CORE.validate_deck(deck, allowed_armies=["orcs", "elves"]) == deck


def test_allowed_armies_applies_to_standard_decks_too() -> None:
    with pytest.raises(DeckError, match="undead"):
        CORE.validate_deck(CORE.standard_deck("undead"), allowed_armies=["orcs"])


def test_custom_false_refuses_a_custom_deck() -> None:
    deck = swap(CORE.standard_deck("orcs"), of_rank("orcs", "veteran")[0], of_rank("orcs", "veteran")[1])
    assert CORE.validate_deck(deck) == deck  # a legal custom deck (copies are not limited)
    with pytest.raises(DeckError) as err:
        CORE.validate_deck(deck, custom=False)
    assert "custom" in str(err.value) or "standard" in str(err.value)


def test_custom_false_accepts_every_standard_deck() -> None:
    for army in ARMIES:
        deck = CORE.standard_deck(army)
        assert CORE.validate_deck(list(reversed(deck)), custom=False) == list(reversed(deck))


def test_unknown_card_is_refused_by_id() -> None:
    deck = swap(CORE.standard_deck("orcs"), "orcs:09", "orcs:99")
    with pytest.raises(LordsOfWarError) as err:
        CORE.validate_deck(deck)
    assert isinstance(err.value, (UnknownCardError, DeckError))
    assert "orcs:99" in str(err.value)


def test_two_generals_are_refused() -> None:
    general = of_rank("orcs", "general")[0]
    deck = swap(CORE.standard_deck("orcs"), of_rank("orcs", "recruit")[0], general)
    assert deck.count(general) == 2
    with pytest.raises(DeckError) as err:
        CORE.validate_deck(deck)
    assert "general" in str(err.value) and "over" in str(err.value)


def test_two_generals_of_different_armies_are_refused() -> None:
    deck = swap(CORE.standard_deck("orcs"), of_rank("orcs", "command")[0], of_rank("elves", "general")[0])
    with pytest.raises(DeckError, match="general"):
        CORE.validate_deck(deck)


def test_deal_refuses_a_deck_without_exactly_one_general() -> None:
    general = of_rank("orcs", "general")[0]
    deck = swap(CORE.standard_deck("orcs"), of_rank("orcs", "recruit")[0], general)
    with pytest.raises(DeckError, match="general"):
        deal([deck, CORE.standard_deck("elves")], 1)


def test_deal_puts_the_general_and_five_cards_in_hand() -> None:
    """1.4: the deck is shuffled without its general; the top 5 plus the general form the hand."""
    decks = [CORE.standard_deck("orcs"), CORE.standard_deck("undead")]
    pos = deal(decks, 123)
    for p, deck in ((1, decks[0]), (2, decks[1])):
        hand, rest = pos.hands[p], pos.decks[p]
        assert len(hand) == 6 and len(rest) == 30
        assert sum(1 for c in hand if CORE[c].rank == "general") == 1
        assert all(CORE[c].rank != "general" for c in rest)
        assert sorted(hand + rest) == sorted(deck)


def test_deck_error_is_a_value_error() -> None:
    assert issubclass(DeckError, ValueError)
