"""A demanding player's review of the rules engine: the less-travelled paths of the rules.

Every test states what ``clarifications.md`` (or, where it is silent, the Yucata rule text) asks
for, citing the section. The three ``test_shooter_deals_no_melee_*`` tests caught an engine bug
(5.5: once every shot target of the turn had been eliminated, ``damage()`` counted the arrows of
units that had shot again, in later advance and move checks); they fail on the engine before its
fix and guard against a regression.

The last part plays a few hundred random games (random armies, mercenary decks, every variant)
and checks after every action what must hold whatever the details: a turn starts clean, the
deployment comes first and once, no unit above its defence outlives a check, a turn ends into
the next turn, an extra turn (7.4) or a result. The rules themselves are checked by the worked
cases, here and in the other ``test_rules_*`` files, never by a second copy of the engine.
"""

from __future__ import annotations

import random
from collections import Counter
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
from lordsofwar.rules.cards import CORE, RANKS
from lordsofwar.rules.engine import damage
from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.notation import deal
from lordsofwar.rules.state import (
    DEPLOYED,
    ENGAGED_AT_START,
    HAND_LIMIT,
    SHOT,
    TOOK_PART,
    Position,
    Result,
    Termination,
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


def test_threshold_is_checked_before_the_nobody_can_act_draw() -> None:
    """8.2 before 8.3: the suicide deployment eliminates player 2's 20th unit and leaves nobody
    able to deploy, draw or recall. The threshold wins; without it the game is a draw."""
    board = {"d4": ("dwarves:04", 2)}
    kw: dict[str, Any] = {"hands": {1: ["orcs:09"], 2: []}, "decks": {1: [], 2: []}}
    pos = make_position(board=board, lost={2: ["dwarves:35"] * 19}, **kw)
    play(pos, "deploy orcs:09 d3", "pass")
    assert pos.result == Result(1, Termination.UNITS, count=20)
    pos = make_position(board=board, **kw)
    play(pos, "deploy orcs:09 d3", "pass")
    assert pos.result == Result(None, Termination.NO_ACTION)
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


# --- a new turn, and who could still act (7.4, 8.3) ----------------------------------------------


def test_a_new_turn_starts_with_nothing_left_of_the_last_one():
    """5.2, 5.4, 7.2: the Bow Pest (d2) declares 2 on the Sharpshooter on d4 (def 4, survives);
    the Shanker placed on c3 eliminates the Skink on c4 (F4 > 3). After the draw, player 2's turn
    keeps no shot, no shot damage, no deployed, shot or took-part mark and no elimination of the
    last turn, and its quiet-turn count is back to 0; the one mark it has is its own ranged unit
    engaged at the start (f4, under the Ravager's F3 from f3), which may not shoot at the Ravager.
    Its Sharpshooter on d4 is not engaged and carries no damage: it may shoot at d2."""
    pos = make_position(
        board={
            "d2": ("orcs:19", 1),
            "f3": ("orcs:04", 1),
            "d4": ("dwarves:28", 2),
            "c4": ("lizardmen:17", 2),
            "f4": ("dwarves:28", 2),
        },
        hands={1: ["orcs:09"], 2: ["dwarves:17"]},
        quiet_turns=5,
    )
    events = play(pos, "shoot d2 d4", "deploy orcs:09 c3")
    assert events_of(events, "shot")[0]["declared"] is True
    assert eliminated(events) == ["c4"]
    assert dict(pos.shot_damage) == {mat.parse("d4"): 2}
    assert pos.flags[mat.parse("d2")] & SHOT and pos.flags[mat.parse("c3")] & DEPLOYED
    assert pos.flags[mat.parse("c3")] & TOOK_PART
    play(pos, "draw")
    assert (pos.turn, pos.to_move, pos.phase) == (10, 2, "pre")
    assert dict(pos.flags) == {mat.parse("f4"): ENGAGED_AT_START}
    assert not pos.shot_damage and not pos.shot_target and pos.advance is None
    assert pos.generals_lost == 0 and not pos.eliminated
    assert pos.quiet_turns == 0
    assert "shoot d4 d2" in legal(pos) and not any(a.startswith("shoot f4") for a in legal(pos))


def test_a_unit_that_cannot_be_recalled_this_turn_still_lets_its_owner_act_next_turn():
    """8.3 + 7.2: decks are empty; the Shanker deployed on c3 eliminates the Skink on c4, the
    last enemy unit. Player 1 must pass (a unit deployed this turn is not recalled), player 2
    has nothing to do, but at the start of player 1's next turn the Shanker, no longer just
    deployed and not engaged, could be recalled: the game goes on."""
    pos = make_position(
        board={"c4": ("lizardmen:17", 2)},
        hands={1: ["orcs:09"], 2: []},
        decks={1: [], 2: []},
    )
    play(pos, "deploy orcs:09 c3")
    assert legal(pos) == {"pass"}
    play(pos, "pass")
    assert pos.result is None and (pos.turn, pos.to_move) == (10, 2)
    assert legal(pos) == {"pass"}
    play(pos, "pass")
    assert legal(pos) == {"recall c3"}


def test_a_full_hand_that_can_only_be_forced_onto_the_mat_keeps_the_game_going():
    """8.3 + 3.4: decks are empty and player 2, with no unit on the mat, holds six
    Sharpshooters (no arrows): it can neither draw nor recall, and no card can engage or support.
    Player 1 recalls a Shanker; player 2 can still deploy, forced, next to the Shanker left on
    d4, so the game goes on, and every empty square around d4 is offered."""
    pos = make_position(
        board={"a1": ("orcs:09", 1), "d4": ("orcs:09", 1)},
        hands={1: [], 2: ["dwarves:28"] * 6},
        decks={1: [], 2: []},
    )
    assert legal(pos) == {"recall a1", "recall d4"}
    play(pos, "recall a1")
    assert pos.result is None and (pos.turn, pos.to_move) == (10, 2)
    assert legal(pos) == {f"deploy dwarves:28 {sq}" for sq in ("c3", "c4", "c5", "d3", "d5", "e3", "e4", "e5")}
    events = play(pos, "deploy dwarves:28 e5")
    assert events_of(events, "deploy")[0]["forced"] is True


# --- random games: what must hold after every action ----------------------------------------------
#
# The rules themselves are checked case by case above and in the other test_rules_* files (and
# the native core is held to the engine by the differential test): here a few hundred random games
# (random armies, mercenary decks, every variant) check what holds whatever the rules say in
# detail: a turn starts clean, one unit at most is the deployed one and it is never recalled,
# hands stay within the limit, a deployment comes first and once, the last check of a turn leaves
# no unit above its defence, and a turn ends into the next turn, an extra turn or a result.


def random_deck(rng: random.Random) -> list[str]:
    deck = CORE.standard_deck(rng.choice(sorted(CORE.armies)))
    if rng.random() < 0.5:  # a mercenary deck: same-rank swaps (8.4)
        by_rank = {r: sorted(c for c in CORE if CORE.card(c).rank == r) for r in RANKS}
        for _ in range(rng.randrange(13)):
            i = rng.randrange(36)
            deck[i] = rng.choice(by_rank[CORE.card(deck[i]).rank])
    return deck


def random_variant(rng: random.Random) -> Variant:
    return Variant(
        rng.choice(["intermediate", "intermediate", "basic"]),
        rng.choice(["hidden", "visible"]),
        rng.choice(["bordered", "bordered", "unbordered"]),
        *rng.choice([(15, 3), (20, 4), (25, 5)]),
        rng.choice([40, 40, 12, 3]),
    )


def assert_turn_starts_clean(pos: Position) -> None:
    """A new turn carries nothing of the last one but its own ranged units engaged at the start."""
    assert pos.phase in ("pre", "post")
    assert all(f == ENGAGED_AT_START for f in pos.flags.values()), "stale per-unit flags at the start of a turn"
    assert all(pos.board[s].owner == pos.to_move for s in pos.flags), "a flag on the other player's unit"
    assert not pos.shot_damage and not pos.shot_target and pos.advance is None, "stale shots or advance"
    assert pos.generals_lost == 0 and not pos.eliminated, "stale generals_lost / eliminated"


def assert_no_unit_above_its_defence(pos: Position) -> None:
    """4.1: after the last check of a push no unit whose damage exceeds its defence is left."""
    over = {mat.name(t): v for t, v in damage(pos).items() if v > pos.board[t].defence}
    assert not over, f"units above their defence left on the mat: {over}"


GAMES = 200


def test_random_games_keep_the_invariants_of_the_turn() -> None:
    """Property check over random games of every variant: the legal actions are offered in the
    order of the turn (a deployment first and at most once, advances alone while a choice is
    open), each is accepted, and the invariants above hold after every push."""
    rng = random.Random(20240607)
    stats: Counter[str] = Counter()
    for _ in range(GAMES):
        pos = deal([random_deck(rng), random_deck(rng)], rng.randrange(2**32), random_variant(rng))
        assert_turn_starts_clean(pos)
        deployed_this_turn = False
        generals: set[int] = set()  # the owners of the generals eliminated this turn
        eliminations = 0
        while not pos.is_over:
            actions = pos.legal_actions()
            kinds = {a.kind for a in actions}
            assert actions and len(set(actions)) == len(actions)
            if pos.phase == "advance":
                assert kinds == {"advance"} and pos.decider in (1, 2)
            elif pos.phase == "pre":
                assert "deploy" in kinds and kinds <= {"deploy", "shoot"} and not deployed_this_turn
            else:
                assert "deploy" not in kinds and "advance" not in kinds
            deployed = [s for s, f in pos.flags.items() if f & DEPLOYED]
            assert len(deployed) <= 1
            assert not any(a.kind == "recall" and a.frm in deployed for a in actions)
            assert all(len(pos.hands[p]) <= HAND_LIMIT for p in (1, 2))
            action = rng.choice(actions)
            stats[action.kind] += 1
            before = pos.copy()
            events = pos.push(action)
            for e in events_of(events, "eliminated"):
                eliminations += 1
                if CORE.card(e["card"]).rank == "general":
                    generals.add(e["owner"])
            if action.kind == "deploy":
                deployed_this_turn = True
            if action.kind not in ("draw", "pass", "recall"):
                assert pos.phase != "over" and (pos.turn, pos.to_move) == (before.turn, before.to_move)
                if pos.phase == "post":
                    assert_no_unit_above_its_defence(pos)
                continue
            # The end of the turn (7.4, 8.2, 8.3).
            player = before.to_move
            assert pos.quiet_turns == (0 if eliminations else before.quiet_turns + 1)
            if pos.result is not None:
                assert events[-1]["type"] == "result"
                assert (pos.turn, pos.to_move) == (before.turn, player)
                stats[f"ended {pos.result.winner is not None}"] += 1
                continue
            extra = (3 - player) in generals and player not in generals
            assert events_of(events, "extra_turn") == ([{"type": "extra_turn", "player": player}] if extra else [])
            assert (pos.turn, pos.to_move) == (before.turn + 1, player if extra else 3 - player)
            stats["extra_turn"] += extra
            assert_turn_starts_clean(pos)
            deployed_this_turn = False
            generals, eliminations = set(), 0
    # The games reach the less common paths too: advances, extra turns, wins and draws.
    assert stats["advance"] > 0 and stats["shoot"] > 0 and stats["recall"] > 0 and stats["extra_turn"] > 0
    assert stats["ended True"] > 0 and stats["ended False"] > 0, stats
