"""A demanding player's review of the rules engine: the less-travelled paths of the rules.

Every test states what ``clarifications.md`` (or, where it is silent, the Yucata rule text) asks
for, citing the section. The three ``test_shooter_deals_no_melee_*`` tests caught an engine bug
(5.5: once every shot target of the turn had been eliminated, ``damage()`` counted the arrows of
units that had shot again, in later advance and move checks); they fail on the engine before its
fix and guard against a regression.

The last part is a property-style check: a few hundred random games (random armies, mercenary
decks, every variant) played against an independent reference of the turn (damage and checks,
berserker rounds, deployment, shots, recall, the end of the turn), asserting the invariants after
every action.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from helpers import (
    board_of,
    card_set_with,
    deploys,
    events_of,
    legal,
    lost_of,
    make_position,
    play,
    turn_state,
)

from lordsofwar.rules import mat
from lordsofwar.rules.cards import CORE, RANKS, Card, CardSet
from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.notation import deal
from lordsofwar.rules.state import (
    DEPLOYED,
    ENGAGED_AT_START,
    HAND_LIMIT,
    SHOT,
    Action,
    Position,
    Variant,
)


def advances(events) -> list[tuple[str, str, int]]:
    return [(e["from"], e["to"], e["owner"]) for e in events_of(events, "advance")]


def eliminated(events) -> list[str]:
    return [e["square"] for e in events_of(events, "eliminated")]


# Card pack units for the movement rule (7.1): a ranged unit that can step forward, an infantry
# unit that steps forward or left, and a berserker that steps forward.
SLINGER = {
    "id": "test:01",
    "name": "Test Slinger",
    "rank": "regular",
    "class": "ranged",
    "defence": 3,
    "attacks": "F4",
    "ranged": {"damage": 4, "grid": ["###", "###", "###", ".U."]},
    "moves": "F",
}
STRIDER = {
    "id": "test:02",
    "name": "Test Strider",
    "rank": "regular",
    "class": "infantry",
    "defence": 3,
    "attacks": "F4",
    "moves": "F L",
}
RAGER = {
    "id": "test:03",
    "name": "Test Rager",
    "rank": "regular",
    "class": "berserker",
    "defence": 2,
    "attacks": "F5",
    "moves": "F",
}
PACK = card_set_with(SLINGER, STRIDER, RAGER)


# --- 5.5: a unit that has shot deals no melee damage for the rest of the turn -----------------------
#
# Cards: Narcissus Foxglove elves:10 (ranged 4, F4 L3 R3, def 5); Orc Deathbringer orcs:35
# (berserker FL3 F5 FR3, def 2); Dwarf Sharpshooter dwarves:28 (no arrows, def 4); Dwarf Slugger
# dwarves:17 (F3, def 3); Skink Dartspitter lizardmen:17 (no arrows, def 3).


def test_shooter_deals_no_melee_in_an_advance_round_check_after_its_target_fell():
    """5.5 + 4.1 + 6.3: the declared shot of Narcissus (d3) eliminates the Slugger on d6 at the
    deployment's check; the new Deathbringer (e2) eliminates the Sharpshooter on e3 and advances
    there. In the round's check the Sharpshooter on d4 (def 4) takes the Deathbringer's FL3 only:
    Narcissus has shot, so its F4 on d4 counts for nothing this turn. d4 must survive."""
    pos = make_position(
        board={
            "d3": ("elves:10", 1),
            "d4": ("dwarves:28", 2),
            "e3": ("dwarves:28", 2),
            "d6": ("dwarves:17", 2),
        },
        hands={1: ["orcs:35"]},
    )
    events = play(pos, "shoot d3 d6", "deploy orcs:35 e2")
    assert sorted(eliminated(events)) == ["d6", "e3"]
    assert advances(events) == [("e2", "e3", 1)]
    assert board_of(pos) == {"d3": ("elves:10", 1), "d4": ("dwarves:28", 2), "e3": ("orcs:35", 1)}


def test_control_shooter_melee_is_excluded_while_a_shot_target_still_stands():
    """5.5, the control of the test above: with a second, surviving shot target on the mat
    (Gordona Ironhelm on c6 keeps a shot of the Bow Pest on c3), d4 survives the round check."""
    pos = make_position(
        board={
            "d3": ("elves:10", 1),
            "d4": ("dwarves:28", 2),
            "e3": ("dwarves:28", 2),
            "d6": ("dwarves:17", 2),
            "c3": ("orcs:19", 1),
            "c6": ("dwarves:32", 2),
        },
        hands={1: ["orcs:35"]},
    )
    events = play(pos, "shoot d3 d6", "shoot c3 c6", "deploy orcs:35 e2")
    assert advances(events) == [("e2", "e3", 1)]
    assert board_of(pos)["d4"] == ("dwarves:28", 2)


def test_shooter_deals_no_melee_in_a_move_check_after_its_target_fell():
    """5.5 + 7.1: the Slinger (card pack: ranged 4, F4, moves F) on d2 shoots the Slugger on e4
    (eliminated), then steps to d3. Its F4 now points at the Skink on d4 (def 3), but a unit that
    has shot deals no melee for the rest of the turn: the Skink stays."""
    pos = make_position(
        board={"d2": ("test:01", 1), "e4": ("dwarves:17", 2), "d4": ("lizardmen:17", 2)},
        hands={1: []},
        cards=PACK,
    )
    events = play(pos, "shoot d2 e4")
    assert eliminated(events) == ["e4"]
    events = play(pos, "move d2 d3")
    assert eliminated(events) == []
    assert board_of(pos) == {"d3": ("test:01", 1), "d4": ("lizardmen:17", 2)}


def test_shooter_deals_no_melee_in_the_advance_check_started_by_its_own_fired_shot():
    """5.5 + 6.3: the Catapult (orcs:24, L1 R1) on d4 fires at Dro'ka Klantos on d5 (def 5);
    with the Deathbringer's B5 from d6 (orcs:02) it is eliminated, and the Deathbringer advances
    into d5. No shot target is left. In the round's check the Skink on e4 (def 3) takes the
    Deathbringer's BR3, and nothing from the Catapult, which has shot: 3, it stays (with the
    Catapult's R1 it would be 4 > 3)."""
    pos = make_position(
        board={
            "d4": ("orcs:24", 1),
            "e4": ("lizardmen:17", 2),
            "d5": ("lizardmen:24", 2),
            "d6": ("orcs:02", 1),
        },
        hands={1: []},
    )
    events = play(pos, "shoot d4 d5")
    assert eliminated(events)[:1] == ["d5"]
    assert advances(events)[:1] == [("d6", "d5", 1)]
    assert board_of(pos) == {"d4": ("orcs:24", 1), "d5": ("orcs:02", 1), "e4": ("lizardmen:17", 2)}


# --- 6: berserker rounds -------------------------------------------------------------------------
#
# Player 1: Orc Deathbringers orcs:35 (FL3 F5 FR3) and orcs:02 (BL3 B5 BR3), def 2; Goblin
# Shankers orcs:09 (FL1 F4) and orcs:06 (B4 BR1), def 3. Player 2 (arrows turned): Dwarf
# Berserker dwarves:30 (FL3 F4 FR4, def 2), Dowagers dwarves:04 (F5), dwarves:29 (R5), def 2.


def test_both_players_berserkers_chain_over_three_rounds_active_player_first():
    """6.1-6.4: the Shanker placed on d3 helps the old Deathbringer (c3) eliminate the
    Sharpshooter on d4 and falls to the Dwarf Berserker's FR4 from e4. Round 1: player 1's
    Deathbringer takes d4, then player 2's Berserker takes d3 (active player first). Their check
    eliminates d5 (F5) and d2 (F4): round 2, again player 1 first. In the last check each
    berserker and the unit facing it eliminate each other: eliminated berserkers never advance."""
    pos = make_position(
        board={
            "c3": ("orcs:35", 1),
            "d4": ("dwarves:28", 2),
            "e4": ("dwarves:30", 2),
            "d2": ("orcs:06", 1),
            "d5": ("dwarves:28", 2),
            "d6": ("dwarves:04", 2),
            "d1": ("orcs:09", 1),
        },
        hands={1: ["orcs:09"]},
    )
    events = play(pos, "deploy orcs:09 d3")
    assert advances(events) == [("c3", "d4", 1), ("e4", "d3", 2), ("d4", "d5", 1), ("d3", "d2", 2)]
    kinds = [e["type"] for e in events if e["type"] in ("eliminated", "advance")]
    assert kinds == ["eliminated"] * 2 + ["advance"] * 2 + ["eliminated"] * 2 + ["advance"] * 2 + ["eliminated"] * 4
    assert board_of(pos) == {}
    assert lost_of(pos, 1) == Counter({"orcs:09": 2, "orcs:06": 1, "orcs:35": 1})
    assert lost_of(pos, 2) == Counter({"dwarves:28": 2, "dwarves:30": 1, "dwarves:04": 1})
    assert legal(pos) == {"draw"}


def test_enemy_berserker_engaged_by_an_advance_of_the_same_round_still_advances():
    """6.1 + 6.3 (ambiguous; the engine's documented choice): eligibility is judged right after
    the check. Player 1's Deathbringer (c1) advances into d2 and its FR3 now points at player 2's
    Dowager on e3, which is waiting to advance into d3: the Dowager still advances (the round's
    advances are simultaneous), and the round's check then eliminates it on d3 (F5)."""
    pos = make_position(
        board={"c1": ("orcs:35", 1), "d2": ("dwarves:28", 2), "e3": ("dwarves:29", 2)},
        hands={1: ["orcs:06"]},
    )
    events = play(pos, "deploy orcs:06 d3")
    assert advances(events) == [("c1", "d2", 1), ("e3", "d3", 2), ("d2", "d3", 1)]
    assert board_of(pos) == {"d3": ("orcs:35", 1)}


def test_exclusive_single_square_advances_by_itself_then_the_owner_picks_among_contested_pairs():
    """6.4: three declared Bow Pest shots (2 each) and the old Deathbringers' back arrows
    eliminate Gordona Ironhelm on d4 (c5 BR3 + e5 BL3), the Impaler on f4 (e5 BR3) and the
    Sharpshooter on a4 (b5 BL3). b5's one square is its own: it advances by itself. c5 (d4 only)
    and e5 (d4 or f4) contend: the owner picks any (berserker, square) pair, and a berserker left
    without a free square stays (6.2)."""
    pos = make_position(
        board={
            "c5": ("orcs:02", 1),
            "e5": ("orcs:10", 1),
            "d4": ("dwarves:32", 2),
            "f4": ("dwarves:34", 2),
            "b5": ("orcs:02", 1),
            "a4": ("dwarves:28", 2),
            "d2": ("orcs:19", 1),
            "b2": ("orcs:26", 1),
            "e2": ("orcs:31", 1),
        },
        hands={1: ["orcs:11"]},
    )
    # Declared shots: d4 takes 2 + BR3 + BL3 = 8 > 6; a4 takes 2 + BL3 = 5 > 4; f4 takes 2 + BR3 = 5 > 3.
    events = play(pos, "shoot d2 d4", "shoot b2 a4", "shoot e2 f4", "deploy orcs:11 c1")
    assert sorted(eliminated(events)) == ["a4", "d4", "f4"]
    assert advances(events) == [("b5", "a4", 1)]
    assert pos.decider == 1
    assert legal(pos) == {"advance c5 d4", "advance e5 d4", "advance e5 f4"}
    events = play(pos, "advance e5 d4")
    assert advances(events) == [("e5", "d4", 1)]  # c5 has no free square left: it stays
    assert board_of(pos)["c5"] == ("orcs:02", 1)
    assert "f4" not in board_of(pos)
    assert legal(pos) == {"draw"}


def test_deployed_berserker_with_two_squares_chooses_first_even_before_a_single_square_berserker():
    """6.2 + 6.4: the Deathbringer deployed on d3 helped eliminate the Sharpshooter on c4 (with
    b3's FR3) and the Beastslayer on d4 (with e3's FL3). It goes first and its owner picks d4;
    then b3, whose one square c4 is free and not wanted by any other waiting berserker, advances
    by itself, and e3, whose only square was taken, stays."""
    board = {"c4": ("dwarves:28", 2), "d4": ("dwarves:11", 2), "e3": ("orcs:35", 1), "b3": ("orcs:35", 1)}
    pos = make_position(board=board, hands={1: ["orcs:35"]})
    play(pos, "deploy orcs:35 d3")
    assert legal(pos) == {"advance d3 c4", "advance d3 d4"}
    events = play(pos, "advance d3 d4")
    assert advances(events) == [("d3", "d4", 1), ("b3", "c4", 1)]
    assert board_of(pos)["e3"] == ("orcs:35", 1)


def test_berserker_engaged_only_by_a_unit_eliminated_in_the_same_check_advances():
    """6.1: 'not engaged by a remaining enemy unit'. The Impaler on d4 points F1 at the
    Deathbringer placed on d3, but the Deathbringer's F5 eliminates it in that check: nothing
    engages the berserker any more, so it advances. With a second, surviving engager (the
    Impaler on c4, FL1 turned onto d3) it stays."""
    pos = make_position(board={"d4": ("dwarves:12", 2)}, hands={1: ["orcs:35"]})
    events = play(pos, "deploy orcs:35 d3")
    assert advances(events) == [("d3", "d4", 1)]
    pos = make_position(board={"d4": ("dwarves:12", 2), "c4": ("dwarves:12", 2)}, hands={1: ["orcs:35"]})
    events = play(pos, "deploy orcs:35 d3")
    assert eliminated(events) == ["d4"]  # c4 takes FL3 = 3, its defence: it stays
    assert advances(events) == []
    assert board_of(pos) == {"d3": ("orcs:35", 1), "c4": ("dwarves:12", 2)}


def test_opponent_berserker_advances_after_a_move_into_its_arrows():
    """7.1 + 6.1 + 6.3: a card-pack Strider steps from d2 to d3, into the FL4 of player 2's
    Dwarf Berserker on c4, and is eliminated by the move's check; the Berserker (player 2's, not
    engaged) advances into d3 inside player 1's turn."""
    pos = make_position(board={"d2": ("test:02", 1), "c4": ("dwarves:13", 2)}, hands={1: []}, cards=PACK)
    events = play(pos, "move d2 d3")
    assert eliminated(events) == ["d3"]
    assert advances(events) == [("c4", "d3", 2)]
    assert board_of(pos) == {"d3": ("dwarves:13", 2)}
    assert pos.decider == 1 and legal(pos) == {"draw"}


def test_moving_berserker_that_advanced_may_still_move_once():
    """7.1 (the rules do not say; the engine's choice): an advance is not a move. The card-pack
    Rager deployed on d3 eliminates the Sharpshooter on d4 and advances there; it has not moved,
    so it may still make its one move (and a move is then refused)."""
    pos = make_position(board={"d4": ("dwarves:28", 2), "a6": ("dwarves:28", 2)}, hands={1: ["test:03"]}, cards=PACK)
    events = play(pos, "deploy test:03 d3")
    assert advances(events) == [("d3", "d4", 1)]
    assert "move d4 d5" in legal(pos)
    play(pos, "move d4 d5")
    assert not any(a.startswith("move") for a in legal(pos))


# --- 4.4 and 5.2-5.3: shooters that took part, support adjacency --------------------------------


def test_shooter_whose_target_dies_in_a_later_advance_check_took_part():
    """4.4 + 7.2: the Bow Pest on d2 declares 2 on the Sharpshooter on d5 (def 4), which survives
    the deployment's check. The new Deathbringer eliminates e4 and advances there; its FL3 plus
    the carried 2 eliminate d5 in the round's check. The Bow Pest's shot counted in that
    elimination: it took part and cannot be recalled."""
    pos = make_position(
        board={"d2": ("orcs:19", 1), "d5": ("dwarves:28", 2), "e4": ("dwarves:28", 2)},
        hands={1: ["orcs:35"]},
    )
    events = play(pos, "shoot d2 d5", "deploy orcs:35 e3")
    assert eliminated(events) == ["e4", "d5"]
    assert advances(events) == [("e3", "e4", 1), ("e4", "d5", 1)]
    assert "d2" in turn_state(pos)["took_part"]
    assert legal(pos) == {"draw"}


def test_shooter_whose_target_dies_in_a_later_move_check_took_part():
    """4.4 + 7.1: the Bow Pest fires 2 at the Sharpshooter on d5 (survives); the Strider then
    steps to d4 and its F4 completes the elimination. Both took part: no recall."""
    pos = make_position(
        board={"c2": ("orcs:19", 1), "d3": ("test:02", 1), "d5": ("dwarves:28", 2)}, hands={1: []}, cards=PACK
    )
    assert play(pos, "shoot c2 d5") and board_of(pos)["d5"] == ("dwarves:28", 2)
    assert "recall c2" in legal(pos)
    events = play(pos, "move d3 d4")
    assert eliminated(events) == ["d5"]
    assert legal(pos) == {"draw"}


def test_ranged_unit_deployed_without_a_friend_cannot_shoot_when_a_friend_arrives_later():
    """5.2 + 5.3: 'deployed adjacent to a friendly unit' is judged when the card is placed. The
    Bow Pest placed on d5 (engaging the arrowless Sharpshooter on d6) has no friendly neighbour;
    the Catapult's declared shot and the Deathbringer's FR3 eliminate the Sharpshooter on c4, and
    the Deathbringer advances from b3 into c4, next to it. It still may not shoot."""
    pos = make_position(
        board={"b3": ("orcs:35", 1), "c4": ("dwarves:28", 2), "c1": ("orcs:24", 1), "d6": ("dwarves:28", 2)},
        hands={1: ["orcs:19"]},
    )
    events = play(pos, "shoot c1 c4", "deploy orcs:19 d5")
    assert advances(events) == [("b3", "c4", 1)]
    assert not any(a.startswith("shoot d5") for a in legal(pos))
    with pytest.raises(IllegalActionError, match=r"adjacent to a friendly unit.*5\.2"):
        pos.push("shoot d5 d6")


def test_ranged_unit_deployed_next_to_a_friend_that_then_moves_away_may_shoot():
    """5.2 + 5.3: the Bow Pest placed on d2 next to the Strider on c2 was deployed adjacent to a
    friendly unit; the Strider then steps away to b2. The Bow Pest may still shoot."""
    pos = make_position(board={"c2": ("test:02", 1), "d5": ("dwarves:28", 2)}, hands={1: ["orcs:19"]}, cards=PACK)
    play(pos, "deploy orcs:19 d2", "move c2 b2")
    assert "shoot d2 d5" in legal(pos)


# --- 7.4, 8.2, 8.3: extra turns and the end of a turn ---------------------------------------------


def test_no_extra_turn_when_the_own_general_falls_to_an_enemy_berserker_advance():
    """7.4: player 1's Deathbringer (f4, with the Deathbringer on e6) eliminates Krod
    Klouthammer, player 2's general; player 2's Dowager (e4, L5) eliminates the new Deathbringer
    and advances into f4, where its L5 and the Slugger's F3 eliminate player 1's general Asul on
    g4 (def 7) in the round's check. Both generals fell during player 1's turn: no extra turn."""
    board = {
        "f5": ("dwarves:01", 2),
        "e6": ("orcs:02", 1),
        "e4": ("dwarves:26", 2),
        "g4": ("undead:01", 1),
        "g5": ("dwarves:17", 2),
    }
    pos = make_position(board=board, hands={1: ["orcs:15"]})
    events = play(pos, "deploy orcs:15 f4")
    assert advances(events) == [("e6", "f5", 1), ("e4", "f4", 2), ("f5", "f4", 1)]
    assert lost_of(pos, 1) == Counter({"orcs:15": 1, "undead:01": 1})
    assert lost_of(pos, 2) == Counter({"dwarves:01": 1, "dwarves:26": 1})
    events = play(pos, "draw")
    assert events_of(events, "extra_turn") == []
    assert (pos.turn, pos.to_move) == (10, 2)


def test_extra_turn_when_only_the_enemy_general_falls_even_with_an_enemy_berserker_advance():
    """7.4, the control: without the Slugger on g5, Asul survives the Dowager's advance (5 <= 7):
    only player 2's general fell, so player 1 plays again after the reinforcement."""
    board = {"f5": ("dwarves:01", 2), "e6": ("orcs:02", 1), "e4": ("dwarves:26", 2), "g4": ("undead:01", 1)}
    pos = make_position(board=board, hands={1: ["orcs:15"]})
    play(pos, "deploy orcs:15 f4")
    events = play(pos, "draw")
    assert events_of(events, "extra_turn") == [{"type": "extra_turn", "player": 1}]
    assert (pos.turn, pos.to_move) == (10, 1)


def test_own_general_lost_to_an_enemy_berserker_advance_gives_the_enemy_no_extra_turn():
    """7.4: only the active player can earn an extra turn. Player 2's Dowager eliminates the
    Shanker placed on f4, advances and with the Slugger eliminates player 1's general on g4
    during player 1's turn: turns simply alternate (player 2 is next, once)."""
    board = {"f5": ("dwarves:28", 2), "e4": ("dwarves:26", 2), "g4": ("undead:01", 1), "g5": ("dwarves:17", 2)}
    pos = make_position(board=board, hands={1: ["orcs:09"]})
    events = play(pos, "deploy orcs:09 f4")
    assert advances(events) == [("e4", "f4", 2)]
    assert "undead:01" in lost_of(pos, 1)
    events = play(pos, "draw")
    assert events_of(events, "extra_turn") == []
    assert (pos.turn, pos.to_move) == (10, 2)
    play(pos, "draw")
    assert (pos.turn, pos.to_move) == (11, 1)


def test_threshold_is_checked_before_the_nobody_can_act_draw():
    """8.2 before 8.3: the suicide deployment eliminates player 2's 20th unit and leaves nobody
    able to deploy, draw or recall. The threshold wins; without it the game is a draw."""
    board = {"d4": ("dwarves:04", 2)}
    kw: dict[str, Any] = {"hands": {1: ["orcs:09"], 2: []}, "decks": {1: [], 2: []}}
    pos = make_position(board=board, lost={2: ["dwarves:35"] * 19}, **kw)
    play(pos, "deploy orcs:09 d3", "pass")
    assert pos.result is not None and pos.result.winner == 1
    assert "20 units" in pos.result.reason
    pos = make_position(board=board, **kw)
    play(pos, "deploy orcs:09 d3", "pass")
    assert pos.result is not None and pos.result.winner is None
    assert "neither player" in pos.result.reason
    assert (pos.turn, pos.to_move) == (9, 1)


def _general_kill(no_progress_turns: int) -> Position:
    # Catapult d2 declares 4 on Krod (d5, def 7); the Ravager's FR5 from c4 completes it.
    pos = make_position(
        board={"d2": ("orcs:24", 1), "d5": ("dwarves:01", 2)},
        hands={1: ["orcs:04"]},
        variant={"no_progress_turns": no_progress_turns},
        quiet_turns=0,
    )
    events = play(pos, "shoot d2 d5", "deploy orcs:04 c4", "draw")
    assert events_of(events, "extra_turn") == [{"type": "extra_turn", "player": 1}]
    assert pos.quiet_turns == 0 and (pos.turn, pos.to_move) == (10, 1)
    return pos


def test_extra_turn_counts_as_a_quiet_turn():
    """8.3: every turn counts for quiet_turns, extra turns too."""
    pos = _general_kill(40)
    play(pos, "deploy orcs:30 c3", "draw")
    assert pos.quiet_turns == 1 and (pos.turn, pos.to_move) == (11, 2)


def test_no_progress_draw_can_end_the_game_after_a_quiet_extra_turn():
    """8.3: with no_progress_turns = 1 the quiet extra turn ends the game in a draw; turn and
    to_move stay those of the extra turn."""
    pos = _general_kill(1)
    play(pos, "deploy orcs:30 c3", "draw")
    assert pos.result is not None and pos.result.winner is None
    assert (pos.turn, pos.to_move) == (10, 1)


@pytest.mark.parametrize(("rules", "drawn"), [("intermediate", False), ("basic", True)])
def test_nobody_can_act_counts_the_recall_of_an_engaged_cavalry_only_in_the_intermediate_rules(rules, drawn):
    """8.3 + 7.3: hands and decks are empty; player 2's Marauder and player 1's Warhog engage
    each other. Player 1 could recall the Warhog (engaged by infantry, not a spear) next turn
    under the intermediate rules, so the game goes on; under the basic rules nobody can act."""
    pos = make_position(
        board={"d3": ("orcs:07", 1), "d4": ("dwarves:06", 2)},
        hands={1: [], 2: []},
        decks={1: [], 2: []},
        variant={"rules": rules},
        to_move=2,
    )
    assert legal(pos) == {"pass"}
    play(pos, "pass")
    assert (pos.result is not None) == drawn
    if not drawn:
        assert legal(pos) == {"recall d3"}


# --- 3: deployment corner cases -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "squares"),
    [
        ({}, {"a5", "b5", "b6"}),
        ({"mat": "unbordered"}, {"a5", "b5", "b6", "-1,4", "-1,5", "-1,6", "0,6", "1,6"}),
    ],
)
def test_forced_deployment_uses_every_empty_square_next_to_an_enemy(variant, squares):
    """3.4: the Skink (ranged, no arrows) cannot engage and player 1 has no unit to support, so
    the deployment is forced: any empty square adjacent to an enemy unit, on the unbordered mat
    beyond the printed squares too. The whole hand is revealed."""
    pos = make_position(board={"a6": ("dwarves:28", 2)}, hands={1: ["lizardmen:17", "lizardmen:21"]}, variant=variant)
    assert deploys(pos, "lizardmen:17") == squares
    sq = sorted(squares)[0]
    events = play(pos, f"deploy lizardmen:17 {sq}")
    assert events_of(events, "reveal") == [{"type": "reveal", "player": 1, "hand": ["lizardmen:17", "lizardmen:21"]}]
    assert events_of(events, "deploy")[0]["forced"] is True


def test_free_deployment_with_no_enemy_and_no_free_square_next_to_a_friend_has_no_deployment():
    """3.2 + 3.4: no enemy unit is on the mat and every square holds one of player 1's units:
    there is no square for a free deployment and none for a forced one, so the turn goes
    straight to the post-deployment phase."""
    full = dict.fromkeys((f"{c}{r}" for c in "abcdefg" for r in range(1, 7)), ("orcs:09", 1))
    pos = make_position(board=full, hands={1: ["orcs:30"]})
    actions = legal(pos)
    assert "draw" in actions
    assert not any(a.startswith("deploy") for a in actions)
    assert len([a for a in actions if a.startswith("recall")]) == 42
    assert pos.phase == "post"
    pos = make_position(board=full, hands={2: ["dwarves:17"]}, to_move=2)
    assert legal(pos) == {"draw"}


def test_hand_of_six_in_the_second_opening_turn_without_e4_passes():
    """1.3 + 7.2: in turn 2 only e4 may be used; it is occupied, so there is no deployment, and
    with six cards in hand player 2 must pass although the deck is not empty."""
    pos = make_position(
        board={"c3": ("orcs:09", 1), "e4": ("orcs:30", 1)}, hands={2: ["dwarves:17"] * 6}, turn=2, to_move=2
    )
    assert legal(pos) == {"pass"}


def test_opening_turns_count_as_quiet_turns():
    """8.3: every turn counts for quiet_turns, the openings too; with no_progress_turns = 2 the
    game is drawn at the end of turn 2."""
    decks = [CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")]
    pos = deal(decks, 5)
    play(pos, f"deploy {pos.hands[1][0]} c3", "draw")
    play(pos, f"deploy {pos.hands[2][0]} e4", "draw")
    assert pos.quiet_turns == 2 and pos.result is None
    pos = deal(decks, 5, Variant(no_progress_turns=2))
    play(pos, f"deploy {pos.hands[1][0]} c3", "draw")
    play(pos, f"deploy {pos.hands[2][0]} e4", "draw")
    assert pos.result is not None and pos.result.winner is None
    assert (pos.turn, pos.to_move) == (2, 2)


# --- 7.2-7.3: recall of cavalry, basic against intermediate ----------------------------------------
#
# Orc Warhog orcs:07 (cavalry F2 FR3 R4 BR3, def 4) on d3. Dwarf Impaler dwarves:12 (spear) on d4
# points F1 at d3; Dwarf Slugger dwarves:23 (infantry) on c3 points its L3 (turned) at d3.


@pytest.mark.parametrize("rules", ["intermediate", "basic"])
@pytest.mark.parametrize(
    ("engagers", "intermediate_ok"),
    [
        ({"c3": ("dwarves:23", 2)}, True),
        ({"d4": ("dwarves:12", 2)}, False),
        ({"c3": ("dwarves:23", 2), "d4": ("dwarves:12", 2)}, False),
        ({"g6": ("dwarves:28", 2)}, True),
    ],
)
def test_cavalry_recall_in_basic_and_intermediate_rules(rules, engagers, intermediate_ok):
    """7.2 + 7.3: under the intermediate rules a cavalry unit may be recalled while engaged,
    unless a spear unit engages it (a spear among several engagers is enough to stop it);
    under the basic rules an engaged cavalry unit cannot be recalled."""
    pos = make_position(board={"d3": ("orcs:07", 1), **engagers}, hands={1: []}, variant={"rules": rules})
    engaged = "g6" not in engagers
    expected = intermediate_ok if rules == "intermediate" else not engaged
    assert ("recall d3" in legal(pos)) == expected


@pytest.mark.parametrize(("rules", "allowed"), [("intermediate", True), ("basic", False)])
def test_cavalry_that_took_part_and_is_engaged_by_infantry(rules, allowed):
    """7.2 + 7.3: the old Warhog's F2 helps the new Ravager (e3, FL5) eliminate the Sharpshooter
    on d4, and the Slugger on c3 engages the Warhog (L3, turned). Under the intermediate rules
    the Warhog may be recalled all the same; under the basic rules it may not."""
    pos = make_position(
        board={"d3": ("orcs:07", 1), "d4": ("dwarves:28", 2), "c3": ("dwarves:23", 2)},
        hands={1: ["orcs:03"]},
        variant={"rules": rules},
    )
    play(pos, "deploy orcs:03 e3")
    assert lost_of(pos, 2) == Counter({"dwarves:28": 1})
    assert "d3" in turn_state(pos)["took_part"]
    assert ("recall d3" in legal(pos)) == allowed


# --- property-style check: random games against an independent reference of the turn --------------
#
# The reference below re-derives, from the card facts and the clarifications alone, what every
# check eliminates (4.1, 5.4, 5.5), which berserkers advance and who chooses (6.1-6.4), the legal
# deployments (1.3, 3), shots (5.1-5.3), moves (7.1) and reinforcements (7.2-7.3), and how a turn
# ends (7.4, 8.2, 8.3). After every push of a random game it compares the engine with it.

OPENING = {1: mat.parse("c3"), 2: mat.parse("e4")}
STEPS = tuple(mat.delta(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)


class KnownBug(Exception):
    """The engine eliminated a unit only because it counted the arrows of a unit that had shot,
    after every shot target of the turn had been eliminated (the 5.5 bug of the tests above)."""


class Tables:
    """Card facts turned to an owner's facing (2.1), computed here from the card data."""

    def __init__(self, cards: CardSet):
        self.cards = cards
        self._arrows: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}
        self._targets: dict[tuple[str, int], tuple[int, ...]] = {}
        self._moves: dict[tuple[str, int], tuple[int, ...]] = {}

    def card(self, cid: str) -> Card:
        return self.cards.card(cid)

    @staticmethod
    def _turn(dx: int, dy: int, owner: int) -> int:
        f = 1 if owner == 1 else -1
        return mat.delta(dx * f, dy * f)

    def arrows(self, cid: str, owner: int) -> tuple[tuple[int, int], ...]:
        key = (cid, owner)
        if key not in self._arrows:
            card = self.card(cid)
            self._arrows[key] = tuple(
                (self._turn(*mat.DIRECTION_VECTORS[d], owner), v) for d, v in card.attacks.items() if v > 0
            )
        return self._arrows[key]

    def targets(self, cid: str, owner: int) -> tuple[int, ...]:
        key = (cid, owner)
        if key not in self._targets:
            r = self.card(cid).ranged
            self._targets[key] = tuple(self._turn(dx, dy, owner) for dx, dy in r.targets) if r else ()
        return self._targets[key]

    def moves(self, cid: str, owner: int) -> tuple[int, ...]:
        key = (cid, owner)
        if key not in self._moves:
            self._moves[key] = tuple(self._turn(*mat.DIRECTION_VECTORS[d], owner) for d in self.card(cid).moves)
        return self._moves[key]


@dataclass
class Round:
    owners: list[int]
    candidates: dict[int, list[int]]
    taken: set[int] = field(default_factory=set)


@dataclass
class Ref:
    """The reference's view of the turn under way."""

    t: Tables
    variant: Variant
    player: int
    turn: int
    board: dict[int, tuple[str, int]]
    engaged_at_start: set[int] = field(default_factory=set)
    shot: dict[int, int] = field(default_factory=dict)
    shot_target: dict[int, int] = field(default_factory=dict)
    shooters: set[int] = field(default_factory=set)
    took_part: set[int] = field(default_factory=set)
    moved: set[int] = field(default_factory=set)
    deployed: int | None = None
    supported: bool = False
    deploy_done: bool = False
    generals_lost: set[int] = field(default_factory=set)
    eliminated: bool = False
    round: Round | None = None
    start_deploys: set[tuple[str, int]] = field(default_factory=set)
    forced: bool = False

    # geometry and combat -------------------------------------------------------------------
    def near(self, sq: int) -> list[int]:
        out = [sq + d for d in STEPS]
        return [s for s in out if s in mat.ON_MAT] if self.variant.mat == "bordered" else out

    def attackers(self, sq: int, owner: int) -> list[tuple[int, int]]:
        found = []
        for d in STEPS:
            s = sq + d
            u = self.board.get(s)
            if u is not None and u[1] != owner:
                for dd, v in self.t.arrows(u[0], u[1]):
                    if s + dd == sq:
                        found.append((s, v))
        return found

    def engaged(self, sq: int) -> bool:
        return bool(self.attackers(sq, self.board[sq][1]))

    def over(self, count_shooters: bool = False) -> set[int]:
        """The units whose damage (4.1: enemy arrows, not of units that have shot, 5.5; plus the
        shot damage they carry, 5.4) exceeds their defence."""
        board = self.board
        dmg = dict(self.shot)
        for s, (cid, owner) in board.items():
            if count_shooters or s not in self.shooters:
                for d, v in self.t.arrows(cid, owner):
                    u = board.get(s + d)
                    if u is not None and u[1] != owner:
                        dmg[s + d] = dmg.get(s + d, 0) + v
        return {sq for sq, v in dmg.items() if v > self.t.card(board[sq][0]).defence}

    def relocate(self, src: int, dst: int) -> None:
        self.board[dst] = self.board.pop(src)
        for s in (self.took_part, self.moved, self.shooters, self.engaged_at_start):
            if src in s:
                s.discard(src)
                s.add(dst)
        if src in self.shot:
            self.shot[dst] = self.shot.pop(src)
        self.shot_target = {(dst if s == src else s): (dst if t == src else t) for s, t in self.shot_target.items()}
        if self.deployed == src:
            self.deployed = dst

    def check(self, engine_doomed: set[int]) -> dict[int, list[int]]:
        """4.1-4.4 and 6.1: one check; returns the berserkers due to advance."""
        doomed = self.over()
        if doomed != engine_doomed:
            if not self.shot and not self.shot_target and self.over(count_shooters=True) == engine_doomed:
                raise KnownBug()
            raise AssertionError(
                f"check eliminated {sorted(map(mat.name, engine_doomed))}, expected {sorted(map(mat.name, doomed))}"
            )
        part: set[int] = set()
        cand: dict[int, list[int]] = {}
        for t in sorted(doomed):
            for s, _ in self.attackers(t, self.board[t][1]):
                if s in self.shooters:
                    continue
                part.add(s)
                cid = self.board[s][0]
                if self.variant.rules == "intermediate" and s not in doomed and self.t.card(cid).cls == "berserker":
                    cand.setdefault(s, []).append(t)
        part |= {s for s, t in self.shot_target.items() if t in doomed}
        for t in doomed:
            cid, owner = self.board.pop(t)
            if self.t.card(cid).rank == "general":
                self.generals_lost.add(owner)
            self.shot.pop(t, None)
            for s in (self.took_part, self.moved, self.shooters, self.engaged_at_start):
                s.discard(t)
            if self.deployed == t:
                self.deployed = None
        self.shot_target = {s: t for s, t in self.shot_target.items() if s not in doomed and t not in doomed}
        self.took_part |= part - doomed
        if doomed:
            self.eliminated = True
        return {b: ts for b, ts in cand.items() if not self.engaged(b)}

    # berserker rounds (6.2-6.4) -------------------------------------------------------------
    def step(self) -> tuple[str, int, set[tuple[int, int]]]:
        """('auto', owner, acceptable pairs), ('choice', owner, pairs) or ('done', 0, set())."""
        r = self.round
        assert r is not None
        for owner in r.owners:
            waiting = {
                b: [t for t in ts if t not in r.taken] for b, ts in r.candidates.items() if self.board[b][1] == owner
            }
            waiting = {b: ts for b, ts in waiting.items() if ts}
            if not waiting:
                continue
            if self.deployed in waiting:
                b = self.deployed
                pairs = {(b, t) for t in waiting[b]}
                return ("auto" if len(pairs) == 1 else "choice", owner, pairs)
            singles = {
                (b, ts[0])
                for b, ts in waiting.items()
                if len(ts) == 1 and not any(ts[0] in ts2 for b2, ts2 in waiting.items() if b2 != b)
            }
            if singles:
                return ("auto", owner, singles)
            return ("choice", owner, {(b, t) for b, ts in waiting.items() for t in ts})
        return ("done", 0, set())

    def advance(self, b: int, t: int) -> None:
        r = self.round
        assert r is not None
        del r.candidates[b]
        r.taken.add(t)
        self.relocate(b, t)

    # legal actions -------------------------------------------------------------------------
    def deploy_options(self, hand: list[str], player: int, turn: int) -> tuple[set[tuple[str, int]], bool]:
        """1.3 and 3.1-3.4."""
        if not hand:
            return set(), False
        if turn <= 2:
            sq = OPENING[1 if turn == 1 else 2]
            return ({(c, sq) for c in hand} if sq not in self.board else set()), False
        if not self.board:
            return {(c, s) for c in hand for s in mat.ON_MAT}, False
        friend_adj = {n for s, u in self.board.items() if u[1] == player for n in self.near(s) if n not in self.board}
        if all(u[1] == player for u in self.board.values()):
            return {(c, s) for c in hand for s in friend_adj}, False
        enemy_dirs: dict[int, set[int]] = {}  # empty square next to an enemy -> steps towards enemies
        for s, u in self.board.items():
            if u[1] != player:
                for n in self.near(s):
                    if n not in self.board:
                        enemy_dirs.setdefault(n, set()).add(s - n)
        enemy_adj = set(enemy_dirs)
        out = set()
        for c in set(hand):
            steps = {d for d, _ in self.t.arrows(c, player)}
            out |= {(c, s) for s, dirs in enemy_dirs.items() if steps & dirs}
            if self.t.card(c).cls in ("spear", "ranged"):
                out |= {(c, s) for s in friend_adj}
        if out:
            return out, False
        return {(c, s) for c in hand for s in enemy_adj}, True

    def shots(self) -> set[Action]:
        if self.turn <= 2:
            return set()
        out = set()
        for s, (cid, owner) in self.board.items():
            if owner != self.player or not self.t.targets(cid, owner):
                continue
            if s in self.shooters or s in self.took_part or s in self.engaged_at_start:
                continue
            if s == self.deployed and not self.supported:
                continue
            if self.engaged(s):
                continue
            for d in self.t.targets(cid, owner):
                u = self.board.get(s + d)
                if u is not None and u[1] != owner:
                    out.add(Action("shoot", None, s, s + d))
        return out

    def moves(self) -> set[Action]:
        out = set()
        for s, (cid, owner) in self.board.items():
            if owner != self.player or s in self.moved or self.engaged(s):
                continue
            for d in self.t.moves(cid, owner):
                if s + d not in self.board and (self.variant.mat == "unbordered" or s + d in mat.ON_MAT):
                    out.add(Action("move", None, s, s + d))
        return out

    def recallable(self, s: int, at_start: bool = False) -> bool:
        cid, _ = self.board[s]
        if not at_start and s == self.deployed:
            return False
        if self.t.card(cid).cls == "cavalry" and self.variant.rules == "intermediate":
            return not any(self.t.card(self.board[a][0]).cls == "spear" for a, _ in self.attackers(s, self.board[s][1]))
        if not at_start and s in self.took_part:
            return False
        return not self.engaged(s)

    def reinforcements(self, hand: list[str], deck: list[str]) -> set[Action]:
        if len(hand) >= HAND_LIMIT:
            return {Action("pass")}
        out = {Action("draw")} if deck else set()
        out |= {Action("recall", None, s) for s, u in self.board.items() if u[1] == self.player and self.recallable(s)}
        return out or {Action("pass")}

    def expected_legal(self, pos: Position) -> set[Action]:
        if pos.phase == "advance":
            kind, _, pairs = self.step()
            assert kind == "choice"
            return {Action("advance", None, b, t) for b, t in pairs}
        hand = pos.hands[self.player]
        out = self.shots()
        if not self.deploy_done and self.start_deploys:
            return out | {Action("deploy", c, None, s) for c, s in self.start_deploys}
        return out | self.moves() | self.reinforcements(hand, pos.decks[self.player])  # type: ignore[arg-type]

    def could_act(self, pos: Position, player: int, turn: int) -> bool:
        """8.3, judged at the start of the player's next turn on the mat as it stands."""
        hand = pos.hands[player]
        room = len(hand) < HAND_LIMIT
        if room and pos.decks[player]:
            return True
        # Some empty square next to an enemy means a deployment under 3.3 or else 3.4.
        if (
            hand
            and turn > 2
            and any(n not in self.board for s, u in self.board.items() if u[1] != player for n in self.near(s))
        ):
            return True
        if self.deploy_options(hand, player, turn)[0]:  # type: ignore[arg-type]
            return True
        return room and any(u[1] == player and self.recallable(s, at_start=True) for s, u in self.board.items())


def threshold(pos: Position) -> tuple[bool, int | None]:
    """8.2 from the lost piles: (ended, winner)."""
    v = pos.variant
    units = {p: len(pos.lost[3 - p]) for p in (1, 2)}
    cmds = {p: sum(pos.cards.card(c).rank in ("general", "command") for c in pos.lost[3 - p]) for p in (1, 2)}
    cmd = {p: cmds[p] >= v.commands_to_win for p in (1, 2)}
    unit = {p: units[p] >= v.units_to_win for p in (1, 2)}
    reached = {p: cmd[p] or unit[p] for p in (1, 2)}
    if not reached[1] and not reached[2]:
        return False, None
    if reached[1] != reached[2]:
        return True, 1 if reached[1] else 2
    if cmd[1] != cmd[2]:
        return True, 1 if cmd[1] else 2
    order = (units, cmds) if cmd[1] else (cmds, units)
    for values in order:
        if values[1] != values[2]:
            return True, 1 if values[1] > values[2] else 2
    return True, None


def board_names(board: dict[int, tuple[str, int]]) -> dict[str, tuple[str, int]]:
    return {mat.name(s): u for s, u in board.items()}


def start_turn(t: Tables, pos: Position) -> Ref:
    """A new turn: the engine must carry no state of the last one."""
    board = {s: (u.id, u.owner) for s, u in pos.board.items()}
    ref = Ref(t, pos.variant, pos.to_move, pos.turn, board)
    ref.engaged_at_start = {
        s for s, (cid, o) in board.items() if o == pos.to_move and t.targets(cid, o) and ref.engaged(s)
    }
    assert {s for s, f in pos.flags.items() if f} == ref.engaged_at_start, "stale per-unit flags at the start of a turn"
    assert all(f == ENGAGED_AT_START for f in pos.flags.values() if f), "stale per-unit flags at the start of a turn"
    assert not pos.shot_damage and not pos.shot_target and pos.advance is None, "stale shots or advance"
    assert pos.generals_lost == 0 and not pos.eliminated, "stale generals_lost / eliminated"
    assert len(pos.hands[pos.to_move]) <= HAND_LIMIT
    ref.start_deploys, ref.forced = ref.deploy_options(pos.hands[pos.to_move], pos.to_move, pos.turn)  # type: ignore[arg-type]
    return ref


class Cursor:
    def __init__(self, events: list[dict[str, Any]]):
        self.events = events
        self.i = 0

    def peek(self) -> str | None:
        return self.events[self.i]["type"] if self.i < len(self.events) else None

    def take(self, kind: str) -> dict[str, Any]:
        assert self.peek() == kind, f"expected a {kind} event, got {self.events[self.i :]}"
        self.i += 1
        return self.events[self.i - 1]


def run_rounds(ref: Ref, cur: Cursor) -> bool:
    """Advance rounds from ``ref.round`` on; False when a choice is left waiting."""
    while ref.round is not None:
        kind, owner, pairs = ref.step()
        if kind == "done":
            ref.round = None
            if not run_check(ref, cur):
                return False
            continue
        if kind == "choice":
            assert cur.peek() is None, (
                f"player {owner} has a choice (6.4) but the engine went on: {cur.events[cur.i :]}"
            )
            return False
        e = cur.take("advance")
        pair = (mat.parse(e["from"], False), mat.parse(e["to"], False))
        assert pair in pairs and e["owner"] == owner, f"advance {e} is not forced by 6.4 (expected one of {pairs})"
        ref.advance(*pair)
    return True


def run_check(ref: Ref, cur: Cursor) -> bool:
    engine_doomed = set()
    while cur.peek() == "eliminated":
        engine_doomed.add(mat.parse(cur.take("eliminated")["square"], False))
    cand = ref.check(engine_doomed)
    if cand:
        owners = [o for o in (ref.player, 3 - ref.player) if any(ref.board[b][1] == o for b in cand)]
        ref.round = Round(owners, cand)
        return run_rounds(ref, cur)
    return True


def observe(ref: Ref, before: Position, action: Action, after: Position, events: list[dict[str, Any]]) -> Ref | None:
    """Check one push against the reference; returns the reference of the turn after it."""
    cur = Cursor(events)
    player = before.to_move
    k = action.kind
    assert board_names(ref.board) == {mat.name(s): (u.id, u.owner) for s, u in before.board.items()}
    if k == "deploy":
        assert (action.card, action.to) in ref.start_deploys and not ref.deploy_done
        if ref.forced:
            assert cur.take("reveal")["hand"] == list(before.hands[player])
        assert cur.take("deploy")["forced"] == ref.forced
        ref.supported = any(ref.board.get(n, ("", 0))[1] == player for n in ref.near(action.to))  # type: ignore[arg-type]
        ref.board[action.to] = (action.card, player)  # type: ignore[index]
        ref.deployed, ref.deploy_done = action.to, True
        run_check(ref, cur)
    elif k == "shoot":
        e = cur.take("shot")
        ref.shooters.add(action.frm)  # type: ignore[arg-type]
        ref.shot[action.to] = ref.shot.get(action.to, 0) + ref.t.card(ref.board[action.frm][0]).ranged.damage  # type: ignore[index,union-attr]
        ref.shot_target[action.frm] = action.to  # type: ignore[index]
        assert e["declared"] == (not ref.deploy_done and bool(ref.start_deploys))
        if not e["declared"]:
            run_check(ref, cur)
    elif k == "move":
        cur.take("move")
        ref.relocate(action.frm, action.to)  # type: ignore[arg-type]
        ref.moved.add(action.to)  # type: ignore[arg-type]
        run_check(ref, cur)
    elif k == "advance":
        kind, _, pairs = ref.step()
        assert kind == "choice" and (action.frm, action.to) in pairs
        cur.take("advance")
        ref.advance(action.frm, action.to)  # type: ignore[arg-type]
        run_rounds(ref, cur)
    else:
        return end_turn(ref, before, action, after, cur)
    assert cur.peek() is None, f"unexpected events {cur.events[cur.i :]}"
    # The decision point after the push.
    assert (after.phase == "advance") == (ref.round is not None)
    if ref.round is not None:
        assert after.decider == ref.step()[1]
    assert board_names(ref.board) == {mat.name(s): (u.id, u.owner) for s, u in after.board.items()}
    deployed = [s for s, f in after.flags.items() if f & DEPLOYED]
    assert deployed == ([ref.deployed] if ref.deployed is not None else []), "the deployed unit is not unique"
    assert {s for s, f in after.flags.items() if f & SHOT} == ref.shooters
    assert dict(after.shot_damage) == ref.shot
    if after.phase == "post":
        assert not ref.over(), "a unit above its defence is left on the mat after the last check"
    return ref


def end_turn(ref: Ref, before: Position, action: Action, after: Position, cur: Cursor) -> Ref | None:
    """7.2-7.4, 8.2, 8.3."""
    player = before.to_move
    assert ref.round is None and before.phase == "post"
    assert ref.deploy_done or not ref.start_deploys, "a deployment was possible but none was made (3)"
    assert not ref.over(), "a unit above its defence is left at the end of the turn"
    cur.take(action.kind)
    if action.kind == "recall":
        ref.board.pop(action.frm)  # type: ignore[arg-type]
    quiet = 0 if ref.eliminated else before.quiet_turns + 1
    assert after.quiet_turns == quiet
    ended, winner = threshold(after)
    v = after.variant
    if not ended and v.no_progress_turns and quiet >= v.no_progress_turns:
        ended, winner = True, None
    extra = (3 - player) in ref.generals_lost and player not in ref.generals_lost
    nxt = player if extra else 3 - player
    if (
        not ended
        and not ref.could_act(after, nxt, before.turn + 1)
        and not ref.could_act(after, 3 - nxt, before.turn + 2)
    ):
        ended, winner = True, None
    if ended:
        cur.take("result")
        assert after.result is not None and after.result.winner == winner
        assert (after.turn, after.to_move) == (before.turn, before.to_move)
        return None
    if extra:
        assert cur.take("extra_turn")["player"] == player
    assert cur.peek() is None
    assert after.result is None and (after.turn, after.to_move) == (before.turn + 1, nxt)
    return start_turn(ref.t, after)


def random_deck(rng: random.Random) -> list[str]:
    deck = CORE.standard_deck(rng.choice(sorted(CORE.armies)))
    if rng.random() < 0.5:  # a mercenary deck: same-rank swaps (8.4)
        by_rank = {r: sorted(c for c in CORE if CORE.card(c).rank == r) for r in RANKS}
        for _ in range(rng.randrange(13)):
            i = rng.randrange(36)
            deck[i] = rng.choice(by_rank[CORE.card(deck[i]).rank])
    return deck


GAMES = 200


def test_random_games_follow_the_reference_rules():
    """Property check over random games: every check, advance, legal-action list and turn end
    agrees with the reference; no unit above its defence survives a check; a new turn carries
    no stale state; the deployed unit is unique; recall and shots follow 5.2 and 7.2-7.3.

    The known 5.5 bug (the tests above) is recognised by its signature so that it is reported
    as such; it fails the test like any other disagreement."""
    rng = random.Random(20240607)
    t = Tables(CORE)
    games = known = 0
    stats: Counter[str] = Counter()
    for _ in range(GAMES):
        variant = Variant(
            rng.choice(["intermediate", "intermediate", "basic"]),
            rng.choice(["hidden", "visible"]),
            rng.choice(["bordered", "bordered", "unbordered"]),
            *rng.choice([(15, 3), (20, 4), (25, 5)]),
            rng.choice([40, 40, 12, 3]),
        )
        pos = deal([random_deck(rng), random_deck(rng)], rng.randrange(2**32), variant)
        ref: Ref | None = start_turn(t, pos)
        games += 1
        try:
            while not pos.is_over:
                assert ref is not None
                actions = pos.legal_actions()
                expected = ref.expected_legal(pos)
                if set(actions) != expected:
                    got = {str(a) for a in actions}
                    want = {str(a) for a in expected}
                    raise AssertionError(
                        f"turn {pos.turn}: legal actions differ: extra {got - want}, missing {want - got}"
                    )
                # Spelled out, though the comparison above implies them: at most one unit is
                # flagged as deployed, it is never offered for recall (7.2), hands hold <= 6.
                deployed = [s for s, f in pos.flags.items() if f & DEPLOYED]
                assert len(deployed) <= 1
                assert not any(a.kind == "recall" and a.frm in deployed for a in actions)
                assert all(len(pos.hands[p]) <= HAND_LIMIT for p in (1, 2))
                action = rng.choice(actions)
                stats[action.kind] += 1
                before = pos.copy()
                events = pos.push(action)
                ref = observe(ref, before, action, pos, events)
        except KnownBug:
            known += 1
    assert known == 0, f"{known} games showed the 5.5 bug: a unit that has shot dealt melee damage"
    assert games == GAMES
    assert stats["advance"] > 0 and stats["shoot"] > 0 and stats["recall"] > 0
