"""Deployment: clarifications 3 (Engagement Rule, support units, free, special free and forced
deployment, and turns without a deployment)."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import all_squares, board_of, events_of, hand_of, legal, make_position, neighbours, play

from lordsofwar.rules.errors import IllegalActionError, InvalidActionError
from lordsofwar.rules.notation import position_to_json, view_json


def deploy_set(card: str, squares) -> set[str]:
    return {f"deploy {card} {s}" for s in squares}


# --- 3.3 the Engagement Rule and support units -------------------------------------------------


def test_engagement_rule_allows_exactly_the_squares_where_an_arrow_points_at_an_enemy():
    # orcs:30 Goblin Shanker (F4 FR1) against a unit on d4: from d3 (F) or c3 (FR). No
    # friendly neighbour is needed; the far friend on g1 changes nothing.
    pos = make_position(board={"d4": ("dwarves:28", 2), "g1": ("orcs:09", 1)}, hands={1: ["orcs:30"]})
    assert legal(pos) == deploy_set("orcs:30", ["c3", "d3"])


def test_player2_engagement_rule_uses_turned_arrows():
    # For player 2, F points at -y and R at -x: Slugger dwarves:17 (F3) engages d3 from d4,
    # Slugger dwarves:15 (R3) from e3.
    pos = make_position(board={"d3": ("dwarves:28", 1)}, hands={2: ["dwarves:17", "dwarves:15"]}, to_move=2)
    assert legal(pos) == {"deploy dwarves:17 d4", "deploy dwarves:15 e3"}


def test_spear_unit_may_deploy_next_to_a_friend_without_engaging():
    # Goblin Spikeman orcs:11 (FR1 R1 BR1): next to the friend on a1, or engaging g6 (f5 by FR,
    # f6 by R).
    pos = make_position(board={"a1": ("orcs:09", 1), "g6": ("dwarves:28", 2)}, hands={1: ["orcs:11"]})
    assert legal(pos) == deploy_set("orcs:11", ["a2", "b1", "b2", "f5", "f6"])


def test_ranged_unit_is_a_support_unit():
    # Orc Catapult orcs:24 (L1 R1): next to the friend on a1, or engaging g6 by R from f6.
    pos = make_position(board={"a1": ("orcs:09", 1), "g6": ("dwarves:28", 2)}, hands={1: ["orcs:24"]})
    assert legal(pos) == deploy_set("orcs:24", ["a2", "b1", "b2", "f6"])


def test_infantry_cavalry_and_berserkers_must_engage_even_next_to_a_friend():
    pos = make_position(
        board={"a1": ("orcs:09", 1), "g6": ("dwarves:28", 2)},
        hands={1: ["orcs:30", "orcs:07", "orcs:35"]},
    )
    assert legal(pos) == (
        deploy_set("orcs:30", ["f5", "g5"])  # infantry: F, FR
        | deploy_set("orcs:07", ["f5", "g5", "f6"])  # cavalry: F, FR, R
        | deploy_set("orcs:35", ["f5", "g5"])  # berserker: F, FR (FL would need h5)
    )
    before = position_to_json(pos)
    with pytest.raises(IllegalActionError, match=r"3\.3"):
        pos.push("deploy orcs:30 a2")
    assert position_to_json(pos) == before


# --- 3.2 free deployment and 3.1 special free deployment -----------------------------------------


def test_free_deployment_when_no_enemy_unit_is_on_the_mat_any_class_next_to_a_friend():
    pos = make_position(board={"d3": ("orcs:09", 1)}, hands={1: ["orcs:30", "orcs:11", "orcs:07"]})
    squares = neighbours("d3")
    assert len(squares) == 8
    assert legal(pos) == deploy_set("orcs:30", squares) | deploy_set("orcs:11", squares) | deploy_set(
        "orcs:07", squares
    )


def test_free_deployment_at_the_edge_of_the_bordered_mat_stays_on_the_mat():
    pos = make_position(board={"a1": ("orcs:09", 1)}, hands={1: ["orcs:30"]})
    assert legal(pos) == deploy_set("orcs:30", ["a2", "b1", "b2"])


def test_free_deployment_for_player2():
    pos = make_position(board={"g6": ("dwarves:17", 2)}, hands={2: ["dwarves:15"]}, to_move=2)
    assert legal(pos) == deploy_set("dwarves:15", ["f5", "f6", "g5"])


def test_special_free_deployment_on_an_empty_mat_allows_every_square():
    pos = make_position(hands={1: ["orcs:30", "orcs:11"]})
    assert legal(pos) == deploy_set("orcs:30", all_squares()) | deploy_set("orcs:11", all_squares())
    assert len(all_squares()) == 42


def test_special_free_deployment_on_the_unbordered_mat_uses_only_the_42_printed_squares():
    pos = make_position(hands={1: ["orcs:30"]}, variant={"mat": "unbordered"})
    assert legal(pos) == deploy_set("orcs:30", all_squares())
    with pytest.raises(IllegalActionError):
        pos.push("deploy orcs:30 -1,2")


# --- 3.4 forced deployment ------------------------------------------------------------------------


def test_forced_deployment_when_no_hand_card_can_engage():
    # The Marauder on a1 can only be engaged by an arrow pointing back-left or back: neither
    # Goblin Shanker orcs:09 (FL1 F4) nor Gonke Longtooth orcs:01 (FL5 F5 FR5) has one.
    pos = make_position(board={"a1": ("dwarves:06", 2)}, hands={1: ["orcs:09", "orcs:01"]})
    assert legal(pos) == deploy_set("orcs:09", ["a2", "b1", "b2"]) | deploy_set("orcs:01", ["a2", "b1", "b2"])


def test_forced_deployment_reveals_the_whole_hand_including_the_placed_card():
    pos = make_position(board={"a1": ("dwarves:06", 2)}, hands={1: ["orcs:09", "orcs:01"]})
    events = play(pos, "deploy orcs:01 b2")
    reveals = events_of(events, "reveal")
    assert len(reveals) == 1
    assert reveals[0]["player"] == 1
    assert Counter(reveals[0]["hand"]) == Counter({"orcs:09": 1, "orcs:01": 1})
    assert board_of(pos) == {"a1": ("dwarves:06", 2), "b2": ("orcs:01", 1)}
    assert hand_of(pos, 1) == Counter({"orcs:09": 1})


def test_forced_deployment_reveal_is_shown_in_the_opponents_view():
    pos = make_position(board={"a1": ("dwarves:06", 2)}, hands={1: ["orcs:09", "orcs:01"]})
    events = play(pos, "deploy orcs:01 b2")
    seen = view_json(pos, 2, events)
    assert seen["players"]["1"]["hand"] == [None]  # hidden hands: the rest stays hidden
    reveals = [e for e in seen["events"] if e["type"] == "reveal"]
    assert Counter(reveals[0]["hand"]) == Counter({"orcs:09": 1, "orcs:01": 1})


def test_no_forced_deployment_when_one_hand_card_can_engage():
    # Orc Deathbringer orcs:02 (BL3 B5 BR3) engages a1 from a2 (B) or b2 (BL): no forced
    # deployment for the other card, and no reveal.
    pos = make_position(board={"a1": ("dwarves:06", 2)}, hands={1: ["orcs:09", "orcs:02"]})
    assert legal(pos) == {"deploy orcs:02 a2", "deploy orcs:02 b2"}
    events = play(pos, "deploy orcs:02 b2")
    assert events_of(events, "reveal") == []


def test_unit_without_arrows_and_without_a_friend_is_forced_next_to_an_enemy():
    # Dwarf Sharpshooter dwarves:28 has no arrows; player 2 has no unit on the mat.
    pos = make_position(board={"d3": ("orcs:09", 1)}, hands={2: ["dwarves:28"]}, to_move=2)
    assert legal(pos) == deploy_set("dwarves:28", neighbours("d3"))
    events = play(pos, "deploy dwarves:28 e2")
    assert [(e["player"], e["hand"]) for e in events_of(events, "reveal")] == [(2, ["dwarves:28"])]


# --- turns without a deployment -------------------------------------------------------------------


def test_empty_hand_turn_goes_straight_to_the_post_deployment_phase():
    pos = make_position(board={"d2": ("orcs:24", 1), "d5": ("dwarves:17", 2)}, hands={1: []})
    assert legal(pos) == {"draw", "recall d2", "shoot d2 d5"}
    with pytest.raises(IllegalActionError, match=r"3\.4"):
        pos.push("deploy orcs:09 c3")
    events = play(pos, "shoot d2 d5")  # a fired shot: its check runs at once
    assert events_of(events, "eliminated") == [{"type": "eliminated", "square": "d5", "card": "dwarves:17", "owner": 2}]
    assert legal(pos) == {"draw"}  # the Catapult took part: no recall


def test_no_deployment_when_no_empty_square_is_next_to_an_enemy():
    # The only enemy (a1) is surrounded by player 1's units, none of which engages it; the
    # infantry in hand can neither engage nor be forced anywhere.
    pos = make_position(
        board={"a1": ("dwarves:06", 2), "a2": ("orcs:09", 1), "b1": ("orcs:09", 1), "b2": ("orcs:09", 1)},
        hands={1: ["orcs:30"]},
    )
    assert legal(pos) == {"draw", "recall a2", "recall b1", "recall b2"}
    before = position_to_json(pos)
    with pytest.raises(IllegalActionError, match=r"3\.4"):
        pos.push("deploy orcs:30 c3")
    assert position_to_json(pos) == before


# --- one deployment per turn, before the reinforcement ---------------------------------------------


def test_reinforcement_is_refused_before_the_deployment():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    with pytest.raises(IllegalActionError, match=r"clarifications 3"):
        pos.push("draw")


def test_only_one_deployment_per_turn():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30", "orcs:30"]})
    play(pos, "deploy orcs:30 d3")
    assert not any(a.startswith("deploy") for a in legal(pos))
    with pytest.raises(IllegalActionError, match="already"):
        pos.push("deploy orcs:30 c3")


def test_copies_of_a_card_in_hand_give_one_action_per_square():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30", "orcs:30", "orcs:30"]})
    actions = [str(a) for a in pos.legal_actions()]
    assert len(actions) == len(set(actions))
    assert set(actions) == deploy_set("orcs:30", ["c3", "d3"])
    play(pos, "deploy orcs:30 d3")
    assert Counter(pos.hands[1]) == Counter({"orcs:30": 2})


def test_deploying_a_card_not_in_hand_is_refused():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    with pytest.raises(IllegalActionError, match="not in player 1's hand"):
        pos.push("deploy orcs:09 d3")


def test_deploying_on_an_occupied_square_is_refused():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    with pytest.raises(IllegalActionError, match="occupied"):
        pos.push("deploy orcs:30 d4")


def test_deploying_an_unknown_card_or_off_mat_square_is_a_notation_error():
    pos = make_position(board={"d4": ("dwarves:28", 2)}, hands={1: ["orcs:30"]})
    with pytest.raises(InvalidActionError, match="orcs:99"):
        pos.push("deploy orcs:99 d3")
    with pytest.raises(InvalidActionError, match="h9"):
        pos.push("deploy orcs:30 h9")
