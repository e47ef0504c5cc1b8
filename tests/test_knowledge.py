"""lordsofwar.rules.knowledge: the cards a viewer may know to be left in a deck."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import GameSetup, games, play

from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.knowledge import deck_cards, side_cards
from lordsofwar.rules.notation import hand_visible
from lordsofwar.rules.state import Position, Result, Termination, Variant

ORCS = CORE.standard_deck("orcs")
ELVES = CORE.standard_deck("elves")


def mercenary() -> list[str]:
    """The orcs' deck with two veterans swapped for the elves' (a custom deck)."""
    deck = list(ORCS)
    orc_vets = [c for c in deck if CORE[c].rank == "veteran"][:2]
    elf_vets = [c for c in ELVES if CORE[c].rank == "veteran"][:2]
    for out, new in zip(orc_vets, elf_vets, strict=True):
        deck[deck.index(out)] = new
    return deck


def sorted_ids(cards: Sequence[str | None]) -> list[str]:
    """The cards of a pile of a full position (none hidden), sorted."""
    ids = [c for c in cards if c is not None]
    assert len(ids) == len(cards), "a full position hides no card"
    return sorted(ids)


def played(decks: list[list[str]], seed: int, n: int, variant: Variant | None = None) -> Position:
    pos = notation.deal(decks, seed, variant)
    rng = random.Random(seed)
    for _ in range(n):
        if pos.is_over:
            break
        pos.push(rng.choice(sorted(pos.legal_actions(), key=str)))
    return pos


def test_own_deck_is_the_deck_list_minus_hand_mat_and_lost() -> None:
    pos = played([ORCS, ELVES], 5, 40)
    assert any(u.owner == 1 for u in pos.board.values())
    mine = side_cards(pos, 1, 1, ORCS, True)
    assert mine == {"cards": sorted_ids(pos.decks[1]), "includes_hand": False}
    assert len(mine["cards"]) == len(pos.decks[1]) < 30


def test_an_opponents_standard_deck_hidden_hand_counts_as_deck_or_hand() -> None:
    pos = played([ORCS, ELVES], 6, 40)
    theirs = side_cards(pos, 1, 2, ELVES, True)
    assert theirs is not None and theirs["includes_hand"] is True
    assert Counter(theirs["cards"]) == Counter(pos.decks[2]) + Counter(pos.hands[2])


def test_visible_hands_and_the_end_of_the_game_leave_the_deck_alone() -> None:
    pos = played([ORCS, ELVES], 7, 40, Variant(hands="visible"))
    assert side_cards(pos, 1, 2, ELVES, True) == {"cards": sorted_ids(pos.decks[2]), "includes_hand": False}
    hidden = played([ORCS, ELVES], 7, 40)
    assert hand_visible(hidden, 1, 2) is False
    hidden.result = Result(1, Termination.RESIGNATION, player=2)
    assert hand_visible(hidden, 1, 2) is True
    assert side_cards(hidden, 1, 2, ELVES, True) == {"cards": sorted_ids(hidden.decks[2]), "includes_hand": False}


def test_custom_and_mercenary_decks_show_only_their_count_to_others() -> None:
    merc = mercenary()
    assert CORE.standard_army_of(merc) is None
    pos = played([merc, ELVES], 8, 30)
    assert pos.armies[1] == "mercenary"
    seen = deck_cards(pos, 2, [merc, ELVES])
    assert seen["1"] is None
    assert seen["2"] == {"cards": sorted_ids(pos.decks[2]), "includes_hand": False}
    # the owner of the mercenary deck knows it
    own = deck_cards(pos, 1, [merc, ELVES])["1"]
    assert own == {"cards": sorted_ids(pos.decks[1]), "includes_hand": False}
    # standard flags given explicitly win over the lists
    assert deck_cards(pos, 2, [merc, ELVES], [False, False])["2"] == seen["2"]  # own deck: always known
    assert deck_cards(pos, 1, [merc, ELVES], [True, False])["2"] is None


def test_a_spectator_sees_both_sides_as_an_opponent() -> None:
    pos = played([ORCS, mercenary()], 9, 30)
    seen = deck_cards(pos, None, [ORCS, mercenary()])
    assert seen["2"] is None
    assert seen["1"] is not None and seen["1"]["includes_hand"] is True
    assert Counter(seen["1"]["cards"]) == Counter(pos.decks[1]) + Counter(pos.hands[1])


def _other_deal(pos: Position, viewer: int | None, rng: random.Random) -> Position:
    """A position the viewer cannot tell from ``pos``: the cards hidden from the viewer (every
    deck's order, each hidden hand together with its deck) dealt again."""
    other = pos.copy()
    for p in (1, 2):
        if hand_visible(pos, viewer, p):
            deck = list(other.decks[p])
            rng.shuffle(deck)
            other.decks[p] = deck
        else:
            pool = [*other.hands[p], *other.decks[p]]
            rng.shuffle(pool)
            n = len(other.hands[p])
            other.hands[p], other.decks[p] = pool[:n], pool[n:]
    return other


@settings(max_examples=30, deadline=None)
@given(games(), st.integers(0, 400), st.sampled_from([1, 2, None]), st.integers(0, 2**32 - 1))
def test_what_the_viewer_gets_depends_only_on_what_the_viewer_sees(
    setup: GameSetup, n: int, viewer: int | None, seed: int
) -> None:
    pos, _ = play(setup, random.Random(seed), max_actions=n)
    decks = [list(setup.decks[0]), list(setup.decks[1])]
    got = deck_cards(pos, viewer, decks)
    rng = random.Random(seed + 1)
    # the hidden cards dealt otherwise (the opponent's hidden hand, every deck's order)
    other = _other_deal(pos, viewer, rng)
    assert notation.view_json(other, viewer) == notation.view_json(pos, viewer)
    # an opponent's custom deck: any other list of cards would do as well
    changed = [list(d) for d in decks]
    for p in (1, 2):
        if p != viewer and CORE.standard_army_of(decks[p - 1]) is None:
            changed[p - 1] = list(reversed(mercenary()))
    standard = [CORE.standard_army_of(d) is not None for d in decks]
    assert deck_cards(other, viewer, changed, standard) == got
    # and the view alone (hidden cards unknown) gives the same answer
    if viewer is not None:
        assert deck_cards(notation.view(pos, viewer), viewer, decks) == got
    # what is listed is really there: in the deck, or in the deck or the hand
    for p in (1, 2):
        side = got[str(p)]
        if side is None:
            assert p != viewer and not standard[p - 1]
            continue
        where = Counter(pos.decks[p]) + (Counter(pos.hands[p]) if side["includes_hand"] else Counter())
        assert Counter(side["cards"]) == where
        assert side["includes_hand"] == (not hand_visible(pos, viewer, p))
