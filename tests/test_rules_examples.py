"""The worked examples of the rules text (yucata-rules-en.txt), with the reference card data.

Cards: Orc Deathbringer orcs:15 (FL5 F5 FR3, def 2) and orcs:35 (FL3 F5 FR3, def 2); Dwarf
Marauder dwarves:19 (FL2 F4 L1, def 4); Dwarf Slugger dwarves:15 (R3, def 3) and dwarves:17
(F3, def 3); Orc Ravager orcs:03 (FL5 F3 FR2 R1, def 3) and orcs:04 (FL2 F3 FR5 L1, def 3);
Goblin Shanker orcs:06 (B4 BR1, def 3) and orcs:09 (FL1 F4, def 3); Orc Catapult orcs:24
(L1 R1, def 4, 4 damage, 9 squares in front); Dwarf Axethrower dwarves:07 (BL3 B3 BR3, def 4,
3 damage, 6 squares behind).
"""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import all_squares, board_of, events_of, legal, lost_of, make_position, play

from lordsofwar.rules import mat

DIRECTIONS = mat.DIRECTION_VECTORS


def damage_on(pos, square: str) -> int:
    """The melee damage on the unit on ``square``, computed here from the card facts alone
    (clarifications 2.1, 4.1: enemy arrows turned by their owner's facing), as the examples do."""
    tx, ty = mat.coords(mat.parse(square))
    target = pos.board[mat.parse(square)]
    total = 0
    for sq, unit in pos.board.items():
        if unit.owner == target.owner:
            continue
        x, y = mat.coords(sq)
        facing = 1 if unit.owner == 1 else -1
        for direction, value in unit.card.facts()["attacks"].items():
            dx, dy = DIRECTIONS[direction]
            if (x + dx * facing, y + dy * facing) == (tx, ty):
                total += value
    return total


# --- 'A one-on-one combat example' --------------------------------------------------------------

ONE_ON_ONE = {"c4": ("dwarves:19", 2), "e4": ("dwarves:15", 2)}


def test_one_on_one_example_damages():
    # The Deathbringer (OD) on d3: FL5 on the Marauder (DM, c4), FR3 on the Slugger (DS, e4).
    # The rules text has DM strike OD for 1; with the reference cards the Marauder's FL2 points
    # at d3, which OD (def 2) still survives.
    pos = make_position(board={**ONE_ON_ONE, "d3": ("orcs:15", 1)}, variant={"rules": "basic"})
    assert damage_on(pos, "c4") == 5  # > 4: eliminated
    assert damage_on(pos, "e4") == 3  # not > 3: stays
    assert damage_on(pos, "d3") == 2  # not > 2: OD survives


def test_one_on_one_example_deathbringer_eliminates_the_marauder_not_the_slugger():
    pos = make_position(board=ONE_ON_ONE, hands={1: ["orcs:15"]}, variant={"rules": "basic"})
    events = play(pos, "deploy orcs:15 d3")
    assert board_of(pos) == {"d3": ("orcs:15", 1), "e4": ("dwarves:15", 2)}
    assert lost_of(pos, 2) == Counter({"dwarves:19": 1})
    assert lost_of(pos, 1) == Counter()
    assert [e["square"] for e in events_of(events, "eliminated")] == ["c4"]


# --- 'A two against one combat example' ------------------------------------------------------------

TWO_AGAINST_ONE = {"d4": ("dwarves:19", 2), "d5": ("orcs:06", 1)}


def test_two_against_one_example_damages():
    # The Shanker (GS, d5) strikes the Marauder with B4, the Ravager (OR, e3) with FL5: 9 > 4.
    # The Marauder strikes OR with FL2 (def 3 survives); no Marauder arrow reaches GS with the
    # reference cards (the rules text says 1; either way GS survives).
    pos = make_position(board={**TWO_AGAINST_ONE, "e3": ("orcs:03", 1)})
    assert damage_on(pos, "d4") == 4 + 5
    assert damage_on(pos, "e3") == 2
    assert damage_on(pos, "d5") == 0


def test_two_against_one_example_marauder_eliminated_both_orcs_survive():
    pos = make_position(board=TWO_AGAINST_ONE, hands={1: ["orcs:03"]})
    play(pos, "deploy orcs:03 e3")
    assert board_of(pos) == {"d5": ("orcs:06", 1), "e3": ("orcs:03", 1)}
    assert lost_of(pos, 2) == Counter({"dwarves:19": 1})
    assert lost_of(pos, 1) == Counter()


def test_two_against_one_example_the_shanker_alone_does_not_eliminate():
    pos = make_position(board=TWO_AGAINST_ONE)
    assert damage_on(pos, "d4") == 4  # not > 4


# --- 'A ranged attack combat example' ----------------------------------------------------------------


def test_catapult_example_placed_behind_the_shanker_shoots_the_slugger():
    # GS (d3) and DS (d5) do not engage each other; the Catapult placed behind GS (support unit)
    # shoots DS for 4 > 3.
    pos = make_position(board={"d3": ("orcs:09", 1), "d5": ("dwarves:17", 2)}, hands={1: ["orcs:24"]})
    assert damage_on(pos, "d5") == 0 and damage_on(pos, "d3") == 0
    play(pos, "deploy orcs:24 d2")
    assert lost_of(pos, 2) == Counter()
    events = play(pos, "shoot d2 d5")
    assert [(e["from"], e["target"], e["damage"]) for e in events_of(events, "shot")] == [("d2", "d5", 4)]
    assert board_of(pos) == {"d2": ("orcs:24", 1), "d3": ("orcs:09", 1)}
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})


# --- 'A combined combat involving a ranged attack example' -------------------------------------------


def test_catapult_and_deathbringer_example_three_plus_four_eliminates_the_marauder():
    # OD on d3 engages DM on e4 for 3 (FR3); DM does not engage OD. The Catapult placed next to OD
    # (d2) shoots DM for 4: 3 + 4 = 7 > 4. Basic rules, as in the example (no berserker advance).
    pos = make_position(
        board={"d3": ("orcs:35", 1), "e4": ("dwarves:19", 2)}, hands={1: ["orcs:24"]}, variant={"rules": "basic"}
    )
    assert damage_on(pos, "e4") == 3
    assert damage_on(pos, "d3") == 0
    play(pos, "deploy orcs:24 d2")
    assert board_of(pos)["e4"] == ("dwarves:19", 2)
    play(pos, "shoot d2 e4")
    assert board_of(pos) == {"d2": ("orcs:24", 1), "d3": ("orcs:35", 1)}
    assert lost_of(pos, 2) == Counter({"dwarves:19": 1})


def test_catapult_and_deathbringer_example_with_a_declared_shot():
    # The same with the shot declared before the deployment: it lands at the deployment's check.
    pos = make_position(
        board={"d3": ("orcs:35", 1), "e4": ("dwarves:19", 2), "e2": ("orcs:24", 1)},
        hands={1: ["orcs:11"]},
        variant={"rules": "basic"},
    )
    play(pos, "shoot e2 e4", "deploy orcs:11 c2")
    assert lost_of(pos, 2) == Counter({"dwarves:19": 1})


# --- Figures 1 and 2: the target grids --------------------------------------------------------------


def grid_of(shooter: str, square: str, owner: int) -> set[str]:
    """The squares the ranged unit on ``square`` may shoot with an enemy on every other square."""
    enemy = 3 - owner
    board = {s: ("dwarves:28", enemy) for s in all_squares() if s != square}  # arrowless, def 4
    board[square] = (shooter, owner)
    pos = make_position(board=board, hands={1: [], 2: []}, to_move=owner)
    return {a.split()[2] for a in legal(pos) if a.startswith(f"shoot {square} ")}


@pytest.mark.parametrize("axethrower", ["dwarves:07", "dwarves:14"])
def test_axethrower_shoots_the_six_squares_behind_it(axethrower):
    assert grid_of(axethrower, "d4", 1) == {"c3", "d3", "e3", "c2", "d2", "e2"}


@pytest.mark.parametrize("axethrower", ["dwarves:07", "dwarves:14"])
def test_axethrower_of_player2_shoots_the_six_squares_behind_it_up_the_mat(axethrower):
    assert grid_of(axethrower, "d3", 2) == {"c4", "d4", "e4", "c5", "d5", "e5"}


@pytest.mark.parametrize("catapult", ["orcs:24", "orcs:36"])
def test_orc_catapult_shoots_the_nine_squares_in_front_of_it(catapult):
    assert grid_of(catapult, "d3", 1) == {"c4", "d4", "e4", "c5", "d5", "e5", "c6", "d6", "e6"}


@pytest.mark.parametrize("catapult", ["orcs:24", "orcs:36"])
def test_orc_catapult_of_player2_shoots_the_nine_squares_in_front_of_it_down_the_mat(catapult):
    assert grid_of(catapult, "d4", 2) == {"c3", "d3", "e3", "c2", "d2", "e2", "c1", "d1", "e1"}


def test_axethrower_rear_shot_with_the_reference_card():
    # Player 1's Axethrower on d4 declares a shot at the Deathbringer (def 2) behind it on d2.
    pos = make_position(
        board={"d4": ("dwarves:07", 1), "d2": ("orcs:02", 2), "d6": ("orcs:09", 2)},
        hands={1: ["dwarves:12"]},
    )
    assert {a for a in legal(pos) if a.startswith("shoot")} == {"shoot d4 d2"}
    play(pos, "shoot d4 d2", "deploy dwarves:12 e4")
    assert lost_of(pos, 2) == Counter({"orcs:02": 1})


# --- 'Examples of Deployment': the Ravager against the Marauder ------------------------------------------


def test_ravager_deployment_example_allowed_squares():
    # Orc Ravager orcs:04 (FL2 F3 FR5 L1) against the Marauder on d4.
    pos = make_position(board={"d4": ("dwarves:06", 2)}, hands={1: ["orcs:04"]})
    assert legal(pos) == {"deploy orcs:04 c3", "deploy orcs:04 d3", "deploy orcs:04 e3", "deploy orcs:04 e4"}


def test_ravager_cannot_be_placed_behind_or_to_the_right_hand_side_of_the_marauder():
    # Behind the Marauder (row 5) and on its right-hand side (c4, player 2's right) no Ravager
    # arrow points at it.
    pos = make_position(board={"d4": ("dwarves:06", 2)}, hands={1: ["orcs:04"]})
    for square in ("c5", "d5", "e5", "c4"):
        assert f"deploy orcs:04 {square}" not in legal(pos)
        with pytest.raises(Exception, match=r"Engagement Rule.*3\.3"):
            pos.push(f"deploy orcs:04 {square}")


def test_mirrored_ravager_deployment_squares():
    # The mirrored Ravager orcs:03 (FL5 F3 FR2 R1): e3 by FL, d3 by F, c3 by FR, c4 by R.
    pos = make_position(board={"d4": ("dwarves:06", 2)}, hands={1: ["orcs:03"]})
    assert legal(pos) == {"deploy orcs:03 c3", "deploy orcs:03 d3", "deploy orcs:03 e3", "deploy orcs:03 c4"}
