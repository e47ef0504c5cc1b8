"""Winning, drawing and resigning: clarifications 8.1-8.3."""

from __future__ import annotations

import pytest
from helpers import events_of, legal, make_position, play

from lordsofwar.rules import engine
from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.notation import position_to_json
from lordsofwar.rules.state import LENGTHS, Result, Termination

ORC_COMMANDS = ["orcs:01", "orcs:16", "orcs:17", "orcs:18", "orcs:23", "orcs:27"]
DWARF_COMMANDS = ["dwarves:01", "dwarves:05", "dwarves:10", "dwarves:18", "dwarves:31", "dwarves:32"]


def pile(commands: list[str], n_commands: int, n_others: int, other: str) -> list[str]:
    """A lost pile with ``n_commands`` command units and ``n_others`` other units."""
    cmds = [commands[i % len(commands)] for i in range(n_commands)]
    return cmds + [other] * n_others


def dwarf_losses(n_commands: int, n_others: int) -> list[str]:
    """What player 1 has eliminated (player 2's lost pile)."""
    return pile(DWARF_COMMANDS[1:], n_commands, n_others, "dwarves:35")


def orc_losses(n_commands: int, n_others: int) -> list[str]:
    """What player 2 has eliminated (player 1's lost pile)."""
    return pile(ORC_COMMANDS[1:], n_commands, n_others, "orcs:30")


def length_variant(length: str) -> dict[str, int]:
    units, commands = LENGTHS[length]
    return {"units_to_win": units, "commands_to_win": commands}


# --- 8.1 thresholds -------------------------------------------------------------------------


def test_standard_lengths_are_15_3_20_4_25_5():
    assert LENGTHS == {"15/3": (15, 3), "20/4": (20, 4), "25/5": (25, 5)}


@pytest.mark.parametrize("length", sorted(LENGTHS))
def test_eliminating_units_to_win_enemy_units_wins(length):
    units, _ = LENGTHS[length]
    # The Shanker's F4 eliminates the Slugger (def 3): the last unit needed.
    pos = make_position(
        board={"d4": ("dwarves:17", 2)},
        hands={1: ["orcs:09"]},
        lost={2: dwarf_losses(0, units - 1)},
        variant=length_variant(length),
    )
    play(pos, "deploy orcs:09 d3")
    assert pos.result is None  # checked at the end of the turn
    events = play(pos, "draw")
    assert pos.result == Result(1, Termination.UNITS, count=units)
    assert events_of(events, "result") == [
        {"type": "result", "winner": 1, "reason": f"{units} units eliminated", "termination": "units", "count": units}
    ]


@pytest.mark.parametrize("length", sorted(LENGTHS))
def test_one_unit_short_of_the_unit_threshold_does_not_win(length):
    units, _ = LENGTHS[length]
    pos = make_position(
        board={"d4": ("dwarves:17", 2)},
        hands={1: ["orcs:09"]},
        lost={2: dwarf_losses(0, units - 2)},
        variant=length_variant(length),
    )
    play(pos, "deploy orcs:09 d3", "draw")
    assert pos.result is None
    assert (pos.turn, pos.to_move) == (10, 2)


@pytest.mark.parametrize("length", sorted(LENGTHS))
def test_eliminating_commands_to_win_enemy_command_units_wins(length):
    _, commands = LENGTHS[length]
    # Jaeger Drakesbane (command, def 5) on d4 takes Gonke's F5 and the Shanker's B4 from d5.
    pos = make_position(
        board={"d4": ("dwarves:31", 2), "d5": ("orcs:06", 1)},
        hands={1: ["orcs:01"]},
        lost={2: dwarf_losses(commands - 1, 0)},
        variant=length_variant(length),
    )
    play(pos, "deploy orcs:01 d3", "draw")
    assert pos.result == Result(1, Termination.COMMANDS, count=commands)
    assert pos.result.reason == f"{commands} command units eliminated"


@pytest.mark.parametrize("length", sorted(LENGTHS))
def test_one_command_short_of_the_command_threshold_does_not_win(length):
    _, commands = LENGTHS[length]
    pos = make_position(
        board={"d4": ("dwarves:31", 2), "d5": ("orcs:06", 1)},
        hands={1: ["orcs:01"]},
        lost={2: dwarf_losses(commands - 2, 0)},
        variant=length_variant(length),
    )
    play(pos, "deploy orcs:01 d3", "draw")
    assert pos.result is None


def test_command_units_count_towards_the_unit_threshold():
    # 19 eliminated so far, 3 of them command units (below 4): the 20th unit wins by units.
    pos = make_position(
        board={"d4": ("dwarves:17", 2)},
        hands={1: ["orcs:09"]},
        lost={2: dwarf_losses(3, 16)},
    )
    play(pos, "deploy orcs:09 d3", "draw")
    assert pos.result == Result(1, Termination.UNITS, count=20)


def test_general_counts_as_a_command_unit():
    # Three command units eliminated before; Krod Klouthammer, the general, is the fourth.
    pos = make_position(
        board={"d4": ("dwarves:01", 2), "d5": ("orcs:06", 1)},
        hands={1: ["orcs:04"]},
        lost={2: dwarf_losses(3, 0)},
    )
    play(pos, "deploy orcs:04 c3", "draw")
    assert pos.result == Result(1, Termination.COMMANDS, count=4)


def test_win_ends_the_game_before_the_extra_turn_and_turn_and_to_move_stay():
    pos = make_position(
        board={"d4": ("dwarves:01", 2), "d5": ("orcs:06", 1)},
        hands={1: ["orcs:04"]},
        lost={2: dwarf_losses(3, 0)},
    )
    events = play(pos, "deploy orcs:04 c3", "draw")
    assert events_of(events, "extra_turn") == []
    assert (pos.turn, pos.to_move) == (9, 1)
    assert pos.is_over
    assert legal(pos) == set()
    doc = position_to_json(pos)
    assert doc["result"]["winner"] == 1 and "turn_state" not in doc
    assert doc["result"]["termination"] == "commands" and doc["result"]["count"] == 4
    with pytest.raises(IllegalActionError, match="over"):
        pos.push("draw")


# --- 8.2 both players past a threshold ----------------------------------------------------------


U, C = Termination.UNITS, Termination.COMMANDS


@pytest.mark.parametrize(
    ("by_1", "by_2", "want"),
    [
        pytest.param((0, 5), (0, 5), None, id="nobody_reached"),
        pytest.param((0, 20), (0, 5), Result(1, U, count=20), id="only_player1_reached_units"),
        pytest.param((0, 5), (4, 0), Result(2, C, count=4), id="only_player2_reached_commands"),
        pytest.param(
            (0, 25),
            (4, 0),
            Result(2, Termination.BOTH_COMMAND_THRESHOLD),
            id="command_threshold_beats_unit_threshold_p2",
        ),
        pytest.param(
            (4, 0),
            (3, 30),
            Result(1, Termination.BOTH_COMMAND_THRESHOLD),
            id="command_threshold_beats_unit_threshold_p1",
        ),
        pytest.param(
            (4, 18), (4, 16), Result(1, Termination.MORE_UNITS, threshold=C), id="both_commands_more_units_wins_p1"
        ),
        pytest.param(
            (4, 10), (4, 12), Result(2, Termination.MORE_UNITS, threshold=C), id="both_commands_more_units_wins_p2"
        ),
        pytest.param(
            (5, 15),
            (4, 16),
            Result(1, Termination.MORE_COMMANDS, threshold=C),
            id="both_commands_equal_units_more_commands_wins",
        ),
        pytest.param((4, 16), (4, 16), Result(None, Termination.EQUAL, threshold=C), id="both_commands_all_equal_draw"),
        pytest.param(
            (3, 17),
            (2, 19),
            Result(1, Termination.MORE_COMMANDS, threshold=U),
            id="both_units_more_commands_wins_before_units",
        ),
        pytest.param(
            (1, 20), (3, 17), Result(2, Termination.MORE_COMMANDS, threshold=U), id="both_units_more_commands_wins_p2"
        ),
        pytest.param(
            (2, 19),
            (2, 18),
            Result(1, Termination.MORE_UNITS, threshold=U),
            id="both_units_equal_commands_more_units_wins",
        ),
        pytest.param((2, 18), (2, 18), Result(None, Termination.EQUAL, threshold=U), id="both_units_all_equal_draw"),
    ],
)
def test_threshold_tie_breaks(by_1, by_2, want):
    """``by_p`` = (command units, other units) that player p has eliminated."""
    pos = make_position(lost={2: dwarf_losses(*by_1), 1: orc_losses(*by_2)})
    assert engine.threshold_result(pos) == want


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (
            Result(2, Termination.BOTH_COMMAND_THRESHOLD),
            "both reached a threshold; player 2 reached the command threshold",
        ),
        (
            Result(1, Termination.MORE_UNITS, threshold=C),
            "both reached the command threshold; player 1 eliminated more units",
        ),
        (
            Result(2, Termination.MORE_COMMANDS, threshold=U),
            "both reached the unit threshold; player 2 eliminated more command units",
        ),
        (
            Result(None, Termination.EQUAL, threshold=U),
            "both reached the unit threshold with equal units and command units",
        ),
        (Result(None, Termination.NO_PROGRESS, count=40), "no unit eliminated in 40 turns"),
        (Result(None, Termination.NO_ACTION), "neither player can deploy, draw or recall"),
    ],
)
def test_the_reason_sentence_is_written_from_the_code(result, reason):
    assert result.reason == reason


def test_both_reaching_the_unit_threshold_in_one_turn_is_decided_at_its_end():
    # Player 1 (19 eliminated, 1 command) makes a suicide move: both reach 20 units in this turn;
    # player 2 has eliminated more command units (2 against 1), so player 2 wins.
    pos = make_position(
        board={"d4": ("dwarves:04", 2)},
        hands={1: ["orcs:09"]},
        lost={2: dwarf_losses(1, 18), 1: orc_losses(2, 17)},
    )
    play(pos, "deploy orcs:09 d3")
    assert pos.result is None
    play(pos, "draw")
    assert pos.result == Result(2, Termination.MORE_COMMANDS, threshold=Termination.UNITS)


# --- 8.3 termination ------------------------------------------------------------------------------


def test_quiet_turns_count_every_turn_without_an_elimination():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]}, quiet_turns=3)
    play(pos, "deploy orcs:30 d3", "draw")
    assert pos.quiet_turns == 4


def test_quiet_turns_go_back_to_zero_after_a_turn_with_an_elimination():
    pos = make_position(board={"d4": ("dwarves:17", 2)}, hands={1: ["orcs:09"]}, quiet_turns=30)
    play(pos, "deploy orcs:09 d3", "draw")
    assert pos.quiet_turns == 0


def test_quiet_turns_count_the_opponents_elimination_of_my_unit_too():
    # Player 1's unit placed on d3 is eliminated: that is an elimination as well.
    pos = make_position(board={"d4": ("dwarves:32", 2)}, hands={1: ["orcs:09"]}, quiet_turns=30)
    play(pos, "deploy orcs:09 d3", "draw")
    assert pos.quiet_turns == 0


def test_no_progress_draw_when_quiet_turns_reach_the_limit():
    pos = make_position(
        board={"d4": ("dwarves:28", 2)},
        hands={1: ["orcs:30"]},
        quiet_turns=2,
        variant={"no_progress_turns": 3},
    )
    events = play(pos, "deploy orcs:30 d3", "draw")
    assert pos.quiet_turns == 3
    assert pos.result == Result(None, Termination.NO_PROGRESS, count=3)
    assert [(e["winner"], e["termination"], e["count"]) for e in events_of(events, "result")] == [
        (None, "no_progress", 3)
    ]
    assert (pos.turn, pos.to_move) == (9, 1)


def test_threshold_is_checked_before_the_no_progress_draw():
    # A (constructed) position where player 1 already has 20 units: the quiet turn that reaches
    # no_progress_turns still ends with player 1's win (8.2 before 8.3).
    pos = make_position(
        board={"d4": ("dwarves:28", 2)},
        hands={1: ["orcs:30"]},
        quiet_turns=2,
        lost={2: dwarf_losses(0, 20)},
        variant={"no_progress_turns": 3},
    )
    play(pos, "deploy orcs:30 d3", "draw")
    assert pos.result == Result(1, Termination.UNITS, count=20)


def test_no_progress_draw_one_turn_earlier_does_not_happen():
    pos = make_position(
        board={"d4": ("dwarves:28", 2)},
        hands={1: ["orcs:30"]},
        quiet_turns=1,
        variant={"no_progress_turns": 3},
    )
    play(pos, "deploy orcs:30 d3", "draw")
    assert pos.result is None and pos.quiet_turns == 2


def test_no_progress_turns_zero_turns_the_rule_off():
    pos = make_position(
        board={"d4": ("dwarves:28", 2)},
        hands={1: ["orcs:30"]},
        quiet_turns=5000,
        variant={"no_progress_turns": 0},
    )
    play(pos, "deploy orcs:30 d3", "draw")
    assert pos.result is None and pos.quiet_turns == 5001


def test_nobody_can_act_draw():
    # Both hands and decks are empty; the two units engage each other, so neither can be recalled.
    pos = make_position(
        board={"c3": ("orcs:11", 1), "d3": ("dwarves:15", 2)},
        hands={1: [], 2: []},
        decks={1: [], 2: []},
    )
    assert legal(pos) == {"pass"}
    play(pos, "pass")
    assert pos.result == Result(None, Termination.NO_ACTION)
    assert (pos.turn, pos.to_move) == (9, 1)


def test_no_draw_while_the_next_player_could_still_draw():
    pos = make_position(
        board={"c3": ("orcs:11", 1), "d3": ("dwarves:15", 2)},
        hands={1: [], 2: []},
        decks={1: [], 2: ["dwarves:35"]},
    )
    play(pos, "pass")
    assert pos.result is None
    assert (pos.turn, pos.to_move) == (10, 2)


def test_no_draw_while_a_player_could_still_recall_a_unit():
    # Player 2's Slugger on g6 is free: player 2 could recall it next turn.
    pos = make_position(
        board={"c3": ("orcs:11", 1), "d3": ("dwarves:15", 2), "g6": ("dwarves:17", 2)},
        hands={1: [], 2: []},
        decks={1: [], 2: []},
    )
    play(pos, "pass")
    assert pos.result is None


def test_resignation_ends_the_game_at_once():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    play(pos, "deploy orcs:30 d3")  # mid-turn
    events = engine.resign(pos, 1)
    assert pos.result == Result(2, Termination.RESIGNATION, player=1)
    assert events_of(events, "result") == [
        {"type": "result", "winner": 2, "reason": "player 1 resigned", "termination": "resignation", "player": 1}
    ]
    assert legal(pos) == set()
    with pytest.raises(IllegalActionError):
        engine.resign(pos, 2)


def test_player_not_to_move_may_resign():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    engine.resign(pos, 2)
    assert pos.result == Result(1, Termination.RESIGNATION, player=2)
    assert (pos.turn, pos.to_move) == (9, 1)


@pytest.mark.parametrize(
    ("how", "player", "want", "reason"),
    [
        ("time", 1, Result(2, Termination.TIMEOUT, player=1), "player 1 ran out of time"),
        ("deadline", 2, Result(1, Termination.DEADLINE, player=2), "player 2 missed the turn deadline"),
        ("agreed", None, Result(None, Termination.DRAW_AGREED), "draw agreed"),
    ],
)
def test_platform_endings_have_their_codes(how, player, want, reason):
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    events = engine.end_by_platform(pos, how, player)
    assert pos.result == want and pos.result.reason == reason
    assert events_of(events, "result")[0]["termination"] == want.termination.value
    assert engine.early_ending(want) == (how, player)


@pytest.mark.parametrize(
    ("ending", "want", "reason"),
    [
        (("abort", 2), Result(None, Termination.ABORTED, player=2), "aborted by player 2"),
        (
            ("resign", 1),
            Result(None, Termination.ABORTED, player=1, ending=Termination.RESIGNATION),
            "aborted: player 1 resigned",
        ),
        (
            ("time", 2),
            Result(None, Termination.ABORTED, player=2, ending=Termination.TIMEOUT),
            "aborted: player 2 ran out of time",
        ),
        (("agreed", None), Result(None, Termination.ABORTED, ending=Termination.DRAW_AGREED), "aborted: draw agreed"),
    ],
)
def test_an_aborted_game_keeps_who_and_which_ending_aborted_it(ending, want, reason):
    pos = make_position(turn=2, to_move=2)
    engine.abort(pos, ending)
    assert pos.result == want and pos.result.reason == reason
    assert engine.is_aborted(pos.result)
    how, player = ending
    assert engine.early_ending(want) == (how if how == "abort" else "abort:" + how, player)
