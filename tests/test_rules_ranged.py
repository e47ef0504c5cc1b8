"""Ranged units: clarifications 5 (declared and fired shots, the conditions of 5.2, one shot per
unit, several shooters, target grids turned by facing, no shots during an advance)."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import board_of, events_of, legal, lost_of, make_position, play, turn_state

from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.notation import position_to_json


def shots(pos) -> set[str]:
    return {a for a in legal(pos) if a.startswith("shoot ")}


# --- 5.3 declared and fired shots -----------------------------------------------------------------


def test_declared_shot_lands_only_at_the_deployments_check():
    # Orc Catapult (4) on d2 at the Slugger on d5 (def 3).
    pos = make_position(board={"d2": ("orcs:24", 1), "d5": ("dwarves:17", 2)}, hands={1: ["orcs:11"]})
    events = play(pos, "shoot d2 d5")
    assert [(e["from"], e["target"], e["damage"]) for e in events_of(events, "shot")] == [("d2", "d5", 4)]
    assert events_of(events, "eliminated") == []
    assert board_of(pos)["d5"] == ("dwarves:17", 2)
    events = play(pos, "deploy orcs:11 c1")
    assert events_of(events, "eliminated") == [{"type": "eliminated", "square": "d5", "card": "dwarves:17", "owner": 2}]


def test_fired_shot_after_the_deployment_runs_its_own_check():
    pos = make_position(board={"d2": ("orcs:24", 1), "d5": ("dwarves:17", 2)}, hands={1: ["orcs:11"]})
    play(pos, "deploy orcs:11 c1")
    assert board_of(pos)["d5"] == ("dwarves:17", 2)
    events = play(pos, "shoot d2 d5")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    kinds = [e["type"] for e in events]
    assert kinds.index("shot") < kinds.index("eliminated")


# --- 5.2 the conditions -------------------------------------------------------------------------


def test_ranged_unit_engaged_at_the_start_of_the_turn_cannot_shoot_even_after_the_engager_is_gone():
    # The Bow Pest on d3 starts engaged by the Slugger on e3 (R3, turned: points at d3); the
    # Ravager's FR5 from d2 eliminates the Slugger without the Bow Pest's help.
    pos = make_position(
        board={"d3": ("orcs:19", 1), "e3": ("dwarves:15", 2), "d6": ("dwarves:35", 2)},
        hands={1: ["orcs:04"]},
    )
    assert shots(pos) == set()
    play(pos, "deploy orcs:04 d2")
    assert lost_of(pos, 2) == Counter({"dwarves:15": 1})
    assert legal(pos) == {"draw", "recall d3"}
    with pytest.raises(IllegalActionError, match=r"start of the turn.*5\.2"):
        pos.push("shoot d3 d6")


def test_ranged_unit_engaged_when_it_would_shoot_cannot_shoot():
    # The Catapult placed on d3 (next to the friend on c2) is engaged by the Slugger's F3 from d4.
    pos = make_position(
        board={"c2": ("orcs:09", 1), "d4": ("dwarves:17", 2), "c6": ("dwarves:35", 2)},
        hands={1: ["orcs:24"]},
    )
    play(pos, "deploy orcs:24 d3")
    assert legal(pos) == {"draw", "recall c2"}
    with pytest.raises(IllegalActionError, match=r"engaged.*5\.2"):
        pos.push("shoot d3 c6")


def test_ranged_unit_engaged_by_an_enemy_berserker_that_advanced_cannot_shoot():
    # Player 1's Spikeman placed on d3 falls to the Dwarf Berserker (d4, F4); the Berserker
    # advances to d3 and stops there (Snafu Bighorn's F1 engages it), its turned FR3 now engaging
    # the Catapult on c2, which was free at the start of the turn.
    pos = make_position(
        board={"d2": ("orcs:23", 1), "c2": ("orcs:24", 1), "d4": ("dwarves:13", 2), "c5": ("dwarves:35", 2)},
        hands={1: ["orcs:11"]},
    )
    assert "shoot c2 c5" in shots(pos)
    play(pos, "deploy orcs:11 d3")
    assert board_of(pos) == {
        "d2": ("orcs:23", 1),
        "c2": ("orcs:24", 1),
        "d3": ("dwarves:13", 2),
        "c5": ("dwarves:35", 2),
    }
    assert legal(pos) == {"draw"}
    with pytest.raises(IllegalActionError, match=r"engaged.*5\.2"):
        pos.push("shoot c2 c5")


def test_ranged_unit_placed_next_to_a_friend_and_not_engaged_may_shoot_at_once():
    # The control of the test above: on b3 it is next to c2 and not engaged.
    pos = make_position(
        board={"c2": ("orcs:09", 1), "d4": ("dwarves:17", 2), "c6": ("dwarves:35", 2)},
        hands={1: ["orcs:24"]},
    )
    play(pos, "deploy orcs:24 b3")
    assert legal(pos) == {"draw", "recall c2", "shoot b3 c6"}


def test_ranged_unit_that_took_part_in_an_elimination_cannot_shoot():
    # The Catapult's R1 (c4 -> d4) and the Ravager's F3 eliminate the Slugger (def 3).
    pos = make_position(
        board={"c4": ("orcs:24", 1), "d4": ("dwarves:17", 2), "c6": ("dwarves:32", 2)},
        hands={1: ["orcs:04"]},
    )
    play(pos, "deploy orcs:04 d3")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    assert legal(pos) == {"draw"}
    with pytest.raises(IllegalActionError, match=r"took part.*5\.2"):
        pos.push("shoot c4 c6")


def test_ranged_unit_deployed_without_a_friendly_neighbour_cannot_shoot_that_turn():
    # The Bow Pest engages e4 from d3 (FR1) but has no friend next to it.
    pos = make_position(board={"e4": ("dwarves:17", 2), "d6": ("dwarves:35", 2)}, hands={1: ["orcs:19"]})
    play(pos, "deploy orcs:19 d3")
    assert legal(pos) == {"draw"}
    with pytest.raises(IllegalActionError, match=r"adjacent to a friendly unit.*5\.2"):
        pos.push("shoot d3 d6")


def test_ranged_unit_deployed_next_to_a_friend_may_shoot_that_turn():
    pos = make_position(
        board={"c2": ("orcs:09", 1), "e4": ("dwarves:17", 2), "d6": ("dwarves:35", 2)},
        hands={1: ["orcs:19"]},
    )
    play(pos, "deploy orcs:19 d3")
    assert legal(pos) == {"draw", "recall c2", "shoot d3 d6", "shoot d3 e4"}


def test_support_adjacency_is_judged_when_the_card_is_placed():
    # The Catapult is placed on d1 next to the friendly Deathbringer on c2. At the check the
    # Deathbringer (F5) and the declared Bow Pest shot (2) eliminate Jaeger Drakesbane on c3
    # (def 5), and the Deathbringer advances to c3: d1 has no friendly neighbour any more, but
    # the Catapult was deployed next to a friend, so it may still shoot.
    pos = make_position(
        board={"c2": ("orcs:35", 1), "b1": ("orcs:19", 1), "c3": ("dwarves:31", 2), "e4": ("dwarves:28", 2)},
        hands={1: ["orcs:24"]},
    )
    events = play(pos, "shoot b1 c3", "deploy orcs:24 d1")
    assert events_of(events, "advance") == [
        {"type": "advance", "from": "c2", "to": "c3", "owner": 1, "card": "orcs:35"}
    ]
    assert board_of(pos) == {
        "c3": ("orcs:35", 1),
        "b1": ("orcs:19", 1),
        "d1": ("orcs:24", 1),
        "e4": ("dwarves:28", 2),
    }
    assert legal(pos) == {"draw", "shoot d1 e4"}


def test_ranged_unit_may_shoot_when_it_engages_an_enemy_that_does_not_engage_it():
    # The Bow Pest's F2 engages the arrowless Sharpshooter on d4; nothing engages the Bow Pest.
    pos = make_position(board={"d3": ("orcs:19", 1), "d4": ("dwarves:28", 2)}, hands={1: ["orcs:11"]})
    assert shots(pos) == {"shoot d3 d4"}


# --- 5.1 one shot per unit, several shooters, targets ---------------------------------------------


def test_each_ranged_unit_shoots_at_most_once_per_turn():
    pos = make_position(
        board={"c2": ("orcs:19", 1), "e2": ("orcs:26", 1), "d4": ("dwarves:32", 2)},
        hands={1: ["orcs:11"]},
    )
    play(pos, "shoot c2 d4")
    assert shots(pos) == {"shoot e2 d4"}  # the declared shot was c2's one shot
    play(pos, "deploy orcs:11 d1")
    assert shots(pos) == {"shoot e2 d4"}
    before = position_to_json(pos)
    with pytest.raises(IllegalActionError, match=r"at most once.*5\.1"):
        pos.push("shoot c2 d4")
    assert position_to_json(pos) == before


def test_several_ranged_units_may_shoot_the_same_target():
    # Two Bow Pests (2 + 2) fired after the deployment at a Slugger (def 3).
    pos = make_position(
        board={"c2": ("orcs:19", 1), "e2": ("orcs:26", 1), "d4": ("dwarves:17", 2)},
        hands={1: ["orcs:11"]},
    )
    play(pos, "deploy orcs:11 d1", "shoot c2 d4")
    assert lost_of(pos, 2) == Counter()
    assert turn_state(pos)["shot_damage"] == {"d4": 2}
    play(pos, "shoot e2 d4")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})


def test_ranged_units_never_target_friendly_units():
    pos = make_position(
        board={"d2": ("orcs:24", 1), "d4": ("orcs:09", 1), "d5": ("dwarves:17", 2)},
        hands={1: ["orcs:11"]},
    )
    assert shots(pos) == {"shoot d2 d5"}
    with pytest.raises(IllegalActionError, match=r"friendly.*5\.1"):
        pos.push("shoot d2 d4")


def test_target_must_be_on_the_target_grid():
    # From d2 the Catapult reaches c3..e5; a5 is outside.
    pos = make_position(board={"d2": ("orcs:24", 1), "a5": ("dwarves:17", 2)}, hands={1: ["orcs:11"]})
    assert shots(pos) == set()
    with pytest.raises(IllegalActionError, match=r"target grid.*5\.1"):
        pos.push("shoot d2 a5")


def test_ranged_units_shoot_over_other_units():
    # The friend on d3 and the enemy on d4 stand between the Catapult on d2 and d5.
    pos = make_position(
        board={"d2": ("orcs:24", 1), "d3": ("orcs:09", 1), "d4": ("dwarves:32", 2), "d5": ("dwarves:17", 2)},
        hands={1: ["orcs:11"]},
    )
    assert "shoot d2 d5" in shots(pos)


def test_only_the_active_players_ranged_units_shoot():
    # Player 2's Catapult on d5 has player 1's unit on d3 in its grid, but it is player 1's turn.
    pos = make_position(
        board={"d5": ("orcs:24", 2), "d3": ("orcs:09", 1), "c2": ("orcs:19", 1)},
        hands={1: ["orcs:11"]},
    )
    assert shots(pos) == {"shoot c2 d5"}
    with pytest.raises(IllegalActionError, match="belongs to player 2"):
        pos.push("shoot d5 d3")


def test_player2_target_grid_is_turned():
    # A Bow Pest owned by player 2 on d5 reaches c4..e2 (towards row 1), not d6 behind it.
    pos = make_position(
        board={"d5": ("orcs:19", 2), "d3": ("dwarves:28", 1), "d6": ("dwarves:28", 1)},
        hands={2: ["dwarves:17"]},
        to_move=2,
    )
    assert shots(pos) == {"shoot d5 d3"}


def test_player2_axethrower_shoots_to_its_own_rear():
    # Dwarf Axethrower dwarves:07 targets the 6 squares behind it; for player 2 that is up the mat.
    pos = make_position(
        board={
            "d4": ("dwarves:07", 2),
            "c5": ("dwarves:28", 1),
            "e6": ("dwarves:28", 1),
            "d2": ("dwarves:28", 1),
            "d3": ("dwarves:28", 1),
        },
        hands={2: ["dwarves:17"]},
        to_move=2,
    )
    assert shots(pos) == {"shoot d4 c5", "shoot d4 e6"}


# --- 5.6 no shot during an advance -------------------------------------------------------------


def test_no_shots_while_a_berserker_advance_is_being_resolved():
    # The Deathbringer on d3 eliminates the Dowager (c4) and the Beastslayer (d4): its owner must
    # choose a square before anything else; the Bow Pest on b1 may shoot a4 only afterwards.
    pos = make_position(
        board={"c4": ("dwarves:04", 2), "d4": ("dwarves:11", 2), "b1": ("orcs:19", 1), "a4": ("dwarves:28", 2)},
        hands={1: ["orcs:35"]},
    )
    play(pos, "deploy orcs:35 d3")
    assert legal(pos) == {"advance d3 c4", "advance d3 d4"}
    with pytest.raises(IllegalActionError, match=r"6\.3|5\.6"):
        pos.push("shoot b1 a4")
    play(pos, "advance d3 c4")
    assert "shoot b1 a4" in legal(pos)
