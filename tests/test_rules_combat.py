"""Engagement and combat: clarifications 2 and 4 (and the rules' 'Elimination situations')."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import board_of, events_of, legal, lost_of, make_position, play, turn_state

from lordsofwar.rules import engine, mat
from lordsofwar.rules.errors import IllegalActionError


def sq(name: str) -> int:
    return mat.parse(name)


# --- 2. engagement and facing ---------------------------------------------------------------


def test_player1_arrows_point_up_the_mat():
    # orcs:30 Goblin Shanker: F4 FR1. Player 1 faces +y: F points at d4, FR at e4.
    pos = make_position(
        board={
            "d3": ("orcs:30", 1),
            "d4": ("dwarves:28", 2),
            "e4": ("dwarves:28", 2),
            "c4": ("dwarves:28", 2),
            "d2": ("dwarves:28", 2),
        }
    )
    assert engine.engaged(pos, sq("d4"), 2)
    assert engine.engaged(pos, sq("e4"), 2)
    assert not engine.engaged(pos, sq("c4"), 2)  # no FL arrow
    assert not engine.engaged(pos, sq("d2"), 2)  # behind it


def test_player2_arrows_are_turned_to_face_down_the_mat():
    # The same card owned by player 2 faces -y: F points at d3, FR (its right is -x) at c3.
    pos = make_position(
        board={
            "d4": ("orcs:30", 2),
            "d3": ("dwarves:28", 1),
            "c3": ("dwarves:28", 1),
            "d5": ("dwarves:28", 1),
            "e5": ("dwarves:28", 1),
            "e3": ("dwarves:28", 1),
        }
    )
    assert engine.engaged(pos, sq("d3"), 1)
    assert engine.engaged(pos, sq("c3"), 1)
    assert not engine.engaged(pos, sq("d5"), 1)  # where F would point unturned
    assert not engine.engaged(pos, sq("e5"), 1)  # where FR would point unturned
    assert not engine.engaged(pos, sq("e3"), 1)


def test_player2_side_arrow_is_turned():
    # dwarves:15 Dwarf Slugger: R3 only. Player 2's right is -x, so from d4 it engages c4.
    pos = make_position(board={"d4": ("dwarves:15", 2), "c4": ("orcs:09", 1), "e4": ("orcs:09", 1)})
    assert engine.engaged(pos, sq("c4"), 1)
    assert not engine.engaged(pos, sq("e4"), 1)


def test_player2_back_arrow_damages_the_square_up_the_mat():
    # orcs:33 Goblin Shanker (BL1 B4) owned by player 2 on d2: its back points at d3.
    # Player 1 deploys orcs:09 (def 3) on d3 to engage d4; the B4 from d2 eliminates it.
    pos = make_position(
        board={"d2": ("orcs:33", 2), "d4": ("dwarves:28", 2)},
        hands={1: ["orcs:09"]},
    )
    play(pos, "deploy orcs:09 d3")
    assert lost_of(pos, 1) == Counter({"orcs:09": 1})
    assert board_of(pos) == {"d2": ("orcs:33", 2), "d4": ("dwarves:28", 2)}


def test_friendly_units_are_never_engaged_by_each_other():
    pos = make_position(board={"d3": ("orcs:30", 1), "d4": ("orcs:09", 1)})
    assert not engine.engaged(pos, sq("d4"), 1)


def test_ranged_target_grid_does_not_engage():
    # orcs:24 Orc Catapult (L1 R1) targets d5 from d3 but points no arrow at it.
    pos = make_position(board={"d3": ("orcs:24", 1), "d5": ("dwarves:17", 2)})
    assert not engine.engaged(pos, sq("d5"), 2)


# --- 4. combat and elimination --------------------------------------------------------------


def test_damage_greater_than_defence_eliminates():
    # orcs:09 F4 against Dwarf Slugger dwarves:17 (def 3), whose F3 on d3 does not beat def 3.
    pos = make_position(board={"d4": ("dwarves:17", 2)}, hands={1: ["orcs:09"]})
    events = play(pos, "deploy orcs:09 d3")
    assert board_of(pos) == {"d3": ("orcs:09", 1)}
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    assert lost_of(pos, 1) == Counter()
    assert events_of(events, "eliminated") == [{"type": "eliminated", "square": "d4", "card": "dwarves:17", "owner": 2}]


def test_damage_equal_to_defence_does_not_eliminate():
    # orcs:30 F4 against the Dwarf Sharpshooter dwarves:28 (def 4, no arrows).
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    events = play(pos, "deploy orcs:30 d3")
    assert board_of(pos) == {"d3": ("orcs:30", 1), "d4": ("dwarves:28", 2)}
    assert events_of(events, "eliminated") == []


def test_one_deployment_eliminates_several_enemy_units_at_once():
    # Gonke Longtooth orcs:01 (FL5 F5 FR5, def 6) between three Dwarf Sluggers (def 3, F3).
    pos = make_position(
        board={"c4": ("dwarves:35", 2), "d4": ("dwarves:35", 2), "e4": ("dwarves:35", 2)},
        hands={1: ["orcs:01"]},
    )
    events = play(pos, "deploy orcs:01 d3")
    assert board_of(pos) == {"d3": ("orcs:01", 1)}
    assert lost_of(pos, 2) == Counter({"dwarves:35": 3})
    assert {e["square"] for e in events_of(events, "eliminated")} == {"c4", "d4", "e4"}


def test_suicide_move_eliminates_the_placed_unit_and_the_enemy_together():
    # orcs:09 (F4, def 3) against the Dwarf Dowager dwarves:04 (F5, def 2): both go.
    pos = make_position(board={"d4": ("dwarves:04", 2)}, hands={1: ["orcs:09"]})
    play(pos, "deploy orcs:09 d3")
    assert board_of(pos) == {}
    assert lost_of(pos, 1) == Counter({"orcs:09": 1})
    assert lost_of(pos, 2) == Counter({"dwarves:04": 1})
    assert legal(pos) == {"draw"}


def test_placed_unit_may_be_destroyed_without_eliminating_anyone():
    # orcs:09 (F4) against Gordona Ironhelm dwarves:32 (def 6, F4 on d3).
    pos = make_position(board={"d4": ("dwarves:32", 2)}, hands={1: ["orcs:09"]})
    play(pos, "deploy orcs:09 d3")
    assert board_of(pos) == {"d4": ("dwarves:32", 2)}
    assert lost_of(pos, 1) == Counter({"orcs:09": 1})
    assert lost_of(pos, 2) == Counter()


def test_friendly_units_never_damage_each_other():
    # orcs:09 (F4, def 3) placed on d3 below a friendly orcs:33 (B4, def 3) pointing back at it;
    # each would eliminate the other if friends fought. orcs:09's FL1 engages c4.
    pos = make_position(
        board={"d4": ("orcs:33", 1), "c4": ("dwarves:28", 2)},
        hands={1: ["orcs:09"]},
    )
    events = play(pos, "deploy orcs:09 d3")
    assert events_of(events, "eliminated") == []
    assert board_of(pos) == {"d3": ("orcs:09", 1), "d4": ("orcs:33", 1), "c4": ("dwarves:28", 2)}


def test_units_of_the_player_not_to_move_fight_too():
    # All units fight on every turn: in player 2's turn, player 1's old Gonke Longtooth on c2
    # (F5) eliminates the Slugger player 2 places on c3 to engage it (F3, def 3).
    pos = make_position(board={"c2": ("orcs:01", 1)}, hands={2: ["dwarves:17"]}, to_move=2)
    play(pos, "deploy dwarves:17 c3")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    assert board_of(pos) == {"c2": ("orcs:01", 1)}


def test_eliminated_units_go_to_their_owners_lost_pile():
    pos = make_position(
        board={"d4": ("dwarves:04", 2)},
        hands={1: ["orcs:09"]},
        lost={1: ["orcs:30"], 2: ["dwarves:35"]},
    )
    play(pos, "deploy orcs:09 d3")
    assert lost_of(pos, 1) == Counter({"orcs:30": 1, "orcs:09": 1})
    assert lost_of(pos, 2) == Counter({"dwarves:35": 1, "dwarves:04": 1})


# --- 4.4 took part in an elimination ----------------------------------------------------------


def test_old_unit_whose_arrow_counted_took_part_and_cannot_be_recalled():
    # d4 Slugger (def 3) takes F3 from the new Ravager on d3 and FR1 from the old orcs:30 on c3.
    pos = make_position(
        board={"c3": ("orcs:30", 1), "a1": ("orcs:09", 1), "d4": ("dwarves:17", 2)},
        hands={1: ["orcs:04"]},
    )
    play(pos, "deploy orcs:04 d3")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    assert legal(pos) == {"draw", "recall a1"}
    assert "c3" in turn_state(pos)["took_part"]
    with pytest.raises(IllegalActionError, match=r"7\.2"):
        pos.push("recall c3")


def test_unit_that_shot_contributes_no_arrow_damage_and_does_not_take_part():
    # The Catapult on c4 (R1 on d4) declares a shot at c6; d4 (def 3) then falls to F3 + FR1
    # of orcs:04 on d3 and orcs:30 on c3 alone. The Catapult neither counted nor took part.
    pos = make_position(
        board={
            "c4": ("orcs:24", 1),
            "c3": ("orcs:30", 1),
            "d4": ("dwarves:17", 2),
            "c6": ("dwarves:32", 2),
        },
        hands={1: ["orcs:04"]},
    )
    play(pos, "shoot c4 c6", "deploy orcs:04 d3")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
    assert legal(pos) == {"draw", "recall c4"}


def test_shot_damage_follows_a_unit_that_advances():
    # Player 1 declares a Bow Pest shot (2) at the Dwarf Berserker on d5 (def 2: survives), then
    # places a Spikeman (support, next to c3) on d4. The Berserker's F4 eliminates it, so the
    # Berserker (player 2's) advances into d4, where the Ravager's FR2 from c3 plus the 2 shot
    # damage it carries (4 > 2) eliminate it. Without the carried damage it would survive (2).
    pos = make_position(
        board={"d2": ("orcs:19", 1), "c3": ("orcs:03", 1), "d5": ("dwarves:13", 2)},
        hands={1: ["orcs:11"]},
    )
    events = play(pos, "shoot d2 d5", "deploy orcs:11 d4")
    assert events_of(events, "advance") == [
        {"type": "advance", "from": "d5", "to": "d4", "owner": 2, "card": "dwarves:13"}
    ]
    assert lost_of(pos, 1) == Counter({"orcs:11": 1})
    assert lost_of(pos, 2) == Counter({"dwarves:13": 1})
    assert board_of(pos) == {"d2": ("orcs:19", 1), "c3": ("orcs:03", 1)}


def test_shot_damage_without_the_carried_shot_the_advanced_berserker_survives():
    # The control of the test above: no shot, so the Berserker stands on d4 with 2 damage.
    pos = make_position(
        board={"d2": ("orcs:19", 1), "c3": ("orcs:03", 1), "d5": ("dwarves:13", 2)},
        hands={1: ["orcs:11"]},
    )
    play(pos, "deploy orcs:11 d4")
    assert board_of(pos) == {"d2": ("orcs:19", 1), "c3": ("orcs:03", 1), "d4": ("dwarves:13", 2)}


def test_declared_shot_and_later_fired_shot_add_up_on_one_target():
    # Two Bow Pests (2 each) on a Slugger (def 3): the declared shot alone leaves it standing
    # after the deployment's check; the fired one brings it to 4 and eliminates it.
    pos = make_position(
        board={"c2": ("orcs:19", 1), "e2": ("orcs:26", 1), "d4": ("dwarves:17", 2)},
        hands={1: ["orcs:11"]},
    )
    play(pos, "shoot c2 d4", "deploy orcs:11 d1")
    assert board_of(pos)["d4"] == ("dwarves:17", 2)
    assert turn_state(pos)["shot_damage"] == {"d4": 2}
    events = play(pos, "shoot e2 d4")
    assert events_of(events, "eliminated") == [{"type": "eliminated", "square": "d4", "card": "dwarves:17", "owner": 2}]
    # Both shots counted in the elimination, so both shooters took part (4.4): no recall.
    assert legal(pos) == {"draw"}


def test_melee_damage_is_recomputed_at_each_check():
    # The Catapult's R1 on d4 counts at the deployment's check (1 + 1 = 2 on the def-3 Slugger);
    # once it fires at c6 it deals no melee (5.5), so the Bow Pest's 2 makes 1 + 2 = 3: no kill.
    pos = make_position(
        board={
            "c4": ("orcs:24", 1),
            "d1": ("orcs:19", 1),
            "d4": ("dwarves:17", 2),
            "c6": ("dwarves:32", 2),
        },
        hands={1: ["orcs:17"]},
    )
    play(pos, "deploy orcs:17 d3", "shoot c4 c6", "shoot d1 d4")
    assert board_of(pos)["d4"] == ("dwarves:17", 2)
    assert lost_of(pos, 2) == Counter()


def test_melee_of_a_ranged_unit_counts_while_it_has_not_shot():
    # The control: without the Catapult's shot its R1 still counts: 1 + 1 + 2 = 4 > 3.
    pos = make_position(
        board={
            "c4": ("orcs:24", 1),
            "d1": ("orcs:19", 1),
            "d4": ("dwarves:17", 2),
            "c6": ("dwarves:32", 2),
        },
        hands={1: ["orcs:17"]},
    )
    play(pos, "deploy orcs:17 d3", "shoot d1 d4")
    assert lost_of(pos, 2) == Counter({"dwarves:17": 1})
