"""Set-up, deal, openings and decks: clarifications 1 and 8.4."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import board_of, legal, lost_of, make_position, play

from lordsofwar.rules.cards import CORE, RANK_COUNTS
from lordsofwar.rules.errors import DeckError, IllegalActionError, UnknownCardError
from lordsofwar.rules.notation import deal, position_to_json
from lordsofwar.rules.state import Variant

ORCS = CORE.standard_deck("orcs")
DWARVES = CORE.standard_deck("dwarves")


# --- 1.4 set-up and the deal ------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_deal_gives_a_hand_of_five_dealt_cards_plus_the_general_and_a_deck_of_thirty(seed):
    pos = deal([ORCS, DWARVES], seed)
    for player, deck, general in ((1, ORCS, "orcs:01"), (2, DWARVES, "dwarves:01")):
        assert len(pos.hands[player]) == 6
        assert len(pos.decks[player]) == 30
        assert general in pos.hands[player]
        assert general not in pos.decks[player]
        assert Counter(pos.hands[player]) + Counter(pos.decks[player]) == Counter(deck)
        dealt = [c for c in pos.hands[player] if c != general]
        assert len(dealt) == 5


def test_deal_starts_turn_1_with_player_1_to_move_on_an_empty_mat():
    pos = deal([ORCS, DWARVES], 7)
    assert (pos.turn, pos.to_move, pos.quiet_turns) == (1, 1, 0)
    assert pos.board == {}
    assert pos.lost[1] == [] and pos.lost[2] == []
    assert pos.result is None
    assert pos.armies[1:] == ["orcs", "dwarves"]


def test_same_seed_gives_the_same_deal():
    a = deal([ORCS, DWARVES], 99)
    b = deal([ORCS, DWARVES], 99)
    assert position_to_json(a) == position_to_json(b)


def test_different_seeds_shuffle_differently():
    deals = {tuple(deal([ORCS, DWARVES], seed).decks[1]) for seed in range(8)}
    assert len(deals) > 1


def test_deal_keeps_the_variant():
    v = Variant(rules="basic", hands="visible", mat="unbordered", units_to_win=15, commands_to_win=3)
    assert deal([ORCS, DWARVES], 3, v).variant == v


def test_deal_refuses_a_deck_without_exactly_one_general():
    two_generals = ["orcs:01" if c == "orcs:16" else c for c in ORCS]
    with pytest.raises(DeckError, match="general"):
        deal([two_generals, DWARVES], 1)


def test_deal_copies_the_decks_so_later_edits_do_not_change_the_game():
    custom = list(ORCS)
    pos = deal([custom, DWARVES], 5)
    before = position_to_json(pos)
    custom[:] = ["orcs:30"] * 36
    assert position_to_json(pos) == before


# --- 1.2-1.3 the openings ---------------------------------------------------------------------


def test_turn_1_player_1_deploys_any_hand_card_on_c3_only():
    pos = deal([ORCS, DWARVES], 11)
    assert legal(pos) == {f"deploy {c} c3" for c in pos.hands[1]}


def test_turn_1_other_squares_are_refused_naming_the_opening_rule():
    pos = deal([ORCS, DWARVES], 11)
    with pytest.raises(IllegalActionError, match=r"c3.*1\.3"):
        pos.push(f"deploy {pos.hands[1][0]} d3")


def test_opening_turn_reinforcement_is_a_draw_and_turn_2_belongs_to_player_2():
    pos = deal([ORCS, DWARVES], 11)
    card = pos.hands[1][0]
    play(pos, f"deploy {card} c3")
    assert legal(pos) == {"draw"}
    play(pos, "draw")
    assert (pos.turn, pos.to_move) == (2, 2)
    assert len(pos.hands[1]) == 6
    assert pos.quiet_turns == 1  # the openings count as quiet turns


def test_turn_2_player_2_deploys_any_hand_card_on_e4_only():
    pos = deal([ORCS, DWARVES], 11)
    play(pos, f"deploy {pos.hands[1][0]} c3", "draw")
    assert legal(pos) == {f"deploy {c} e4" for c in pos.hands[2]}
    play(pos, f"deploy {pos.hands[2][0]} e4", "draw")
    assert (pos.turn, pos.to_move) == (3, 1)


def test_opening_squares_do_not_touch():
    # The widest-armed cards on c3 and e4 do not engage each other.
    pos = make_position(board={"c3": ("orcs:08", 1)}, hands={2: ["dwarves:32"]}, turn=2, to_move=2)
    play(pos, "deploy dwarves:32 e4", "draw")
    assert board_of(pos) == {"c3": ("orcs:08", 1), "e4": ("dwarves:32", 2)}


def test_turn_2_without_a_free_e4_has_no_deployment():
    pos = make_position(
        board={"c3": ("orcs:09", 1), "e4": ("orcs:30", 1)}, hands={2: ["dwarves:17"]}, turn=2, to_move=2
    )
    assert legal(pos) == {"draw"}


def test_no_shots_in_the_opening_turns():
    # A (constructed) player 2 Deadeye Jones on d5 with c3 in its grid: no shot in turn 2.
    board = {"c3": ("orcs:09", 1), "d5": ("dwarves:10", 2)}
    pos = make_position(board=board, hands={2: ["dwarves:17"]}, turn=2, to_move=2)
    assert legal(pos) == {"deploy dwarves:17 e4"}
    with pytest.raises(IllegalActionError, match=r"opening.*1\.3"):
        pos.push("shoot d5 c3")
    play(pos, "deploy dwarves:17 e4")
    assert legal(pos) == {"draw", "recall d5"}
    later = make_position(board=board, hands={2: ["dwarves:17"]}, turn=4, to_move=2)
    assert "shoot d5 c3" in legal(later)


def test_no_shots_in_turn_1():
    # A (constructed) turn 1 with player 1's Catapult on d1 and an enemy on d3 in its grid.
    pos = make_position(board={"d1": ("orcs:24", 1), "d3": ("dwarves:17", 2)}, hands={1: ["orcs:09"]}, turn=1)
    assert legal(pos) == {"deploy orcs:09 c3"}
    with pytest.raises(IllegalActionError, match=r"1\.3"):
        pos.push("shoot d1 d3")


def test_combat_is_checked_in_the_opening_turns():
    # A (constructed) player 1 Goblin Shanker on d3 falls to the Dwarf Berserker's turned FR4 from e4.
    pos = make_position(
        board={"c3": ("orcs:09", 1), "d3": ("orcs:06", 1)},
        hands={2: ["dwarves:30"]},
        turn=2,
        to_move=2,
        variant={"rules": "basic"},
    )
    play(pos, "deploy dwarves:30 e4")
    assert lost_of(pos, 1) == Counter({"orcs:06": 1})


# --- 8.4 decks --------------------------------------------------------------------------------------


@pytest.mark.parametrize("army", ["orcs", "dwarves", "elves", "lizardmen", "templars", "undead"])
def test_every_standard_army_deck_is_valid(army):
    deck = CORE.standard_deck(army)
    assert len(deck) == 36
    assert Counter(CORE.card(c).rank for c in deck) == Counter(RANK_COUNTS)
    assert CORE.validate_deck(deck, custom=False) == deck
    assert CORE.standard_army_of(deck) == army


def test_rank_counts_are_1_5_4_4_6_8_8():
    assert RANK_COUNTS == {
        "general": 1,
        "command": 5,
        "special": 4,
        "elite": 4,
        "veteran": 6,
        "regular": 8,
        "recruit": 8,
    }


def test_custom_deck_swaps_cards_of_the_same_rank_and_copies_are_not_limited():
    # The rules' example: two Orc Ravagers (veteran) out, two Orc Catapults (veteran) in.
    deck = list(ORCS)
    deck.remove("orcs:03")
    deck.remove("orcs:04")
    deck += ["orcs:24", "orcs:24"]
    assert Counter(deck)["orcs:24"] == 3
    assert CORE.validate_deck(deck) == deck
    assert CORE.standard_army_of(deck) is None


def test_mercenary_deck_takes_same_rank_cards_from_another_army():
    # The rules' example: two Orc Warhogs (elite) out, two Lizardmen Quillshots (elite) in.
    deck = [c for c in ORCS if c not in ("orcs:07", "orcs:12")] + ["lizardmen:29", "lizardmen:31"]
    assert CORE.validate_deck(deck, allowed_armies=["orcs", "lizardmen"]) == deck


def test_swapping_across_ranks_is_refused_naming_the_rank_over_and_under():
    deck = [c for c in ORCS if c != "orcs:06"] + ["orcs:03"]  # a recruit out, a veteran in
    with pytest.raises(DeckError) as info:
        CORE.validate_deck(deck)
    message = str(info.value)
    assert "veteran" in message and "over" in message
    assert "recruit" in message and "under" in message
    assert "8.4" in message


def test_deck_with_two_generals_is_refused():
    deck = [c for c in ORCS if c != "orcs:16"] + ["dwarves:01"]
    with pytest.raises(DeckError, match=r"general.*over"):
        CORE.validate_deck(deck)


def test_deck_of_the_wrong_size_is_refused():
    with pytest.raises(DeckError, match="36"):
        CORE.validate_deck(ORCS[:35])


def test_custom_deck_with_a_card_from_an_army_the_game_does_not_allow_is_refused():
    deck = [c for c in ORCS if c != "orcs:03"] + ["dwarves:06"]  # veteran for veteran
    assert CORE.validate_deck(deck) == deck
    with pytest.raises(DeckError, match=r"dwarves:06.*dwarves"):
        CORE.validate_deck(deck, allowed_armies=["orcs", "elves"])


def test_custom_deck_is_refused_when_only_standard_decks_are_allowed():
    deck = [c for c in ORCS if c != "orcs:03"] + ["orcs:04"]
    with pytest.raises(DeckError, match="standard"):
        CORE.validate_deck(deck, custom=False)


def test_deck_with_an_unknown_card_is_refused_naming_it():
    with pytest.raises(UnknownCardError, match="orcs:99"):
        CORE.validate_deck([*ORCS[:35], "orcs:99"])
