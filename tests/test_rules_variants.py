"""Variants and hidden information: clarifications 9 (and the length variants of 8.1)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from helpers import board_of, legal, lost_of, make_position, neighbours, play, position_doc

from lordsofwar.rules import mat
from lordsofwar.rules.errors import HiddenInformationError, InvalidActionError, NotationError
from lordsofwar.rules.notation import parse_position, position_to_json, view, view_json
from lordsofwar.rules.state import Result, Termination, Variant

# --- the variant object ----------------------------------------------------------------------------


def test_omitted_variant_fields_take_the_defaults():
    pos = make_position()
    assert pos.variant == Variant("intermediate", "hidden", "bordered", 20, 4, 40)
    assert position_to_json(pos)["variant"] == {
        "rules": "intermediate",
        "hands": "hidden",
        "mat": "bordered",
        "units_to_win": 20,
        "commands_to_win": 4,
        "no_progress_turns": 40,
    }


def test_variant_fields_are_read_and_written_back():
    v = {
        "rules": "basic",
        "hands": "visible",
        "mat": "unbordered",
        "units_to_win": 15,
        "commands_to_win": 3,
        "no_progress_turns": 0,
    }
    pos = make_position(variant=v)
    assert pos.variant == Variant("basic", "visible", "unbordered", 15, 3, 0)
    assert position_to_json(pos)["variant"] == v


def test_unknown_variant_value_is_refused_naming_the_field():
    with pytest.raises(NotationError, match=r"variant\.rules"):
        parse_position(position_doc(variant={"rules": "advanced"}))


# --- basic and intermediate rules ------------------------------------------------------------------


def test_basic_and_intermediate_rules_differ_only_in_berserkers_and_cavalry():
    # The same deployment: the Deathbringer advances only in the intermediate rules.
    board = {"d4": ("dwarves:28", 2)}
    inter = make_position(board=board, hands={1: ["orcs:35"]})
    basic = make_position(board=board, hands={1: ["orcs:35"]}, variant={"rules": "basic"})
    play(inter, "deploy orcs:35 d3")
    play(basic, "deploy orcs:35 d3")
    assert board_of(inter) == {"d4": ("orcs:35", 1)}
    assert board_of(basic) == {"d3": ("orcs:35", 1)}
    assert lost_of(inter, 2) == lost_of(basic, 2) == Counter({"dwarves:28": 1})


# --- hidden and visible hands (views) ---------------------------------------------------------------


def hidden_cards_position(hands: str = "hidden"):
    return make_position(
        board={"d4": ("dwarves:28", 2)},
        hands={1: ["orcs:24", "orcs:09"], 2: ["dwarves:02", "dwarves:03", "dwarves:05"]},
        decks={1: ["orcs:36", "orcs:12"], 2: ["dwarves:10"]},
        variant={"hands": hands},
    )


def test_hidden_hands_view_hides_the_opponents_hand_but_not_its_size():
    pos = hidden_cards_position()
    seen = view_json(pos, 1)
    assert seen["players"]["1"]["hand"] == ["orcs:24", "orcs:09"]
    assert seen["players"]["2"]["hand"] == [None, None, None]
    text = json.dumps(seen)
    for secret in ("dwarves:02", "dwarves:03", "dwarves:05", "dwarves:10", "orcs:36", "orcs:12"):
        assert secret not in text


def test_view_replaces_both_decks_by_their_sizes():
    pos = hidden_cards_position()
    for player in (1, 2):
        seen = view_json(pos, player)
        assert seen["players"]["1"]["deck"] == 2
        assert seen["players"]["2"]["deck"] == 1


def test_visible_hands_view_shows_the_opponents_hand():
    pos = hidden_cards_position("visible")
    seen = view_json(pos, 1)
    assert seen["players"]["2"]["hand"] == ["dwarves:02", "dwarves:03", "dwarves:05"]
    assert seen["players"]["2"]["deck"] == 1
    assert "dwarves:10" not in json.dumps(seen)


def test_view_reads_back_and_the_player_to_move_can_list_legal_actions():
    pos = hidden_cards_position()
    mine = view(pos, 1)
    assert mine.hands[2] == [None, None, None]
    assert legal(mine) == legal(pos)


def test_opponents_legal_actions_need_the_hidden_hand():
    pos = hidden_cards_position()
    with pytest.raises(HiddenInformationError):
        view(pos, 2).legal_actions()


# --- bordered and unbordered mats --------------------------------------------------------------------


def test_squares_may_be_written_as_x_y_and_are_printed_algebraically_on_the_mat():
    assert mat.parse("3,2") == mat.parse("d3")
    assert mat.name(mat.parse("-1,2", bordered=False)) == "-1,2"
    pos = make_position(board={"3,2": ("orcs:09", 1), "d4": ("dwarves:28", 2)})
    assert board_of(pos) == {"d3": ("orcs:09", 1), "d4": ("dwarves:28", 2)}
    assert {e["square"] for e in position_to_json(pos)["board"]} == {"d3", "d4"}


def test_off_mat_square_is_refused_on_the_bordered_mat():
    with pytest.raises(NotationError, match=r"board\[0\]\.square"):
        make_position(board={"-1,2": ("orcs:09", 1)})
    pos = make_position(board={"a4": ("dwarves:06", 2)}, hands={1: ["orcs:04"]})
    with pytest.raises(InvalidActionError, match="-1,2"):
        pos.push("deploy orcs:04 -1,2")


def test_unbordered_mat_deploys_and_engages_beyond_the_printed_edge():
    # Ravager orcs:04 (FL2 F3 FR5 L1) engages the Marauder on a4 = (0, 3) from b3 (FL), a3 (F),
    # b4 (L) and, off the printed mat, from -1,2 (FR). Its FR5 eliminates the Marauder (def 4).
    pos = make_position(board={"a4": ("dwarves:06", 2)}, hands={1: ["orcs:04"]}, variant={"mat": "unbordered"})
    assert legal(pos) == {"deploy orcs:04 b3", "deploy orcs:04 a3", "deploy orcs:04 b4", "deploy orcs:04 -1,2"}
    play(pos, "deploy orcs:04 -1,2")
    assert board_of(pos) == {"-1,2": ("orcs:04", 1)}
    assert position_to_json(pos)["board"] == [{"square": "-1,2", "card": "orcs:04", "owner": 1}]


def test_unbordered_free_deployment_surrounds_a_corner_unit_on_all_sides():
    pos = make_position(board={"a1": ("orcs:09", 1)}, hands={1: ["orcs:30"]}, variant={"mat": "unbordered"})
    expected = {"a2", "b1", "b2", "-1,-1", "-1,0", "-1,1", "0,-1", "1,-1"}
    assert legal(pos) == {f"deploy orcs:30 {s}" for s in expected}
    bordered = make_position(board={"a1": ("orcs:09", 1)}, hands={1: ["orcs:30"]})
    assert legal(bordered) == {f"deploy orcs:30 {s}" for s in neighbours("a1")}


# --- game lengths ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("units", "commands"), [(15, 3), (20, 4), (25, 5)])
def test_length_variant_sets_both_thresholds(units, commands):
    pos = make_position(
        board={"d4": ("dwarves:17", 2)},
        hands={1: ["orcs:09"]},
        lost={2: ["dwarves:35"] * (units - 1)},
        variant={"units_to_win": units, "commands_to_win": commands},
    )
    assert pos.variant.units_to_win == units and pos.variant.commands_to_win == commands
    play(pos, "deploy orcs:09 d3", "draw")
    assert pos.result == Result(1, Termination.UNITS, count=units)
    assert pos.result.reason == f"{units} units eliminated"
