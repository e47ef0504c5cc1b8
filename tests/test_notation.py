"""Notation (notation.md 2-5): positions, actions, views and game records, readers and writers."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

import pytest
from strategies import GameSetup, holdings, leaked_ids, play

from lordsofwar.rules import mat
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.errors import IllegalActionError, InvalidActionError, NotationError
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import (
    GameRecord,
    deal,
    dumps,
    loads,
    parse_action,
    parse_position,
    parse_record,
    play_through,
    position_from_text,
    position_to_json,
    record_from_text,
    replay,
    view,
    view_json,
)
from lordsofwar.rules.state import Action, Position, Result, Termination, Variant

Doc = dict[str, Any]


def base_doc() -> Doc:
    """A start-of-turn position: an orc catapult on d2 behind a goblin on d3, a dwarf on d5."""
    return {
        "format": "lordsofwar-position",
        "version": 1,
        "variant": {},
        "turn": 9,
        "to_move": 1,
        "quiet_turns": 2,
        "board": [
            {"square": "d2", "card": "orcs:24", "owner": 1},
            {"square": "d3", "card": "orcs:09", "owner": 1},
            {"square": "d5", "card": "dwarves:17", "owner": 2},
        ],
        "players": {
            "1": {"army": "orcs", "hand": ["orcs:30", "orcs:06"], "deck": ["orcs:31", "orcs:33"], "lost": ["orcs:02"]},
            "2": {"army": "dwarves", "hand": ["dwarves:35"], "deck": ["dwarves:23"], "lost": []},
        },
        "result": None,
    }


def berserker_doc() -> Doc:
    """Two dwarves that an orc berserker deployed on d3 eliminates together (clarifications 6.2)."""
    return {
        "format": "lordsofwar-position",
        "version": 1,
        "variant": {},
        "turn": 9,
        "to_move": 1,
        "quiet_turns": 0,
        "board": [
            {"square": "c4", "card": "dwarves:04", "owner": 2},
            {"square": "d4", "card": "dwarves:11", "owner": 2},
        ],
        "players": {
            "1": {"army": "orcs", "hand": ["orcs:35", "orcs:09"], "deck": ["orcs:30", "orcs:33"], "lost": []},
            "2": {
                "army": "dwarves",
                "hand": ["dwarves:17", "dwarves:35"],
                "deck": ["dwarves:35", "dwarves:23"],
                "lost": [],
            },
        },
        "result": None,
    }


def opponent_berserker_doc() -> Doc:
    """Player 1's spear deployed on d3 dies; player 2's berserker advances into d3, then must choose (6.3)."""
    return {
        "format": "lordsofwar-position",
        "version": 1,
        "turn": 9,
        "to_move": 1,
        "board": [
            {"square": "d2", "card": "orcs:06", "owner": 1},
            {"square": "e2", "card": "orcs:06", "owner": 1},
            {"square": "d4", "card": "dwarves:13", "owner": 2},
        ],
        "players": {
            "1": {"army": "orcs", "hand": ["orcs:11", "orcs:30"], "deck": ["orcs:30", "orcs:33"]},
            "2": {"army": "dwarves", "hand": ["dwarves:17", "dwarves:35"], "deck": ["dwarves:35", "dwarves:23"]},
        },
    }


def near_win_doc() -> Doc:
    """Player 1 has eliminated 19 dwarves; one more (on d4) wins at the end of the turn (8.2)."""
    doc = berserker_doc()
    doc["board"] = [{"square": "d4", "card": "dwarves:11", "owner": 2}]
    doc["players"]["2"]["lost"] = ["dwarves:35"] * 10 + ["dwarves:23"] * 9
    return doc


def text_round_trip(pos: Position) -> Doc:
    """position_to_json -> JSON text -> parse -> position_to_json, asserting equality."""
    doc = position_to_json(pos)
    again = position_to_json(position_from_text(dumps(doc)))
    assert again == doc
    return doc


def legal_strings(pos: Position) -> list[str]:
    return sorted(str(a) for a in pos.legal_actions())


def standard_decks(a: str = "orcs", b: str = "dwarves") -> list[list[str]]:
    return [CORE.standard_deck(a), CORE.standard_deck(b)]


# --- positions: writing and reading back ----------------------------------------------------------


def test_opening_position_round_trips() -> None:
    pos = deal(standard_decks(), 2024)
    doc = text_round_trip(pos)
    assert doc["turn"] == 1 and doc["to_move"] == 1 and doc["quiet_turns"] == 0
    assert doc["board"] == [] and doc["result"] is None
    assert "turn_state" not in doc
    assert [len(doc["players"][p]["hand"]) for p in "12"] == [6, 6]
    assert [len(doc["players"][p]["deck"]) for p in "12"] == [30, 30]
    assert legal_strings(position_from_text(dumps(doc))) == legal_strings(pos)


def test_start_of_turn_position_reads_and_writes_the_same_json() -> None:
    doc = base_doc()
    assert position_to_json(parse_position(doc)) == {**doc, "variant": Variant().to_json()}


def test_mid_turn_after_a_declared_shot_round_trips() -> None:
    pos = parse_position(base_doc())
    assert "shoot d2 d5" in legal_strings(pos)
    pos.push("shoot d2 d5")  # before the deployment: a declaration (5.3)
    doc = text_round_trip(pos)
    ts = doc["turn_state"]
    assert ts["phase"] == "pre"
    assert ts["decider"] == 1
    again = position_from_text(dumps(doc))
    assert legal_strings(again) == legal_strings(pos)
    assert "shoot d2 d5" not in legal_strings(again)  # one shot per ranged unit (5.1)
    assert all(a.startswith("deploy ") for a in legal_strings(again))


def test_declared_shot_survives_the_round_trip_into_the_deployment() -> None:
    pos = parse_position(base_doc())
    pos.push("shoot d2 d5")
    again = position_from_text(dumps(position_to_json(pos)))
    deploy = legal_strings(pos)[0]
    assert position_to_json(pos.apply(deploy)[0]) == position_to_json(again.apply(deploy)[0])


def test_mid_turn_with_berserker_choice_pending_round_trips() -> None:
    pos = parse_position(berserker_doc())
    pos.push("deploy orcs:35 d3")
    assert legal_strings(pos) == ["advance d3 c4", "advance d3 d4"]
    doc = text_round_trip(pos)
    assert doc["turn_state"]["phase"] == "advance"
    assert doc["turn_state"]["decider"] == 1
    again = position_from_text(dumps(doc))
    assert legal_strings(again) == ["advance d3 c4", "advance d3 d4"]
    for choice in ("advance d3 c4", "advance d3 d4"):
        assert position_to_json(again.apply(choice)[0]) == position_to_json(pos.apply(choice)[0])


def test_opponent_berserker_choice_makes_the_opponent_decider() -> None:
    pos = parse_position(opponent_berserker_doc())
    pos.push("deploy orcs:11 d3")
    doc = text_round_trip(pos)
    assert doc["to_move"] == 1
    assert doc["turn_state"]["decider"] == 2 == pos.decider
    assert legal_strings(position_from_text(dumps(doc))) == ["advance d3 d2", "advance d3 e2"]


def test_finished_position_round_trips() -> None:
    pos = parse_position(near_win_doc())
    pos.push("deploy orcs:35 d3")
    pos.push("draw")
    assert pos.result is not None and pos.result.winner == 1
    doc = text_round_trip(pos)
    assert doc["result"]["winner"] == 1 and isinstance(doc["result"]["reason"], str)
    assert "turn_state" not in doc
    again = position_from_text(dumps(doc))
    assert again.is_over and again.result == pos.result
    assert again.legal_actions() == []


def test_draw_result_round_trips() -> None:
    doc = base_doc()
    doc["result"] = {
        "winner": None,
        "reason": "no unit eliminated in 40 turns",
        "termination": "no_progress",
        "count": 40,
    }
    pos = parse_position(doc)
    assert pos.result == Result(None, Termination.NO_PROGRESS, count=40)
    assert position_to_json(pos)["result"] == doc["result"]
    assert pos.legal_actions() == []


def test_result_is_read_from_its_code_not_its_sentence() -> None:
    doc = base_doc()
    doc["result"] = {"winner": 2, "reason": "anything", "termination": "timeout", "player": 1}
    pos = parse_position(doc)
    assert pos.result == Result(2, Termination.TIMEOUT, player=1)
    assert position_to_json(pos)["result"]["reason"] == "player 1 ran out of time"


@pytest.mark.parametrize(
    ("result", "field"),
    [
        ({"winner": 1, "termination": "checkmate"}, "result.termination"),
        ({"winner": 1, "termination": "units"}, "result.count"),
        ({"winner": 1, "termination": "units", "count": "20"}, "result.count"),
        ({"winner": 1, "termination": "units", "count": -1}, "result.count"),
        ({"winner": None, "termination": "units", "count": 20}, "result.winner"),
        ({"winner": 1, "termination": "resignation", "player": 1}, "result.winner"),
        ({"winner": 2, "termination": "resignation"}, "result.player"),
        ({"winner": 1, "termination": "more_units"}, "result.threshold"),
        ({"winner": 1, "termination": "more_units", "threshold": "equal"}, "result.threshold"),
        ({"winner": None, "termination": "aborted", "player": 1, "ending": "units"}, "result.ending"),
        ({"winner": None, "termination": "no_action", "ending": "resignation"}, "result.ending"),
        ({"winner": 1, "reason": "20 units eliminated", "count": 20}, "result.count"),
        ({"winner": 1, "reason": "20 units lost"}, "result.reason"),
    ],
)
def test_result_that_does_not_fit_its_termination_is_refused(result: dict[str, Any], field: str) -> None:
    doc = base_doc()
    doc["result"] = result
    with pytest.raises(NotationError) as err:
        parse_position(doc)
    assert str(err.value).startswith(field), err.value


LEGACY_RESULTS = [
    ({"winner": 1, "reason": "20 units eliminated"}, Result(1, Termination.UNITS, count=20)),
    ({"winner": 2, "reason": "4 command units eliminated"}, Result(2, Termination.COMMANDS, count=4)),
    (
        {"winner": 2, "reason": "both reached a threshold; player 2 reached the command threshold"},
        Result(2, Termination.BOTH_COMMAND_THRESHOLD),
    ),
    (
        {"winner": 1, "reason": "both reached the unit threshold; player 1 eliminated more command units"},
        Result(1, Termination.MORE_COMMANDS, threshold=Termination.UNITS),
    ),
    (
        {"winner": 2, "reason": "both reached the command threshold; player 2 eliminated more units"},
        Result(2, Termination.MORE_UNITS, threshold=Termination.COMMANDS),
    ),
    (
        {"winner": None, "reason": "both reached the command threshold with equal units and command units"},
        Result(None, Termination.EQUAL, threshold=Termination.COMMANDS),
    ),
    ({"winner": None, "reason": "no unit eliminated in 40 turns"}, Result(None, Termination.NO_PROGRESS, count=40)),
    ({"winner": None, "reason": "neither player can deploy, draw or recall"}, Result(None, Termination.NO_ACTION)),
    ({"winner": 1, "reason": "player 2 resigned"}, Result(1, Termination.RESIGNATION, player=2)),
    ({"winner": 2, "reason": "player 1 ran out of time"}, Result(2, Termination.TIMEOUT, player=1)),
    ({"winner": 1, "reason": "player 2 missed the turn deadline"}, Result(1, Termination.DEADLINE, player=2)),
    ({"winner": None, "reason": "draw agreed"}, Result(None, Termination.DRAW_AGREED)),
    ({"winner": None, "reason": "aborted by player 2"}, Result(None, Termination.ABORTED, player=2)),
    (
        {"winner": None, "reason": "aborted: player 1 resigned"},
        Result(None, Termination.ABORTED, player=1, ending=Termination.RESIGNATION),
    ),
    (
        {"winner": None, "reason": "aborted: player 2 missed the turn deadline"},
        Result(None, Termination.ABORTED, player=2, ending=Termination.DEADLINE),
    ),
    (
        {"winner": None, "reason": "aborted: draw agreed"},
        Result(None, Termination.ABORTED, ending=Termination.DRAW_AGREED),
    ),
]
"""Results as positions and records wrote them before the codes (winner and sentence only)."""


@pytest.mark.parametrize(("old", "result"), LEGACY_RESULTS, ids=[r.termination.value for _o, r in LEGACY_RESULTS])
def test_position_written_before_the_codes_reads_its_result_as_a_code(old: dict[str, Any], result: Result) -> None:
    doc = base_doc()
    doc["result"] = old
    pos = parse_position(json.loads(json.dumps(doc)))
    assert pos.result == result
    assert pos.result.reason == old["reason"]
    written = position_to_json(pos)["result"]
    assert written["termination"] == result.termination.value
    assert {k: written[k] for k in ("winner", "reason")} == old
    assert parse_position({**doc, "result": written}).result == result


def test_record_written_before_the_codes_replays_with_its_code() -> None:
    record, _ = played_record(9)
    old = record.to_json()
    old["actions"] = old["actions"][:25]
    old["result"] = {"winner": 1, "reason": "player 2 resigned"}
    final = replay(parse_record(old))[-1]
    assert final.result == Result(1, Termination.RESIGNATION, player=2)
    old["actions"] = old["actions"][:2]
    old["result"] = {"winner": None, "reason": "aborted: player 1 ran out of time"}
    final = replay(parse_record(old))[-1]
    assert final.result == Result(None, Termination.ABORTED, player=1, ending=Termination.TIMEOUT)


def test_turn_state_is_present_exactly_mid_turn() -> None:
    pos = parse_position(base_doc())
    assert "turn_state" not in position_to_json(pos)
    pos.push("deploy orcs:30 d4")
    ts = position_to_json(pos)["turn_state"]
    assert ts["phase"] == "post" and ts["decider"] == 1
    pos.push("draw")
    assert pos.to_move == 2
    assert "turn_state" not in position_to_json(pos)


def test_turn_state_appears_in_every_mid_turn_position_of_a_game() -> None:
    setup = GameSetup((CORE.standard_deck("elves"), CORE.standard_deck("undead")), 77, Variant())

    def check(before: Position, action: Action, after: Position, events: list[Event]) -> None:
        doc = position_to_json(after)
        ends_turn = action.kind in ("draw", "recall", "pass")
        assert ("turn_state" in doc) == (not ends_turn), str(action)
        if "turn_state" in doc:
            assert doc["turn_state"]["phase"] in ("pre", "advance", "post")
            assert doc["turn_state"]["decider"] == after.decider

    play(setup, random.Random(77), check)


def test_events_are_added_when_given() -> None:
    pos = parse_position(base_doc())
    events = pos.push("deploy orcs:30 d4")
    doc = position_to_json(pos, events)
    assert doc["events"] == events
    assert all("type" in e for e in doc["events"])
    assert parse_position(json.loads(dumps(doc))).board == pos.board


def test_omitted_fields_take_their_defaults() -> None:
    doc = base_doc()
    del doc["variant"], doc["quiet_turns"], doc["result"]
    for p in "12":
        del doc["players"][p]["deck"], doc["players"][p]["lost"]
    pos = parse_position(doc)
    assert pos.variant == Variant()
    assert pos.quiet_turns == 0
    assert pos.result is None
    assert pos.decks[1] == [] and pos.decks[2] == []
    assert pos.lost[1] == [] and pos.lost[2] == []
    out = position_to_json(pos)
    assert out["variant"] == {
        "rules": "intermediate",
        "hands": "hidden",
        "mat": "bordered",
        "units_to_win": 20,
        "commands_to_win": 4,
        "no_progress_turns": 40,
    }
    assert out["quiet_turns"] == 0
    assert out["players"]["1"]["deck"] == [] and out["players"]["1"]["lost"] == []


def test_partial_variant_keeps_other_defaults() -> None:
    doc = base_doc()
    doc["variant"] = {"rules": "basic", "units_to_win": 15}
    v = parse_position(doc).variant
    assert v == Variant(rules="basic", units_to_win=15)


def test_on_mat_square_written_as_xy_is_read_and_written_algebraically() -> None:
    doc = base_doc()
    doc["board"][1]["square"] = "3,2"
    out = position_to_json(parse_position(doc))
    assert [e["square"] for e in out["board"]] == ["d2", "d3", "d5"]


def test_off_mat_square_on_unbordered_mat_round_trips() -> None:
    doc = base_doc()
    doc["variant"] = {"mat": "unbordered"}
    doc["board"].append({"square": "-1,7", "card": "dwarves:23", "owner": 2})
    pos = parse_position(doc)
    assert pos.unit_at("-1,7") == CORE["dwarves:23"]
    out = text_round_trip(pos)
    assert {"square": "-1,7", "card": "dwarves:23", "owner": 2} in out["board"]


def test_square_names() -> None:
    assert mat.name(mat.parse("a1")) == "a1"
    assert mat.coords(mat.parse("a1")) == (0, 0)
    assert mat.coords(mat.parse("g6")) == (6, 5)
    assert mat.parse("3,2") == mat.parse("d3")
    assert mat.name(mat.square(-1, 3)) == "-1,3"
    assert len(mat.ON_MAT) == 42
    assert {mat.name(s) for s in mat.ON_MAT} == {f"{c}{r}" for c in "abcdefg" for r in range(1, 7)}


# --- positions: bad input ------------------------------------------------------------------------


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _del(path: tuple[Any, ...]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


def _append_board(entry: Doc) -> Callable[[Doc], None]:
    return lambda doc: doc["board"].append(entry)


BAD_POSITIONS: list[tuple[str, Callable[[Doc], None], list[str]]] = [
    ("unknown-card-on-board", _set(("board", 0, "card"), "orcs:99"), ["board[0]", "orcs:99"]),
    ("unknown-card-in-hand", _set(("players", "1", "hand", 1), "elves:77"), ["players.1.hand[1]", "elves:77"]),
    ("unknown-card-in-deck", _set(("players", "2", "deck", 0), "goblins:01"), ["players.2.deck[0]", "goblins:01"]),
    ("unknown-card-in-lost", _set(("players", "1", "lost", 0), "orcs:00"), ["players.1.lost[0]", "orcs:00"]),
    ("card-not-a-string", _set(("players", "1", "hand", 0), 7), ["players.1.hand[0]"]),
    ("off-mat-square-bordered", _set(("board", 0, "square"), "-1,2"), ["board[0].square", "-1,2"]),
    ("off-mat-square-h1", _set(("board", 0, "square"), "h1"), ["board[0].square", "h1"]),
    ("malformed-square", _set(("board", 2, "square"), "z9"), ["board[2].square", "z9"]),
    ("square-not-a-string", _set(("board", 2, "square"), 33), ["board[2].square"]),
    ("two-units-on-one-square", _set(("board", 2, "square"), "d3"), ["board[2].square", "d3"]),
    ("owner-3", _set(("board", 0, "owner"), 3), ["board[0].owner"]),
    ("board-entry-missing-card", _del(("board", 0, "card")), ["board[0].card"]),
    ("board-entry-unknown-field", _set(("board", 0, "facing"), "north"), ["board[0]", "facing"]),
    ("board-not-a-list", _set(("board",), {"d3": "orcs:09"}), ["board"]),
    ("hand-of-9", _set(("players", "1", "hand"), ["orcs:30"] * 9), ["players.1.hand", "9"]),
    ("hand-of-7", _set(("players", "2", "hand"), ["dwarves:35"] * 7), ["players.2.hand", "7"]),
    ("wrong-format", _set(("format",), "lordsofwar-game"), ["format"]),
    ("missing-format", _del(("format",)), ["format"]),
    ("version-2", _set(("version",), 2), ["version"]),
    ("version-string", _set(("version",), "1"), ["version"]),
    ("version-true", _set(("version",), True), ["version"]),
    ("missing-turn", _del(("turn",)), ["turn"]),
    ("missing-to-move", _del(("to_move",)), ["to_move"]),
    ("missing-board", _del(("board",)), ["board"]),
    ("missing-players", _del(("players",)), ["players"]),
    ("missing-player-2", _del(("players", "2")), ["players.2"]),
    ("player-3", _set(("players", "3"), {"hand": []}), ["players", "3"]),
    ("to-move-3", _set(("to_move",), 3), ["to_move"]),
    ("to-move-0", _set(("to_move",), 0), ["to_move"]),
    ("to-move-string", _set(("to_move",), "1"), ["to_move"]),
    ("turn-0", _set(("turn",), 0), ["turn"]),
    ("turn-float", _set(("turn",), 9.5), ["turn"]),
    ("negative-quiet-turns", _set(("quiet_turns",), -1), ["quiet_turns"]),
    ("unknown-top-level-field", _set(("colour",), "red"), ["colour"]),
    ("unknown-player-field", _set(("players", "1", "score"), 3), ["players.1", "score"]),
    ("variant-rules", _set(("variant",), {"rules": "advanced"}), ["variant.rules"]),
    ("variant-hands", _set(("variant",), {"hands": "open"}), ["variant.hands"]),
    ("variant-mat", _set(("variant",), {"mat": "hex"}), ["variant.mat"]),
    ("variant-units-0", _set(("variant",), {"units_to_win": 0}), ["variant.units_to_win"]),
    ("variant-units-string", _set(("variant",), {"units_to_win": "20"}), ["variant.units_to_win"]),
    ("variant-commands-negative", _set(("variant",), {"commands_to_win": -4}), ["variant.commands_to_win"]),
    ("variant-no-progress-negative", _set(("variant",), {"no_progress_turns": -1}), ["variant.no_progress_turns"]),
    ("variant-unknown-field", _set(("variant",), {"speed": "fast"}), ["variant", "speed"]),
    ("variant-not-an-object", _set(("variant",), "basic"), ["variant"]),
    ("result-winner-3", _set(("result",), {"winner": 3, "reason": "player 1 resigned"}), ["result.winner"]),
    ("result-missing-winner", _set(("result",), {"reason": "draw agreed"}), ["result.winner"]),
    ("result-not-an-object", _set(("result",), "player 1"), ["result"]),
    ("result-reason-not-a-string", _set(("result",), {"winner": 1, "reason": 20}), ["result.reason"]),
    (
        "result-unknown-field",
        _set(("result",), {"winner": 1, "reason": "player 2 resigned", "score": 3}),
        ["result", "score"],
    ),
    ("turn-state-unknown-phase", _set(("turn_state",), {"phase": "combat", "decider": 1}), ["turn_state.phase"]),
    ("turn-state-decider-mismatch", _set(("turn_state",), {"phase": "pre", "decider": 2}), ["turn_state.decider"]),
    (
        "turn-state-square-without-unit",
        _set(("turn_state",), {"phase": "pre", "decider": 1, "shot": ["e6"]}),
        ["turn_state.shot", "e6"],
    ),
    (
        "turn-state-shot-damage-on-empty",
        _set(("turn_state",), {"phase": "pre", "shot_damage": {"a1": 4}}),
        ["turn_state.shot_damage", "a1"],
    ),
    ("turn-state-unknown-field", _set(("turn_state",), {"phase": "pre", "mood": "grim"}), ["turn_state", "mood"]),
    ("turn-state-not-an-object", _set(("turn_state",), "pre"), ["turn_state"]),
    (
        "turn-state-advance-without-advance",
        _set(("turn_state",), {"phase": "advance", "decider": 1}),
        ["turn_state.advance"],
    ),
    (
        "turn-state-pre-after-deployment",
        _set(("turn_state",), {"phase": "pre", "deployed": ["d3"]}),
        ["turn_state.phase"],
    ),
    (
        "turn-state-in-finished-game",
        lambda d: d.update(
            result={"winner": 1, "reason": "player 2 resigned"}, turn_state={"phase": "post", "decider": 1}
        ),
        ["turn_state"],
    ),
]


@pytest.mark.parametrize(
    ("change", "names"), [pytest.param(change, names, id=name) for name, change, names in BAD_POSITIONS]
)
def test_bad_position_is_refused_naming_the_field(change: Callable[[Doc], None], names: list[str]) -> None:
    doc = base_doc()
    change(doc)
    with pytest.raises(NotationError) as err:
        parse_position(doc)
    message = str(err.value)
    assert isinstance(err.value, ValueError)
    assert "\n" not in message
    for name in names:
        assert name in message, (name, message)
    # The same through the text reader.
    with pytest.raises(NotationError):
        position_from_text(json.dumps(doc))


@pytest.mark.parametrize(
    "text",
    ["", "{", '{"format": "lordsofwar-position",}', "[1, 2", "nul", "{'single': 'quotes'}"],
    ids=["empty", "open-brace", "trailing-comma", "open-list", "bad-literal", "single-quotes"],
)
def test_bad_json_text_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(NotationError) as err:
        loads(text, "position")
    message = str(err.value)
    assert "\n" not in message
    assert "position" in message and "JSON" in message
    with pytest.raises(NotationError):
        position_from_text(text)


def test_deeply_nested_or_huge_text_is_refused_in_one_line() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, " " * 10_000_001):
        with pytest.raises(NotationError) as err:
            position_from_text(text)
        assert "\n" not in str(err.value) and "position" in str(err.value)


def test_position_that_is_not_an_object_is_refused() -> None:
    docs: list[object] = [[], "position", 3, None]
    for doc in docs:
        with pytest.raises(NotationError, match="position"):
            parse_position(doc)


def test_off_mat_square_is_fine_on_the_unbordered_mat_only() -> None:
    doc = base_doc()
    doc["board"][0]["square"] = "-1,2"
    with pytest.raises(NotationError, match="board"):
        parse_position(doc)
    doc["variant"] = {"mat": "unbordered"}
    assert parse_position(doc).unit_at("-1,2") == CORE["orcs:24"]


def test_reading_does_not_change_the_document() -> None:
    doc = berserker_doc()
    kept = copy.deepcopy(doc)
    parse_position(doc)
    assert doc == kept


# --- actions -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("shoot d2 d5", Action("shoot", None, mat.parse("d2"), mat.parse("d5"))),
        ("deploy orcs:07 d4", Action("deploy", "orcs:07", None, mat.parse("d4"))),
        ("advance d3 c4", Action("advance", None, mat.parse("d3"), mat.parse("c4"))),
        ("move a1 a2", Action("move", None, mat.parse("a1"), mat.parse("a2"))),
        ("recall c3", Action("recall", None, mat.parse("c3"))),
        ("draw", Action("draw")),
        ("pass", Action("pass")),
    ],
)
def test_each_verb_parses_and_round_trips(text: str, expected: Action) -> None:
    pos = parse_position(base_doc())
    action = parse_action(text, pos)
    assert action == expected
    assert str(action) == text
    assert parse_action(str(action), pos) == action


def test_action_squares_written_as_xy_print_algebraically() -> None:
    assert str(parse_action("shoot 3,1 3,4")) == "shoot d2 d5"


def test_off_mat_action_squares_round_trip_on_the_unbordered_mat() -> None:
    doc = base_doc()
    doc["variant"] = {"mat": "unbordered"}
    pos = parse_position(doc)
    action = parse_action("deploy orcs:30 -1,2", pos)
    assert action.to == mat.square(-1, 2)
    assert str(action) == "deploy orcs:30 -1,2"


BAD_ACTIONS: list[tuple[str, str]] = [
    ("fly d3 d4", "fly"),
    ("DRAW", "DRAW"),
    ("", "verb"),
    ("deploy orcs:07", "square"),
    ("deploy", "card"),
    ("shoot d2", "to"),
    ("advance", "from"),
    ("recall", "square"),
    ("draw now", "now"),
    ("pass pass", "pass"),
    ("recall c3 c4", "c4"),
    ("deploy orcs:07 d4 d5", "d5"),
    ("deploy orcs:07 d4 ", "deploy orcs:07 d4 "),
    ("deploy  orcs:07 d4", "deploy  orcs:07 d4"),
    ("shoot  d2", "shoot  d2"),
    ("deploy orcs:99 d4", "orcs:99"),
    ("deploy d4 orcs:07", "d4"),
    ("deploy orcs:07 z9", "z9"),
    ("shoot d2 h5", "h5"),
    ("recall d0", "d0"),
    ("move a1 -1,1", "-1,1"),
    ("deploy orcs:07 7,0", "7,0"),
    ("shoot " + "d2 " * 100, "longer"),
]


@pytest.mark.parametrize(("text", "named"), BAD_ACTIONS, ids=[repr(t)[:30] for t, _ in BAD_ACTIONS])
def test_bad_action_is_refused_naming_the_token(text: str, named: str) -> None:
    pos = parse_position(base_doc())  # bordered
    with pytest.raises(InvalidActionError) as err:
        parse_action(text, pos)
    message = str(err.value)
    assert isinstance(err.value, NotationError) and isinstance(err.value, ValueError)
    assert "\n" not in message
    assert named in message, message


@pytest.mark.parametrize("text", ["deploy  orcs:07 d4", "recall  c3", "shoot d2  d5"])
def test_double_space_is_reported_as_such(text: str) -> None:
    with pytest.raises(InvalidActionError, match="single space"):
        parse_action(text, parse_position(base_doc()))


def test_double_space_message_when_token_count_matches() -> None:
    with pytest.raises(InvalidActionError, match="single space"):
        parse_action("shoot  d2", parse_position(base_doc()))


def test_action_that_is_not_a_string_is_refused() -> None:
    for value in (None, 5, ["draw"]):
        with pytest.raises(InvalidActionError, match="action"):
            parse_action(value)


def test_bad_action_string_pushed_changes_nothing() -> None:
    pos = parse_position(base_doc())
    before = position_to_json(pos)
    for text in ("deploy orcs:07", "deploy orcs:99 d4", "deploy orcs:30 -1,2", "fly"):
        with pytest.raises(InvalidActionError):
            pos.push(text)
        assert position_to_json(pos) == before


def test_illegal_but_well_formed_action_names_action_and_rule() -> None:
    pos = parse_position(base_doc())
    before = position_to_json(pos)
    for text in ("draw", "deploy orcs:07 d4", "recall d5", "deploy orcs:30 a1", "advance d3 d4"):
        with pytest.raises(IllegalActionError) as err:
            pos.push(text)
        assert text in str(err.value)
        assert "\n" not in str(err.value)
        assert position_to_json(pos) == before


def test_legal_actions_print_in_notation_and_parse_back() -> None:
    pos = parse_position(base_doc())
    listed = pos.legal_actions()
    assert len({str(a) for a in listed}) == len(listed)
    for action in listed:
        assert parse_action(str(action), pos) == action


# --- views (9.2) ---------------------------------------------------------------------------------


def test_view_hides_opponent_hand_in_hidden_variant() -> None:
    pos = deal(standard_decks(), 5)
    for viewer in (1, 2):
        doc = view_json(pos, viewer)
        opponent = str(3 - viewer)
        assert doc["players"][opponent]["hand"] == [None] * 6
        assert doc["players"][str(viewer)]["hand"] == pos.hands[viewer]
        assert doc["players"]["1"]["deck"] == 30 and doc["players"]["2"]["deck"] == 30


def test_view_shows_opponent_hand_in_visible_variant() -> None:
    pos = deal(standard_decks(), 5, Variant(hands="visible"))
    for viewer in (1, 2):
        doc = view_json(pos, viewer)
        assert doc["players"]["1"]["hand"] == pos.hands[1]
        assert doc["players"]["2"]["hand"] == pos.hands[2]
        assert doc["players"]["1"]["deck"] == 30 and doc["players"]["2"]["deck"] == 30


def test_view_does_not_change_the_position() -> None:
    pos = parse_position(base_doc())
    before = position_to_json(pos)
    view_json(pos, 1)
    view_json(pos, 2)
    assert position_to_json(pos) == before


def test_view_parses_back_and_legal_actions_work_at_the_start_of_the_viewers_turn() -> None:
    pos = deal(standard_decks("templars", "lizardmen"), 31)
    rng = random.Random(31)
    for _ in range(6):  # three turns each side
        assert "turn_state" not in position_to_json(pos)
        viewer = pos.to_move
        seen = parse_position(json.loads(dumps(view_json(pos, viewer))))
        assert seen.hands[3 - viewer] == [None] * len(pos.hands[3 - viewer])
        assert seen.decks[viewer] == [None] * len(pos.decks[viewer])
        assert legal_strings(seen) == legal_strings(pos)
        assert legal_strings(view(pos, viewer)) == legal_strings(pos)
        turn = (pos.turn, pos.to_move)
        while (pos.turn, pos.to_move) == turn and not pos.is_over:
            pos.push(rng.choice(pos.legal_actions()))


def test_view_read_back_writes_the_same_view() -> None:
    pos = parse_position(base_doc())
    pos.push("deploy orcs:30 d4")
    for viewer in (1, 2):
        doc = view_json(pos, viewer)
        assert position_to_json(parse_position(doc)) == doc


def test_waiting_players_view_after_a_declared_shot_can_be_written() -> None:
    pos = parse_position(base_doc())
    pos.push("shoot d2 d5")
    doc = view_json(pos, 2)
    assert position_to_json(parse_position(doc)) == doc


@pytest.mark.parametrize("hands", ["hidden", "visible"])
def test_view_text_never_names_a_hidden_card(hands: Literal["hidden", "visible"]) -> None:
    variant = Variant(hands=hands)
    setup = GameSetup((CORE.standard_deck("orcs"), CORE.standard_deck("elves")), 99, variant)

    def check(before: Position, action: Action, after: Position, events: list[Event]) -> None:
        for viewer in (1, 2):
            doc = view_json(after, viewer)
            text = dumps(doc)
            assert not leaked_ids(after, viewer, text), (viewer, str(action))
            assert isinstance(doc["players"]["1"]["deck"], int)
            assert isinstance(doc["players"]["2"]["deck"], int)
            if hands == "hidden" and after.result is None:
                assert all(c is None for c in doc["players"][str(3 - viewer)]["hand"])

    play(setup, random.Random(99), check)


def test_leak_detector_finds_a_leak() -> None:
    """The checker used above must be able to fail: the full position leaks the opponent's hand."""
    pos = deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 99)
    assert leaked_ids(pos, 1, dumps(position_to_json(pos)))
    assert not leaked_ids(pos, 1, dumps(view_json(pos, 1)))


# --- game records (section 5) --------------------------------------------------------------------


def played_record(seed: int, variant: Variant | None = None) -> tuple[GameRecord, list[Doc]]:
    """A finished game of random legal actions, and position_to_json after every action."""
    variant = variant or Variant()
    setup = GameSetup((CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")), seed, variant)
    docs = [position_to_json(setup.deal())]
    final, actions = play(setup, random.Random(seed), lambda _b, _a, after, _e: docs.append(position_to_json(after)))
    record = setup.record(actions)
    record.result = final.result
    return record, docs


def test_record_round_trips_through_json_text() -> None:
    record, _ = played_record(3)
    doc = record.to_json()
    assert doc["format"] == "lordsofwar-game" and doc["version"] == 1
    assert len(doc["players"]["1"]["deck"]) == 36
    again = record_from_text(dumps(doc))
    assert again == record
    assert again.to_json() == doc


@pytest.mark.parametrize(
    "variant",
    [Variant(), Variant(rules="basic", hands="visible"), Variant(mat="unbordered", units_to_win=15, commands_to_win=3)],
    ids=["default", "basic-visible", "unbordered-15-3"],
)
def test_replay_reproduces_every_position_exactly(variant: Variant) -> None:
    record, docs = played_record(11, variant)
    positions = replay(parse_record(json.loads(dumps(record.to_json()))))
    assert len(positions) == len(record.actions) + 1 == len(docs)
    for i, (pos, doc) in enumerate(zip(positions, docs, strict=True)):
        assert position_to_json(pos) == doc, f"position after {i} actions differs"
    assert positions[-1].result == record.result


def test_replay_is_deterministic_for_a_seed_and_differs_across_seeds() -> None:
    a = deal(standard_decks(), 1)
    b = deal(standard_decks(), 1)
    c = deal(standard_decks(), 2)
    assert position_to_json(a) == position_to_json(b)
    assert position_to_json(a) != position_to_json(c)


def test_record_with_an_illegal_action_names_its_index() -> None:
    record, _ = played_record(5)
    before_eighth = replay(record)[7]
    assert "recall g1" not in legal_strings(before_eighth)
    doc = record.to_json()
    doc["actions"][7] = "recall g1"
    with pytest.raises(NotationError) as err:
        replay(parse_record(doc))
    assert "actions[7]" in str(err.value)
    assert "\n" not in str(err.value)


def test_record_with_an_unparsable_action_names_its_index() -> None:
    record, _ = played_record(5)
    doc = record.to_json()
    doc["actions"][3] = "deploy orcs:01"
    with pytest.raises(NotationError, match=r"actions\[3\]"):
        replay(parse_record(doc))
    doc["actions"][3] = 42
    with pytest.raises(NotationError, match=r"actions\[3\]"):
        parse_record(doc)


def test_record_with_an_action_after_the_end_is_refused() -> None:
    record, _ = played_record(5)
    doc = record.to_json()
    doc["actions"].append("draw")
    with pytest.raises(NotationError, match=rf"actions\[{len(record.actions)}\]"):
        replay(parse_record(doc))


def test_record_with_the_wrong_winner_is_refused() -> None:
    record = next(r for r, _ in map(played_record, range(6, 40)) if r.result is not None and r.result.winner)
    assert record.result is not None and record.result.winner in (1, 2)
    doc = record.to_json()
    doc["result"]["winner"] = 3 - record.result.winner
    with pytest.raises(NotationError) as err:
        replay(parse_record(doc))
    assert "result" in str(err.value)


def test_record_claiming_an_end_that_did_not_happen_is_refused() -> None:
    record, _ = played_record(6)
    doc = record.to_json()
    doc["actions"] = doc["actions"][:20]
    with pytest.raises(NotationError, match="result"):
        replay(parse_record(doc))


def test_record_with_a_bad_deck_names_the_player_deck_and_rank() -> None:
    record, _ = played_record(2)
    doc = record.to_json()
    deck = doc["players"]["2"]["deck"]
    general = next(c for c in deck if CORE[c].rank == "general")
    recruit = next(c for c in deck if CORE[c].rank == "recruit")
    deck[deck.index(recruit)] = general
    with pytest.raises(NotationError) as err:
        parse_record(doc)
    message = str(err.value)
    assert "players.2.deck" in message
    assert "general" in message and "recruit" in message


def test_record_with_an_unknown_deck_card_names_it() -> None:
    record, _ = played_record(2)
    doc = record.to_json()
    doc["players"]["1"]["deck"][4] = "orcs:40"
    with pytest.raises(NotationError) as err:
        parse_record(doc)
    assert "players.1.deck[4]" in str(err.value) and "orcs:40" in str(err.value)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_set(("format",), "lordsofwar-position"), "format"),
        (_set(("version",), 2), "version"),
        (_del(("seed",)), "seed"),
        (_set(("seed",), -1), "seed"),
        (_set(("seed",), "12"), "seed"),
        (_del(("players", "1", "deck")), "players.1.deck"),
        (_del(("players", "2")), "players.2"),
        (_set(("actions",), "draw"), "actions"),
        (_set(("result",), {"winner": 0, "reason": "draw agreed"}), "result.winner"),
        (_set(("speed",), 1), "speed"),
    ],
    ids=[
        "format",
        "version",
        "no-seed",
        "negative-seed",
        "string-seed",
        "no-deck",
        "no-player",
        "actions-string",
        "winner-0",
        "unknown-field",
    ],
)
def test_bad_record_is_refused_naming_the_field(change: Callable[[Doc], None], field: str) -> None:
    record, _ = played_record(2)
    doc = record.to_json()
    change(doc)
    with pytest.raises(NotationError) as err:
        parse_record(doc)
    assert field in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("loser", [1, 2])
def test_resignation_record_replays_to_a_finished_game(loser: int) -> None:
    record, _ = played_record(9)
    record.actions = record.actions[:25]
    record.result = Result(3 - loser, Termination.RESIGNATION, player=loser)
    doc = json.loads(dumps(record.to_json()))
    positions = replay(parse_record(doc))
    final = positions[-1]
    assert final.is_over
    assert final.result == Result(3 - loser, Termination.RESIGNATION, player=loser)
    assert final.legal_actions() == []
    assert not positions[-2].is_over  # the actions end mid-game
    assert position_to_json(final)["result"] == {
        "winner": 3 - loser,
        "reason": f"player {loser} resigned",
        "termination": "resignation",
        "player": loser,
    }


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (Result(2, Termination.TIMEOUT, player=1), "player 1 ran out of time"),
        (Result(1, Termination.DEADLINE, player=2), "player 2 missed the turn deadline"),
        (Result(None, Termination.DRAW_AGREED), "draw agreed"),
    ],
)
def test_platform_endings_replay_to_a_finished_game(result: Result, reason: str) -> None:
    record, _ = played_record(9)
    record.actions = record.actions[:30]
    record.result = result
    doc = json.loads(dumps(record.to_json()))
    assert doc["result"]["reason"] == reason and doc["result"]["termination"] == result.termination.value
    positions = replay(parse_record(doc))
    assert positions[-1].result == result
    assert positions[-1].legal_actions() == []
    assert not positions[-2].is_over


@pytest.mark.parametrize(
    ("winner", "reason"),
    [(1, "player 1 ran out of time"), (None, "player 1 ran out of time"), (1, "draw agreed"), (2, "agreed")],
)
def test_platform_ending_that_does_not_fit_its_winner_is_refused(winner: int | None, reason: str) -> None:
    record, _ = played_record(9)
    record.actions = record.actions[:30]
    doc = record.to_json()
    doc["result"] = {"winner": winner, "reason": reason}  # as written before the codes
    with pytest.raises(NotationError, match="result"):
        replay(parse_record(doc))
    doc["result"] = {"winner": winner, "termination": "timeout" if "time" in reason else "draw_agreed", "player": 1}
    with pytest.raises(NotationError, match="result"):
        replay(parse_record(doc))


def test_resignation_with_the_wrong_winner_is_refused() -> None:
    record, _ = played_record(9)
    record.actions = record.actions[:25]
    doc = record.to_json()
    doc["result"] = {"winner": 1, "termination": "resignation", "player": 1}
    with pytest.raises(NotationError, match="result"):
        replay(parse_record(doc))


def test_record_whose_result_names_another_ending_than_its_actions_is_refused() -> None:
    record, _ = played_record(3)
    assert record.result is not None and record.result.winner is not None
    replay(parse_record(record.to_json()))
    doc = record.to_json()
    winner = record.result.winner
    doc["result"] = {"winner": winner, "termination": "resignation", "player": 3 - winner}
    with pytest.raises(NotationError, match="the replay ends with"):
        replay(parse_record(doc))


def test_replay_conserves_cards_at_every_step() -> None:
    record, _ = played_record(21)
    for pos in replay(record):
        for p in (1, 2):
            assert holdings(pos, p) == Counter(record.decks[p - 1])


def test_spectator_view_hides_both_hidden_hands_and_both_decks() -> None:
    record, _ = played_record(4)
    pos = replay(record)[12]
    doc = view_json(pos, None)
    for p in ("1", "2"):
        assert doc["players"][p]["hand"] == [None] * len(pos.hands[int(p)])
        assert doc["players"][p]["deck"] == len(pos.decks[int(p)])
    assert view_json(pos, 1)["players"]["1"]["hand"] == pos.hands[1]


def test_play_through_yields_each_step_with_its_events() -> None:
    record, _ = played_record(9)
    record.actions = record.actions[:20]
    record.result = Result(2, Termination.RESIGNATION, player=1)
    pos = record.start()
    entries = list(play_through(pos, record.actions, record.result))
    assert [e["action"] for e in entries] == [*record.actions, None]
    assert entries[-1]["events"][0] == {"type": "resign", "player": 1}
    assert [e["n"] for e in entries] == list(range(1, 22))
    assert pos.result == record.result
