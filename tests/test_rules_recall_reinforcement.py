"""Movement, recall, reinforcement and the extra turn: clarifications 7."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from helpers import board_of, card_set_with, events_of, hand_of, legal, lost_of, make_position, play

from lordsofwar.rules.cards import CORE
from lordsofwar.rules.errors import CardPackError, IllegalActionError

# --- 7.2 reinforcement: draw, recall, pass ------------------------------------------------------


def test_reinforcement_offers_draw_and_every_recallable_unit():
    # After the deployment: the old units on a1 and g1 are free; the new one is not recallable.
    pos = make_position(
        board={"a1": ("orcs:09", 1), "g1": ("orcs:30", 1), "d4": ("dwarves:28", 2)},
        hands={1: ["orcs:30"]},
    )
    play(pos, "deploy orcs:30 d3")
    assert legal(pos) == {"draw", "recall a1", "recall g1"}


def test_draw_takes_the_top_card_of_the_deck_and_ends_the_turn():
    pos = make_position(
        board={"d4": ("dwarves:28", 2)},
        hands={1: ["orcs:30", "orcs:09"]},
        decks={1: ["orcs:24", "orcs:11"]},
    )
    events = play(pos, "deploy orcs:30 d3", "draw")
    assert hand_of(pos, 1) == Counter({"orcs:09": 1, "orcs:24": 1})
    assert pos.decks[1] == ["orcs:11"]
    assert (pos.turn, pos.to_move) == (10, 2)
    draws = events_of(events, "draw")
    assert [d["player"] for d in draws] == [1]
    assert "orcs:24" not in json.dumps(draws)  # the drawn card stays secret


def test_recall_takes_the_unit_back_into_the_hand_and_ends_the_turn():
    pos = make_position(
        board={"a1": ("orcs:09", 1), "d4": ("dwarves:28", 2)},
        hands={1: ["orcs:30"]},
    )
    events = play(pos, "deploy orcs:30 d3", "recall a1")
    assert board_of(pos) == {"d3": ("orcs:30", 1), "d4": ("dwarves:28", 2)}
    assert hand_of(pos, 1) == Counter({"orcs:09": 1})
    assert [(e["square"], e["card"]) for e in events_of(events, "recall")] == [("a1", "orcs:09")]
    assert (pos.turn, pos.to_move) == (10, 2)


def test_unit_deployed_this_turn_cannot_be_recalled():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    play(pos, "deploy orcs:30 d3")
    assert legal(pos) == {"draw"}
    with pytest.raises(IllegalActionError, match=r"deployed.*7\.2"):
        pos.push("recall d3")


def test_engaged_unit_cannot_be_recalled():
    # Eruugor Bloodfist (def 5) on d3 is engaged by Gordona's F4 from d4; a1 is free.
    pos = make_position(
        board={"d3": ("orcs:16", 1), "a1": ("orcs:09", 1), "d4": ("dwarves:32", 2)},
        hands={1: []},
    )
    assert legal(pos) == {"draw", "recall a1"}
    with pytest.raises(IllegalActionError, match=r"engaged.*7\.2"):
        pos.push("recall d3")


def test_ranged_unit_whose_shot_eliminated_a_unit_cannot_be_recalled():
    pos = make_position(board={"d2": ("orcs:24", 1), "d5": ("dwarves:17", 2)}, hands={1: []})
    play(pos, "shoot d2 d5")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    assert legal(pos) == {"draw"}
    with pytest.raises(IllegalActionError, match=r"took part.*7\.2"):
        pos.push("recall d2")


def test_ranged_unit_whose_shot_eliminated_nothing_may_be_recalled():
    pos = make_position(board={"d2": ("orcs:24", 1), "d5": ("dwarves:32", 2)}, hands={1: []})
    play(pos, "shoot d2 d5")
    assert lost_of(pos, 2) == Counter()
    assert legal(pos) == {"draw", "recall d2"}


def test_enemy_unit_in_a_target_grid_is_not_engaged_and_may_be_recalled():
    # Player 1's Catapult on d2 has d4 in its grid; player 2 recalls d4 all the same.
    pos = make_position(board={"d2": ("orcs:24", 1), "d4": ("dwarves:17", 2)}, hands={2: []}, to_move=2)
    assert legal(pos) == {"draw", "recall d4"}


def test_hand_of_six_must_pass():
    # No deployment is possible (the only enemy is surrounded), the hand holds six: pass only.
    pos = make_position(
        board={"a1": ("dwarves:06", 2), "a2": ("orcs:09", 1), "b1": ("orcs:09", 1), "b2": ("orcs:09", 1)},
        hands={1: ["orcs:30"] * 6},
    )
    assert legal(pos) == {"pass"}
    with pytest.raises(IllegalActionError, match=r"six.*7\.2"):
        pos.push("draw")
    with pytest.raises(IllegalActionError, match=r"six.*7\.2"):
        pos.push("recall a2")
    play(pos, "pass")
    assert (pos.turn, pos.to_move) == (10, 2)


def test_empty_deck_and_nothing_recallable_pass_only():
    # The Shanker on a2 is engaged by the Slugger on a3; the Spikeman on b1 was deployed this turn.
    pos = make_position(
        board={"a2": ("orcs:06", 1), "a3": ("dwarves:17", 2)},
        hands={1: ["orcs:11"]},
        decks={1: []},
    )
    play(pos, "deploy orcs:11 b1")
    assert legal(pos) == {"pass"}
    events = play(pos, "pass")
    assert [e["player"] for e in events_of(events, "pass")] == [1]
    assert (pos.turn, pos.to_move) == (10, 2)


def test_empty_deck_with_a_recallable_unit_recall_only():
    pos = make_position(
        board={"g1": ("orcs:09", 1), "a2": ("orcs:06", 1), "a3": ("dwarves:17", 2)},
        hands={1: ["orcs:11"]},
        decks={1: []},
    )
    play(pos, "deploy orcs:11 b1")
    assert legal(pos) == {"recall g1"}
    with pytest.raises(IllegalActionError, match=r"7\.2"):
        pos.push("pass")
    with pytest.raises(IllegalActionError, match=r"empty.*7\.2"):
        pos.push("draw")


def test_pass_is_refused_when_a_draw_is_possible():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    play(pos, "deploy orcs:30 d3")
    with pytest.raises(IllegalActionError, match=r"pass.*7\.2"):
        pos.push("pass")


# --- 7.3 cavalry ------------------------------------------------------------------------------------


def test_engaged_cavalry_may_be_recalled_in_the_intermediate_rules():
    # Orc Warhog orcs:07 (def 4) on c3 is engaged by the Slugger's F3 from c4 (not a spear).
    pos = make_position(board={"c3": ("orcs:07", 1), "c4": ("dwarves:17", 2)}, hands={1: []})
    assert legal(pos) == {"draw", "recall c3"}


def test_cavalry_engaged_by_a_spear_cannot_be_recalled():
    # Dwarf Beastslayer dwarves:36 (spear, F3) engages the Warhog from c4.
    pos = make_position(board={"c3": ("orcs:07", 1), "c4": ("dwarves:36", 2)}, hands={1: []})
    assert legal(pos) == {"draw"}
    with pytest.raises(IllegalActionError, match=r"spear.*7\.3"):
        pos.push("recall c3")


def test_cavalry_may_be_recalled_after_taking_part_in_an_elimination():
    # The Warhog's R4 and the Ravager's FL5 eliminate the Marauder on d3; the Warhog stays
    # engaged by the Slugger on c4 and took part, yet may be recalled.
    pos = make_position(
        board={"c3": ("orcs:07", 1), "d3": ("dwarves:19", 2), "c4": ("dwarves:17", 2)},
        hands={1: ["orcs:03"]},
    )
    play(pos, "deploy orcs:03 e2")
    assert lost_of(pos, 2) == Counter({"dwarves:19": 1})
    assert legal(pos) == {"draw", "recall c3"}


def test_cavalry_cannot_be_recalled_in_the_turn_it_was_deployed():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:07"]})
    play(pos, "deploy orcs:07 d3")
    assert legal(pos) == {"draw"}


def test_engaged_cavalry_cannot_be_recalled_in_the_basic_rules():
    pos = make_position(
        board={"c3": ("orcs:07", 1), "c4": ("dwarves:17", 2)}, hands={1: []}, variant={"rules": "basic"}
    )
    assert legal(pos) == {"draw"}


def test_free_cavalry_is_recalled_as_usual_in_the_basic_rules():
    pos = make_position(
        board={"c3": ("orcs:07", 1), "g6": ("dwarves:17", 2)}, hands={1: []}, variant={"rules": "basic"}
    )
    assert legal(pos) == {"draw", "recall c3"}


# --- 7.1 moving units (card packs) --------------------------------------------------------------

STRIDER = {
    "id": "test:01",
    "name": "Test Strider",
    "rank": "regular",
    "class": "infantry",
    "defence": 3,
    "attacks": "F4",
    "moves": "F L",
}
PACK = card_set_with(STRIDER)


def moves(pos) -> set[str]:
    return {a for a in legal(pos) if a.startswith("move ")}


def test_moving_unit_moves_only_after_the_deployment():
    pos = make_position(board={"d2": ("test:01", 1), "g6": ("dwarves:28", 2)}, hands={1: ["orcs:30"]}, cards=PACK)
    assert moves(pos) == set()
    with pytest.raises(IllegalActionError):
        pos.push("move d2 d3")
    play(pos, "deploy orcs:30 f5")
    assert moves(pos) == {"move d2 d3", "move d2 c2"}


def test_moving_unit_follows_its_movement_arrows_turned_for_player2():
    pos = make_position(board={"d5": ("test:01", 2), "a1": ("orcs:09", 1)}, hands={2: []}, to_move=2, cards=PACK)
    assert moves(pos) == {"move d5 d4", "move d5 e5"}


def test_moving_unit_moves_at_most_once_per_turn():
    pos = make_position(board={"d2": ("test:01", 1), "g6": ("dwarves:28", 2)}, hands={1: []}, cards=PACK)
    events = play(pos, "move d2 d3")
    assert [(e["from"], e["to"]) for e in events_of(events, "move")] == [("d2", "d3")]
    assert board_of(pos)["d3"] == ("test:01", 1)
    assert moves(pos) == set()
    with pytest.raises(IllegalActionError, match=r"already moved.*7\.1"):
        pos.push("move d3 d4")


def test_engaged_moving_unit_cannot_move():
    # The Slugger's F3 from d3 engages the Strider on d2.
    pos = make_position(board={"d2": ("test:01", 1), "d3": ("dwarves:17", 2)}, hands={1: []}, cards=PACK)
    assert moves(pos) == set()
    with pytest.raises(IllegalActionError, match=r"engaged.*7\.1"):
        pos.push("move d2 c2")


def test_moving_unit_moves_only_into_empty_squares_on_the_bordered_mat():
    # On a2: L leads off the mat, F into the friend on a3.
    pos = make_position(
        board={"a2": ("test:01", 1), "a3": ("orcs:09", 1), "g6": ("dwarves:28", 2)}, hands={1: []}, cards=PACK
    )
    assert moves(pos) == set()


def test_moving_unit_may_leave_the_printed_squares_on_the_unbordered_mat():
    pos = make_position(
        board={"a2": ("test:01", 1), "g6": ("dwarves:28", 2)},
        hands={1: []},
        cards=PACK,
        variant={"mat": "unbordered"},
    )
    assert moves(pos) == {"move a2 a3", "move a2 -1,1"}
    play(pos, "move a2 -1,1")
    assert board_of(pos)["-1,1"] == ("test:01", 1)


def test_each_move_runs_a_check():
    # Moving d2 -> d3 brings the Strider's F4 onto the Slugger on d4 (def 3).
    pos = make_position(board={"d2": ("test:01", 1), "d4": ("dwarves:17", 2)}, hands={1: []}, cards=PACK)
    events = play(pos, "move d2 d3")
    assert events_of(events, "eliminated") == [{"type": "eliminated", "square": "d4", "card": "dwarves:17", "owner": 2}]
    assert board_of(pos) == {"d3": ("test:01", 1)}
    assert legal(pos) == {"draw"}  # the Strider took part


def test_moving_unit_deployed_this_turn_may_move():
    pos = make_position(board={"d2": ("orcs:09", 1)}, hands={1: ["test:01"]}, cards=PACK)
    play(pos, "deploy test:01 e2")
    assert moves(pos) == {"move e2 e3"}


def test_moving_unit_that_eliminated_a_unit_may_still_move():
    # The Strider placed on d3 eliminates the Slugger on d4 with F4; it has not moved yet.
    pos = make_position(board={"d4": ("dwarves:17", 2)}, hands={1: ["test:01"]}, cards=PACK)
    play(pos, "deploy test:01 d3")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    assert moves(pos) == {"move d3 d4", "move d3 c3"}


def test_move_check_can_start_a_berserker_advance():
    # The Strider steps d2 -> d3; its F4 and the Deathbringer's FR3 from c3 eliminate the
    # Sharpshooter on d4 (def 4), and the Deathbringer advances into d4.
    pos = make_position(
        board={"d2": ("test:01", 1), "c3": ("orcs:35", 1), "d4": ("dwarves:28", 2)},
        hands={1: []},
        cards=PACK,
    )
    events = play(pos, "move d2 d3")
    assert [(e["from"], e["to"]) for e in events_of(events, "advance")] == [("c3", "d4")]
    assert board_of(pos) == {"d3": ("test:01", 1), "d4": ("orcs:35", 1)}


def test_card_pack_file_adds_a_unit_with_backward_movement(tmp_path):
    pack = tmp_path / "pack.json"
    pack.write_text(
        json.dumps(
            {
                "format": "lordsofwar-cards",
                "version": 1,
                "title": "test pack",
                "cards": [
                    {
                        "id": "pack:01",
                        "name": "Retreater",
                        "rank": "recruit",
                        "class": "spear",
                        "defence": 2,
                        "attacks": "F1",
                        "moves": "B BR",
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    cards = CORE.with_pack(pack)
    assert cards.card("pack:01").moves == ("B", "BR")
    # For player 2, back is +y and back-right is (-1, +1).
    pos = make_position(board={"d3": ("pack:01", 2), "a1": ("orcs:09", 1)}, hands={2: []}, to_move=2, cards=cards)
    assert moves(pos) == {"move d3 d4", "move d3 c4"}


def test_card_pack_with_a_bad_movement_arrow_is_refused_naming_card_and_field(tmp_path):
    pack = tmp_path / "bad.json"
    card = {
        "id": "pack:02",
        "name": "Wobbler",
        "rank": "recruit",
        "class": "infantry",
        "defence": 2,
        "attacks": "F1",
        "moves": "UP",
    }
    pack.write_text(json.dumps({"format": "lordsofwar-cards", "version": 1, "cards": [card]}), encoding="utf-8")
    with pytest.raises(CardPackError, match=r"pack:02.*moves"):
        CORE.with_pack(pack)


def test_recalling_an_enemy_unit_is_refused():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    play(pos, "deploy orcs:30 d3")
    with pytest.raises(IllegalActionError, match="belongs to player 2"):
        pos.push("recall d4")


# --- 7.4 the extra turn ------------------------------------------------------------------------


def test_eliminating_the_enemy_general_gives_an_extra_turn():
    # Krod Klouthammer (def 7) on d4 takes B4 from the Shanker on d5 and FR5 from the Ravager on c3.
    pos = make_position(
        board={"d4": ("dwarves:01", 2), "d5": ("orcs:06", 1)},
        hands={1: ["orcs:04", "orcs:09"]},
    )
    events = play(pos, "deploy orcs:04 c3", "draw")
    assert lost_of(pos, 2) == Counter({"dwarves:01": 1})
    assert (pos.turn, pos.to_move) == (10, 1)
    assert [e["player"] for e in events_of(events, "extra_turn")] == [1]
    assert pos.quiet_turns == 0


def test_player2_eliminating_player1s_general_also_plays_again():
    # Gonke Longtooth (def 6) on c3 takes the turned R3 of the Slugger on d3 and the turned L5 of
    # the Dowager player 2 places on b3: 8 > 6.
    pos = make_position(
        board={"c3": ("orcs:01", 1), "d3": ("dwarves:15", 2)},
        hands={2: ["dwarves:26"]},
        to_move=2,
        turn=10,
    )
    events = play(pos, "deploy dwarves:26 b3", "draw")
    assert lost_of(pos, 1) == Counter({"orcs:01": 1})
    assert (pos.turn, pos.to_move) == (11, 2)
    assert [e["player"] for e in events_of(events, "extra_turn")] == [2]


def test_no_extra_turn_when_both_generals_are_eliminated_in_the_same_turn():
    # Gonke Longtooth placed on d3 eliminates Krod (F5 + the Shanker's B4 = 9 > 7) but falls to
    # Krod's F5 and the Slugger's turned L3 from c3 (8 > 6).
    pos = make_position(
        board={"d4": ("dwarves:01", 2), "d5": ("orcs:06", 1), "c3": ("dwarves:23", 2)},
        hands={1: ["orcs:01", "orcs:09"]},
    )
    events = play(pos, "deploy orcs:01 d3", "draw")
    assert lost_of(pos, 1) == Counter({"orcs:01": 1})
    assert lost_of(pos, 2) == Counter({"dwarves:01": 1})
    assert (pos.turn, pos.to_move) == (10, 2)
    assert events_of(events, "extra_turn") == []


def test_losing_only_ones_own_general_changes_nothing_in_the_turn_order():
    # Gonke Longtooth (def 6) placed on d3 against Gordona (def 6, F4) and the Slugger on c3 (L3).
    pos = make_position(
        board={"d4": ("dwarves:32", 2), "c3": ("dwarves:23", 2)},
        hands={1: ["orcs:01", "orcs:09"]},
    )
    play(pos, "deploy orcs:01 d3", "draw")
    assert lost_of(pos, 1) == Counter({"orcs:01": 1})
    assert (pos.turn, pos.to_move) == (10, 2)
