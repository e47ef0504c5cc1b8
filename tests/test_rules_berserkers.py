"""Berserkers: clarifications 6 (intermediate rules) and the rules' 'Berserkers Units'."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import board_of, events_of, legal, lost_of, make_position, play, turn_state

from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.notation import position_to_json


def advances(events) -> list[tuple[str, str, int]]:
    return [(e["from"], e["to"], e["owner"]) for e in events_of(events, "advance")]


# Orc Deathbringer orcs:35: FL3 F5 FR3, def 2. Dwarf Sharpshooter dwarves:28: no arrows, def 4.


def test_berserker_must_advance_into_the_square_of_the_unit_it_eliminated():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:35"]})
    events = play(pos, "deploy orcs:35 d3")
    assert advances(events) == [("d3", "d4", 1)]
    assert board_of(pos) == {"d4": ("orcs:35", 1)}
    assert legal(pos) == {"draw"}


def test_berserker_advances_chain_while_it_keeps_eliminating_and_it_keeps_its_facing():
    # After d3 -> d4 its F5 still points up the mat, at d5: a second elimination, a second advance.
    pos = make_position(board={"d4": ("dwarves:28", 2), "d5": ("dwarves:28", 2)}, hands={1: ["orcs:35"]})
    events = play(pos, "deploy orcs:35 d3")
    assert advances(events) == [("d3", "d4", 1), ("d4", "d5", 1)]
    assert board_of(pos) == {"d5": ("orcs:35", 1)}
    assert lost_of(pos, 2) == Counter({"dwarves:28": 2})
    kinds = [e["type"] for e in events if e["type"] in ("eliminated", "advance")]
    assert kinds == ["eliminated", "advance", "eliminated", "advance"]


def test_berserker_engaged_after_the_check_does_not_advance():
    # The Impaler on c4 (FL1, turned: points at d3) survives the Deathbringer's FL3 (def 3).
    pos = make_position(board={"d4": ("dwarves:28", 2), "c4": ("dwarves:12", 2)}, hands={1: ["orcs:35"]})
    events = play(pos, "deploy orcs:35 d3")
    assert advances(events) == []
    assert board_of(pos) == {"d3": ("orcs:35", 1), "c4": ("dwarves:12", 2)}
    assert lost_of(pos, 2) == Counter({"dwarves:28": 1})


def test_berserker_eliminated_in_the_check_does_not_advance():
    # The Slugger's F3 eliminates the Deathbringer (def 2) while the F5 eliminates the Slugger.
    pos = make_position(board={"d4": ("dwarves:17", 2)}, hands={1: ["orcs:35"]})
    events = play(pos, "deploy orcs:35 d3")
    assert advances(events) == []
    assert board_of(pos) == {}
    assert lost_of(pos, 1) == Counter({"orcs:35": 1})


def test_berserker_that_did_not_take_part_does_not_advance():
    # The old Deathbringer on c4 points at b5, c5, d5: it has no share in eliminating d4.
    pos = make_position(board={"c4": ("orcs:35", 1), "d4": ("dwarves:17", 2)}, hands={1: ["orcs:09"]})
    events = play(pos, "deploy orcs:09 d3")
    assert advances(events) == []
    assert board_of(pos) == {"c4": ("orcs:35", 1), "d3": ("orcs:09", 1)}


def test_owner_chooses_the_square_when_the_berserker_eliminated_several_units():
    # F5 on the Beastslayer (d4, def 4) and FL3 on the Dowager (c4, def 2).
    pos = make_position(board={"c4": ("dwarves:04", 2), "d4": ("dwarves:11", 2)}, hands={1: ["orcs:35"]})
    play(pos, "deploy orcs:35 d3")
    assert legal(pos) == {"advance d3 c4", "advance d3 d4"}
    assert pos.decider == 1
    assert turn_state(pos)["phase"] == "advance"
    events = play(pos, "advance d3 d4")
    assert advances(events) == [("d3", "d4", 1)]
    assert board_of(pos) == {"d4": ("orcs:35", 1)}
    assert legal(pos) == {"draw"}


def test_advance_into_a_square_it_did_not_help_to_free_is_refused():
    pos = make_position(board={"c4": ("dwarves:04", 2), "d4": ("dwarves:11", 2)}, hands={1: ["orcs:35"]})
    play(pos, "deploy orcs:35 d3")
    before = position_to_json(pos)
    with pytest.raises(IllegalActionError, match=r"6\.2"):
        pos.push("advance d3 e4")
    with pytest.raises(IllegalActionError, match=r"6\.3"):
        pos.push("draw")
    assert position_to_json(pos) == before


def test_deployed_berserker_advances_before_an_older_one():
    # Both the new Deathbringer (F5) and the old one on c5 (BR3) helped eliminate d4 (def 4).
    pos = make_position(board={"c5": ("orcs:02", 1), "d4": ("dwarves:11", 2)}, hands={1: ["orcs:35"]})
    events = play(pos, "deploy orcs:35 d3")
    assert advances(events) == [("d3", "d4", 1)]
    assert board_of(pos) == {"c5": ("orcs:02", 1), "d4": ("orcs:35", 1)}


def test_deployed_berserker_chooses_first_then_an_older_one_takes_the_square_left_free():
    # New Deathbringer on d3 eliminates c4 and d4; the old one on e3 (FL3) helped with d4 only.
    board = {"c4": ("dwarves:04", 2), "d4": ("dwarves:11", 2), "e3": ("orcs:35", 1)}
    pos = make_position(board=board, hands={1: ["orcs:35"]})
    play(pos, "deploy orcs:35 d3")
    assert legal(pos) == {"advance d3 c4", "advance d3 d4"}  # the old one waits
    events = play(pos, "advance d3 c4")
    assert advances(events) == [("d3", "c4", 1), ("e3", "d4", 1)]
    assert board_of(pos) == {"c4": ("orcs:35", 1), "d4": ("orcs:35", 1)}

    pos = make_position(board=board, hands={1: ["orcs:35"]})
    play(pos, "deploy orcs:35 d3")
    events = play(pos, "advance d3 d4")
    assert advances(events) == [("d3", "d4", 1)]  # d4 is taken: the old one stays
    assert board_of(pos) == {"d4": ("orcs:35", 1), "e3": ("orcs:35", 1)}


def test_owner_picks_which_old_berserker_advances_and_the_square_takes_only_one():
    # Two old Deathbringers (c5 BR3, e5 BL3) and a declared Bow Pest shot (2) eliminate Gordona
    # Ironhelm (def 6) at the deployment's check: 3 + 3 + 2 = 8.
    pos = make_position(
        board={"c5": ("orcs:02", 1), "e5": ("orcs:10", 1), "d4": ("dwarves:32", 2), "d2": ("orcs:19", 1)},
        hands={1: ["orcs:11"]},
    )
    play(pos, "shoot d2 d4", "deploy orcs:11 c1")
    assert legal(pos) == {"advance c5 d4", "advance e5 d4"}
    events = play(pos, "advance e5 d4")
    assert advances(events) == [("e5", "d4", 1)]
    assert board_of(pos) == {
        "c1": ("orcs:11", 1),
        "c5": ("orcs:02", 1),
        "d2": ("orcs:19", 1),
        "d4": ("orcs:10", 1),
    }
    assert legal(pos) == {"draw"}


def test_berserkers_with_one_square_each_advance_by_themselves():
    # Gonke Longtooth on d3 with the old Deathbringers on b3 (FR3) and f3 (FL3) eliminates the two
    # Jaeger Drakesbanes (def 5) on c4 and e4; each berserker has its own square.
    pos = make_position(
        board={"b3": ("orcs:35", 1), "f3": ("orcs:35", 1), "c4": ("dwarves:31", 2), "e4": ("dwarves:31", 2)},
        hands={1: ["orcs:01"]},
    )
    events = play(pos, "deploy orcs:01 d3")
    assert sorted(advances(events)) == [("b3", "c4", 1), ("f3", "e4", 1)]
    assert board_of(pos) == {"d3": ("orcs:01", 1), "c4": ("orcs:35", 1), "e4": ("orcs:35", 1)}
    assert legal(pos) == {"draw"}


def test_opponent_berserker_advances_during_the_active_players_turn():
    # Player 1's Spikeman on d3 falls to player 2's Dwarf Berserker on d4 (F4). The Berserker
    # advances into d3 by itself, there eliminates both Goblin Shankers (F4 on d2, turned FL4 on e2)
    # and player 2 must choose where it goes next, inside player 1's turn.
    pos = make_position(
        board={"d2": ("orcs:06", 1), "e2": ("orcs:06", 1), "d4": ("dwarves:13", 2)},
        hands={1: ["orcs:11", "orcs:30"]},
    )
    events = play(pos, "deploy orcs:11 d3")
    assert advances(events) == [("d4", "d3", 2)]
    assert lost_of(pos, 1) == Counter({"orcs:11": 1, "orcs:06": 2})
    assert pos.to_move == 1
    assert pos.decider == 2
    assert turn_state(pos)["decider"] == 2
    assert legal(pos) == {"advance d3 d2", "advance d3 e2"}
    with pytest.raises(IllegalActionError):
        pos.push("draw")
    events = play(pos, "advance d3 e2")
    assert advances(events) == [("d3", "e2", 2)]
    assert board_of(pos) == {"e2": ("dwarves:13", 2)}
    assert pos.decider == 1
    assert legal(pos) == {"draw"}


def test_advance_choices_are_made_active_player_first_then_opponent():
    # Player 1's Goblin Shanker on d3 helps its old Deathbringer (c3) eliminate Jaeger (c4) and the
    # Sharpshooter (d4), and is itself eliminated by two of player 2's Dowagers (e3 R5, d2 B5).
    # Player 1 chooses for the Deathbringer first, then player 2 chooses which Dowager takes d3.
    pos = make_position(
        board={
            "c3": ("orcs:35", 1),
            "c4": ("dwarves:31", 2),
            "d4": ("dwarves:28", 2),
            "e3": ("dwarves:29", 2),
            "d2": ("dwarves:08", 2),
        },
        hands={1: ["orcs:09"]},
    )
    play(pos, "deploy orcs:09 d3")
    assert lost_of(pos, 1) == Counter({"orcs:09": 1})
    assert lost_of(pos, 2) == Counter({"dwarves:31": 1, "dwarves:28": 1})
    assert pos.decider == 1
    assert legal(pos) == {"advance c3 c4", "advance c3 d4"}
    play(pos, "advance c3 c4")
    assert pos.decider == 2
    assert legal(pos) == {"advance e3 d3", "advance d2 d3"}
    play(pos, "advance e3 d3")
    assert pos.decider == 1
    assert board_of(pos) == {"c4": ("orcs:35", 1), "d3": ("dwarves:29", 2), "d2": ("dwarves:08", 2)}
    assert legal(pos) == {"draw"}


def test_no_berserker_advance_in_the_basic_rules():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:35"]}, variant={"rules": "basic"})
    events = play(pos, "deploy orcs:35 d3")
    assert advances(events) == []
    assert board_of(pos) == {"d3": ("orcs:35", 1)}
    assert lost_of(pos, 2) == Counter({"dwarves:28": 1})


def test_berserker_advances_after_a_fired_shots_check():
    # The Deathbringer on d3 (FR3 on e4) and the Catapult's fired shot (4) eliminate the Marauder.
    pos = make_position(board={"d3": ("orcs:35", 1), "e4": ("dwarves:19", 2)}, hands={1: ["orcs:24"]})
    play(pos, "deploy orcs:24 d2")
    assert board_of(pos)["e4"] == ("dwarves:19", 2)
    events = play(pos, "shoot d2 e4")
    assert advances(events) == [("d3", "e4", 1)]
    assert board_of(pos) == {"d2": ("orcs:24", 1), "e4": ("orcs:35", 1)}
