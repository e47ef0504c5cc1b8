"""The ``lordsofwar`` command line (notation.md section 6), through click's runner and as a process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lordsofwar.cli import cli
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.notation import GameRecord, deal, dumps, position_to_json, replay
from lordsofwar.rules.state import Variant

ORCS = CORE.standard_deck("orcs")
DWARVES = CORE.standard_deck("dwarves")
OPENING_HAND_1 = ["orcs:01", "orcs:06", "orcs:07", "orcs:17", "orcs:25", "orcs:31"]
"""Player 1's opening hand of orcs against dwarves with seed 7."""

PACK = {
    "format": "lordsofwar-cards",
    "version": 1,
    "title": "Test riders",
    "cards": [
        {
            "id": "riders:01",
            "name": "Swift Rider",
            "rank": "elite",
            "class": "cavalry",
            "defence": 4,
            "attacks": "FL2 F3 FR2",
            "moves": "F L R",
        },
        {
            "id": "riders:02",
            "name": "Rider [bold]Archer",
            "rank": "regular",
            "class": "ranged",
            "defence": 2,
            "attacks": "F1",
            "ranged": {"damage": 3, "grid": ["#.#", ".U."]},
        },
    ],
}


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, env=env)


def ok(result: Result) -> str:
    assert result.exit_code == 0, (result.exit_code, result.stderr, result.exception)
    return result.stdout


def assert_bad_input(result: Result, *fragments: str) -> str:
    """Exit status 2, nothing on stdout, one ``error:`` line on stderr that holds every fragment."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("error: "), line
    assert "Traceback" not in line
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


def write(path: Path, doc: Any) -> str:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


@pytest.fixture
def opening() -> dict[str, Any]:
    """The opening position of orcs against dwarves, seed 7, as printed by ``new``."""
    return json.loads(ok(run("new", "--armies", "orcs,dwarves", "--seed", "7")))


@pytest.fixture
def opening_file(tmp_path: Path, opening: dict[str, Any]) -> str:
    return write(tmp_path / "opening.json", opening)


@pytest.fixture
def pack(tmp_path: Path) -> str:
    return write(tmp_path / "riders.json", PACK)


# --- cards ------------------------------------------------------------------------------------------


def test_cards_json_lists_every_core_card_with_its_facts() -> None:
    cards = json.loads(ok(run("cards", "--json")))
    assert len(cards) == 216
    assert len({c["id"] for c in cards}) == 216
    by_id = {c["id"]: c for c in cards}
    assert by_id["orcs:01"] == CORE.card("orcs:01").facts()
    assert by_id["orcs:24"]["ranged"] == {"damage": 4, "targets": CORE.card("orcs:24").facts()["ranged"]["targets"]}
    assert set(by_id["orcs:01"]) == {"id", "army", "name", "rank", "class", "defence", "attacks", "ranged", "moves"}


def test_cards_json_of_one_army() -> None:
    cards = json.loads(ok(run("cards", "--army", "dwarves", "--json")))
    assert [c["id"] for c in cards] == DWARVES
    assert {c["army"] for c in cards} == {"dwarves"}


def test_cards_table_shows_each_card() -> None:
    out = ok(run("cards", "--army", "orcs", env={"COLUMNS": "200"}))
    for header in ("id", "name", "rank", "class", "defence", "attacks", "ranged", "moves"):
        assert header in out
    assert "Gonke Longtooth" in out
    assert "FL5" in out
    assert "4 dmg" in out  # the Orc Catapult
    assert "dwarves:" not in out


def test_cards_json_lists_a_card_pack_with_movement_arrows(pack: str) -> None:
    cards = json.loads(ok(run("--cards", pack, "cards", "--army", "riders", "--json")))
    assert [c["id"] for c in cards] == ["riders:01", "riders:02"]
    assert cards[0]["moves"] == ["F", "L", "R"]
    assert cards[0]["attacks"] == {"F": 3, "FR": 2, "FL": 2}
    assert cards[1]["ranged"] == {"damage": 3, "targets": [[-1, 1], [1, 1]]}
    everything = json.loads(ok(run("cards", "--json", "--cards", pack)))  # the option after the command
    assert len(everything) == 218


def test_cards_table_prints_pack_names_literally(pack: str) -> None:
    out = ok(run("--cards", pack, "cards", "--army", "riders", env={"COLUMNS": "200"}))
    assert "Rider [bold]Archer" in out
    assert "F L R" in out


def test_cards_unknown_army_is_one_line() -> None:
    assert_bad_input(run("cards", "--army", "gnomes"), "unknown army 'gnomes'")


# --- malformed card packs -----------------------------------------------------------------------------


def test_card_pack_that_is_not_json(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.json", "{not json")
    assert_bad_input(run("--cards", bad, "cards", "--json"), "bad.json", "not valid JSON")


def test_card_pack_with_a_bad_field_names_file_card_and_field(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(PACK))
    doc["cards"][1]["class"] = "wizard"
    bad = write(tmp_path / "bad.json", doc)
    assert_bad_input(run("--cards", bad, "cards"), "bad.json", "riders:02", "class")


def test_card_pack_that_redefines_a_core_card(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(PACK))
    doc["cards"][0]["id"] = "orcs:01"
    bad = write(tmp_path / "bad.json", doc)
    assert_bad_input(run("--cards", bad, "cards"), "orcs:01", "already defined")


def test_missing_card_pack(tmp_path: Path) -> None:
    assert_bad_input(run("--cards", str(tmp_path / "nope.json"), "cards"), "nope.json", "cannot read")


def test_an_error_naming_a_file_with_a_line_break_stays_one_line(tmp_path: Path) -> None:
    assert_bad_input(run("--cards", str(tmp_path / "two\nlines.json"), "cards"), "two lines.json", "cannot read")


# --- new ------------------------------------------------------------------------------------------------


def test_new_prints_the_dealt_opening_position() -> None:
    out = ok(run("new", "--armies", "orcs,dwarves", "--seed", "7"))
    assert out == dumps(position_to_json(deal([ORCS, DWARVES], 7))) + "\n"
    doc = json.loads(out)
    assert doc["turn"] == 1 and doc["to_move"] == 1 and doc["board"] == []
    assert sorted(doc["players"]["1"]["hand"]) == OPENING_HAND_1
    assert doc["players"]["2"]["army"] == "dwarves"
    assert "turn_state" not in doc and "events" not in doc


def test_new_variant_options() -> None:
    doc = json.loads(
        ok(
            run(
                "new",
                "--armies",
                "elves,undead",
                "--seed",
                "1",
                "--rules",
                "basic",
                "--hands",
                "visible",
                "--mat",
                "unbordered",
                "--length",
                "15/3",
                "--no-progress-turns",
                "0",
            )
        )
    )
    assert doc["variant"] == {
        "rules": "basic",
        "hands": "visible",
        "mat": "unbordered",
        "units_to_win": 15,
        "commands_to_win": 3,
        "no_progress_turns": 0,
    }


def test_new_explicit_thresholds_override_the_length() -> None:
    doc = json.loads(ok(run("new", "--seed", "1", "--length", "25/5", "--units-to-win", "7", "--commands-to-win", "2")))
    assert (doc["variant"]["units_to_win"], doc["variant"]["commands_to_win"]) == (7, 2)
    assert doc["variant"]["rules"] == "intermediate"


def test_new_random_armies_come_from_the_seed() -> None:
    first = ok(run("new", "--armies", "random,random", "--seed", "42"))
    assert ok(run("new", "--seed", "42")) == first  # random,random is the default
    doc = json.loads(first)
    armies = [doc["players"][p]["army"] for p in ("1", "2")]
    assert set(armies) <= set(CORE.armies)
    for seed in range(20):
        doc = json.loads(ok(run("new", "--seed", str(seed))))
        assert doc["players"]["1"]["army"] != doc["players"]["2"]["army"]
    mixed = json.loads(ok(run("new", "--armies", "orcs,random", "--seed", "42")))
    assert mixed["players"]["1"]["army"] == "orcs"
    assert mixed["players"]["2"]["army"] in set(CORE.armies) - {"orcs"}


def test_new_random_army_respects_allowed_armies() -> None:
    for seed in range(5):
        doc = json.loads(ok(run("new", "--seed", str(seed), "--allowed-armies", "elves,templars")))
        assert {doc["players"]["1"]["army"], doc["players"]["2"]["army"]} == {"elves", "templars"}


def test_new_writes_a_game_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    out = ok(run("new", "--armies", "orcs,dwarves", "--seed", "7", "--record", str(record), "--names", "alice,bob"))
    doc = json.loads(record.read_text())
    assert doc == GameRecord([ORCS, DWARVES], 7, Variant(), ["alice", "bob"]).to_json()
    assert doc["actions"] == [] and doc["seed"] == 7
    assert doc["players"]["1"] == {"name": "alice", "deck": ORCS}
    assert json.loads(ok(run("replay", str(record)))) == json.loads(out)


def test_new_without_a_seed_records_the_random_one(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    out = ok(run("new", "--armies", "templars,lizardmen", "--record", str(record)))
    doc = json.loads(record.read_text())
    assert isinstance(doc["seed"], int)
    assert doc["players"]["1"]["name"] == "player 1"
    decks = [doc["players"]["1"]["deck"], doc["players"]["2"]["deck"]]
    assert out == dumps(position_to_json(deal(decks, doc["seed"]))) + "\n"


def _mercenary_deck() -> list[str]:
    """The orcs deck with one goblin recruit swapped for a dwarf recruit."""
    orc_recruit = next(c for c in ORCS if CORE.card(c).rank == "recruit")
    dwarf_recruit = next(c for c in DWARVES if CORE.card(c).rank == "recruit")
    return [dwarf_recruit if c == orc_recruit else c for c in ORCS]


def test_new_with_a_custom_deck_file_in_text(tmp_path: Path) -> None:
    deck = _mercenary_deck()
    lines = ["# my mercenaries", ""] + [f"{c}   # card {i}" if i % 5 == 0 else c for i, c in enumerate(deck)] + [""]
    path = write(tmp_path / "deck.txt", "\n".join(lines))
    doc = json.loads(ok(run("new", "--deck1", path, "--armies", "random,dwarves", "--seed", "3")))
    assert doc == position_to_json(deal([deck, DWARVES], 3))
    assert doc["players"]["1"]["army"] == "mercenary"


def test_new_with_a_custom_deck_file_in_json(tmp_path: Path) -> None:
    path = write(tmp_path / "deck.json", DWARVES)
    doc = json.loads(ok(run("new", "--armies", "orcs,elves", "--deck2", path, "--seed", "3")))
    assert doc == position_to_json(deal([ORCS, DWARVES], 3))


def test_new_deck_file_errors_name_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "deck.txt", "# comment\norcs:01\norcs:99\n")
    assert_bad_input(run("new", "--deck1", path, "--seed", "1"), "deck.txt", "line 3", "unknown card 'orcs:99'")
    path = write(tmp_path / "two.txt", "orcs:01 orcs:02\n")
    assert_bad_input(run("new", "--deck1", path, "--seed", "1"), "two.txt", "line 1", "one card id")
    path = write(tmp_path / "deck.json", ["orcs:01", 7])
    assert_bad_input(run("new", "--deck1", path, "--seed", "1"), "deck.json", "line 1 (card 2)", "expected a card id")
    path = write(tmp_path / "obj.json", {"deck": ORCS})
    assert_bad_input(run("new", "--deck1", path, "--seed", "1"), "obj.json", "unknown field 'deck'")
    assert_bad_input(run("new", "--deck2", str(tmp_path / "missing.txt")), "missing.txt", "cannot read")


def test_new_deck_breaking_the_rank_counts_is_refused(tmp_path: Path) -> None:
    deck = list(ORCS)
    recruit = next(c for c in deck if CORE.card(c).rank == "recruit")
    deck[deck.index(recruit)] = "orcs:01"  # a second general
    path = write(tmp_path / "deck.txt", "\n".join(deck))
    assert_bad_input(run("new", "--deck1", path, "--seed", "1"), "player 1's deck", "general", "8.4")
    path = write(tmp_path / "short.txt", "\n".join(ORCS[:35]))
    assert_bad_input(run("new", "--deck2", path, "--seed", "1"), "player 2's deck", "36")


def test_new_allowed_armies_restricts_decks(tmp_path: Path) -> None:
    assert_bad_input(
        run("new", "--armies", "orcs,dwarves", "--allowed-armies", "orcs,elves", "--seed", "1"),
        "player 2's deck",
        "not allow",
    )
    path = write(tmp_path / "deck.txt", "\n".join(_mercenary_deck()))
    assert_bad_input(run("new", "--deck1", path, "--armies", "random,orcs", "--allowed-armies", "orcs"), "dwarves")
    assert_bad_input(run("new", "--allowed-armies", "orcs,gnomes"), "unknown army 'gnomes'")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--armies", "orcs"], "--armies"),
        (["--armies", "orcs,gnomes"], "unknown army 'gnomes'"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
        (["--length", "10/2"], "--length"),
        (["--rules", "advanced"], "--rules"),
        (["--units-to-win", "0"], "--units-to-win"),
        (["--names", "alice"], "--names"),
        (["--bogus"], "--bogus"),
    ],
)
def test_new_bad_option_values_are_one_line(args: list[str], fragment: str) -> None:
    assert_bad_input(run("new", *args), fragment)


def test_unknown_command_is_one_line() -> None:
    assert_bad_input(run("deal"), "No such command 'deal'")


# --- legal ------------------------------------------------------------------------------------------------


def test_legal_at_the_opening_deploys_each_hand_card_on_c3(opening_file: str) -> None:
    assert ok(run("legal", opening_file)).splitlines() == [f"deploy {c} c3" for c in OPENING_HAND_1]


def test_legal_reads_stdin_and_answers_for_player_2(opening: dict[str, Any]) -> None:
    after = ok(run("apply", "-", "deploy orcs:06 c3", "draw", input=json.dumps(opening)))
    hand = sorted(json.loads(after)["players"]["2"]["hand"])
    assert ok(run("legal", "-", input=after)).splitlines() == [f"deploy {c} e4" for c in hand]


def test_legal_after_the_deployment_is_a_reinforcement(opening: dict[str, Any]) -> None:
    mid = ok(run("apply", "-", "deploy orcs:06 c3", input=json.dumps(opening)))
    assert ok(run("legal", "-", input=mid)) == "draw\n"


def test_legal_of_a_finished_game_prints_nothing(tmp_path: Path, opening: dict[str, Any]) -> None:
    opening["result"] = {"winner": 2, "reason": "player 1 resigned"}
    result = run("legal", write(tmp_path / "over.json", opening))
    assert ok(result) == ""
    assert result.stderr == ""


# --- apply -------------------------------------------------------------------------------------------------


def test_apply_a_whole_turn_passes_the_move_to_player_2(opening_file: str) -> None:
    doc = json.loads(ok(run("apply", opening_file, "deploy orcs:07 c3", "draw")))
    assert doc["to_move"] == 2 and doc["turn"] == 2
    assert doc["board"] == [{"square": "c3", "card": "orcs:07", "owner": 1}]
    assert "turn_state" not in doc
    assert [e["type"] for e in doc["events"]] == ["deploy", "draw"]
    assert doc["events"][1]["player"] == 1
    assert len(doc["players"]["1"]["hand"]) == 6 and len(doc["players"]["1"]["deck"]) == 29


def test_apply_mid_turn_carries_turn_state_and_can_be_applied_further(opening_file: str) -> None:
    mid = ok(run("apply", opening_file, "deploy orcs:07 c3"))
    doc = json.loads(mid)
    assert doc["to_move"] == 1
    assert doc["turn_state"]["phase"] == "post" and doc["turn_state"]["decider"] == 1
    assert [e["type"] for e in doc["events"]] == ["deploy"]
    piped = json.loads(ok(run("apply", "-", "draw", input=mid)))
    whole = json.loads(ok(run("apply", opening_file, "deploy orcs:07 c3", "draw")))
    assert [e["type"] for e in piped["events"]] == ["draw"]
    piped.pop("events"), whole.pop("events")
    assert piped == whole


def test_apply_an_illegal_deploy_names_the_action_and_the_rule(opening_file: str) -> None:
    line = assert_bad_input(run("apply", opening_file, "deploy orcs:07 d4"), "deploy orcs:07 d4", "clarifications")
    assert "1.3" in line


def test_apply_stops_at_the_first_illegal_action_and_prints_nothing(opening_file: str) -> None:
    assert_bad_input(run("apply", opening_file, "deploy orcs:07 c3", "draw", "draw"), "draw")
    assert_bad_input(run("apply", opening_file, "deploy dwarves:01 c3"), "dwarves:01", "hand")


@pytest.mark.parametrize(
    ("action", "fragments"),
    [
        ("deploy orcs:07", ["deploy orcs:07", "missing token <square>"]),
        ("deploy", ["missing token <card>"]),
        ("fly c3 c4", ["unknown verb 'fly'"]),
        ("deploy orcs:77 c3", ["unknown card 'orcs:77'"]),
        ("deploy orcs:07 h9", ["'h9' is not a square"]),
        ("draw now", ["unexpected token 'now'"]),
    ],
)
def test_apply_a_malformed_action_names_the_token(opening_file: str, action: str, fragments: list[str]) -> None:
    assert_bad_input(run("apply", opening_file, action), *fragments)


def test_apply_needs_an_action(opening_file: str) -> None:
    assert_bad_input(run("apply", opening_file), "ACTION")


# --- a card pack unit that moves -------------------------------------------------------------------------------


def test_a_pack_unit_with_movement_arrows_can_move_after_its_deployment(
    tmp_path: Path, opening: dict[str, Any], pack: str
) -> None:
    hand = opening["players"]["1"]["hand"]
    hand[hand.index("orcs:06")] = "riders:01"
    position = write(tmp_path / "position.json", opening)
    assert_bad_input(run("legal", position), "players.1.hand", "unknown card 'riders:01'")
    assert "deploy riders:01 c3" in ok(run("--cards", pack, "legal", position)).splitlines()
    mid = ok(run("--cards", pack, "apply", position, "deploy riders:01 c3"))
    # player 1 faces +y: F, L and R lead to c4, b3 and d3; a unit just deployed cannot be recalled
    assert ok(run("legal", "-", "--cards", pack, input=mid)).splitlines() == [
        "draw",
        "move c3 b3",
        "move c3 c4",
        "move c3 d3",
    ]
    moved = json.loads(ok(run("--cards", pack, "apply", "-", "move c3 c4", input=mid)))
    assert moved["board"] == [{"square": "c4", "card": "riders:01", "owner": 1}]
    assert moved["events"] == [{"type": "move", "from": "c3", "to": "c4", "owner": 1, "card": "riders:01"}]
    assert ok(run("--cards", pack, "legal", "-", input=json.dumps(moved))) == "draw\n"  # it moved this turn


# --- replay ------------------------------------------------------------------------------------------------


def _play_through_the_cli(start: str, steps: int) -> tuple[list[str], str]:
    """Apply ``steps`` legal actions one by one through ``legal`` and ``apply``; the actions and last output."""
    actions: list[str] = []
    text = start
    for step in range(steps):
        legal = ok(run("legal", "-", input=text)).splitlines()
        assert legal, f"no legal action at step {step}"
        action = legal[(step * 7) % len(legal)]
        text = ok(run("apply", "-", action, input=text))
        actions.append(action)
    return actions, text


def test_replay_of_a_record_built_from_legal_actions_reproduces_the_final_position(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    start = ok(run("new", "--armies", "elves,orcs", "--seed", "11", "--record", str(record)))
    actions, last = _play_through_the_cli(start, 16)
    doc = json.loads(record.read_text())
    doc["actions"] = actions
    write(record, doc)
    final = json.loads(last)
    final.pop("events")
    assert json.loads(ok(run("replay", str(record)))) == final
    every = json.loads(ok(run("replay", str(record), "--all")))
    assert len(every) == len(actions) + 1
    assert every[0] == json.loads(start)
    assert every[-1] == final
    assert json.loads(ok(run("replay", "-", input=json.dumps(doc)))) == final


def test_replay_agrees_with_the_engine() -> None:
    rec = GameRecord([ORCS, DWARVES], 7, actions=["deploy orcs:06 c3", "draw", "deploy dwarves:01 e4", "draw"])
    out = json.loads(ok(run("replay", "-", input=json.dumps(rec.to_json()))))
    assert out == position_to_json(replay(rec)[-1])
    assert out["turn"] == 3 and len(out["board"]) == 2


def test_replay_with_an_illegal_action_names_it(tmp_path: Path) -> None:
    rec = GameRecord([ORCS, DWARVES], 7, actions=["deploy orcs:06 c3", "draw", "deploy dwarves:01 c3"]).to_json()
    assert_bad_input(run("replay", write(tmp_path / "g.json", rec)), "actions[2]", "deploy dwarves:01 c3")


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: d.update(format="lordsofwar-position"), "format"),
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.pop("seed"), "seed: missing"),
        (lambda d: d["players"]["1"].update(deck=ORCS[:30]), "players.1.deck"),
        (lambda d: d.update(actions="draw"), "actions"),
    ],
)
def test_replay_of_a_bad_record_is_one_line(change: Callable[[dict[str, Any]], Any], fragment: str) -> None:
    doc = GameRecord([ORCS, DWARVES], 7).to_json()
    change(doc)
    assert_bad_input(run("replay", "-", input=json.dumps(doc)), fragment)


# --- view --------------------------------------------------------------------------------------------------------


def test_view_hides_the_opponents_hand_and_both_decks(opening_file: str, opening: dict[str, Any]) -> None:
    doc = json.loads(ok(run("view", opening_file, "--player", "1")))
    assert doc["players"]["1"]["hand"] == opening["players"]["1"]["hand"]
    assert doc["players"]["2"]["hand"] == [None] * 6
    assert doc["players"]["1"]["deck"] == 30 and doc["players"]["2"]["deck"] == 30
    two = json.loads(ok(run("view", opening_file, "--player", "2")))
    assert two["players"]["1"]["hand"] == [None] * 6
    assert two["players"]["2"]["hand"] == opening["players"]["2"]["hand"]


def test_view_with_visible_hands_shows_both() -> None:
    start = ok(run("new", "--seed", "5", "--hands", "visible"))
    doc = json.loads(ok(run("view", "-", "--player", "2", input=start)))
    assert None not in doc["players"]["1"]["hand"]


def test_view_needs_a_player_1_or_2(opening_file: str) -> None:
    assert_bad_input(run("view", opening_file), "--player")
    assert_bad_input(run("view", opening_file, "--player", "3"), "--player")


def test_legal_on_a_view_that_hides_the_deciders_hand(opening_file: str) -> None:
    view = ok(run("view", opening_file, "--player", "2"))
    assert_bad_input(run("legal", "-", input=view), "hidden")


# --- bad positions: every reader rejects with one line ---------------------------------------------------------------


def _board(d: dict[str, Any], *units: tuple[str, str, int]) -> None:
    d["board"] = [{"square": s, "card": c, "owner": o} for s, c, o in units]


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (lambda d: _board(d, ("d3", "orcs:99", 1)), ["board[0].card", "unknown card 'orcs:99'"]),
        (lambda d: _board(d, ("h9", "orcs:09", 1)), ["board[0].square", "'h9'"]),
        (lambda d: _board(d, ("-1,3", "orcs:09", 1)), ["board[0].square", "off the bordered mat"]),
        (
            lambda d: _board(d, ("d3", "orcs:09", 1), ("d3", "dwarves:06", 2)),
            ["board[1].square", "two units on square d3"],
        ),
        (lambda d: d.update(format="lordsofwar-game"), ["format", "lordsofwar-position"]),
        (lambda d: d.update(version=7), ["version", "7"]),
        (lambda d: d.update(to_move=3), ["to_move"]),
        (lambda d: d.pop("players"), ["players: missing"]),
        (lambda d: d["players"]["2"].update(hand="dwarves:01"), ["players.2.hand"]),
    ],
)
def test_a_bad_position_is_one_line(
    tmp_path: Path, opening: dict[str, Any], change: Callable[[dict[str, Any]], Any], fragments: list[str]
) -> None:
    change(opening)
    path = write(tmp_path / "bad.json", opening)
    for command in (["legal", path], ["apply", path, "draw"], ["view", path, "--player", "1"]):
        assert_bad_input(run(*command), *fragments)


def test_a_hand_of_nine_is_refused_exactly(tmp_path: Path, opening: dict[str, Any]) -> None:
    opening["players"]["1"]["hand"] += ["orcs:02", "orcs:03", "orcs:04"]
    result = run("legal", write(tmp_path / "nine.json", opening))
    assert_bad_input(result)
    assert result.stderr == "error: players.1.hand: 9 cards, a hand holds at most 6\n"


@pytest.mark.parametrize("text", ["", "{", "[1, 2", "not json at all", '{"format": "lordsofwar-position",}'])
def test_text_that_is_not_json_is_one_line(text: str) -> None:
    assert_bad_input(run("legal", "-", input=text), "not valid JSON")


def test_a_json_list_is_not_a_position() -> None:
    assert_bad_input(run("legal", "-", input="[]"), "position")


def test_unreadable_position_files(tmp_path: Path) -> None:
    assert_bad_input(run("legal", str(tmp_path / "nope.json")), "cannot read", "nope.json")
    assert_bad_input(run("apply", str(tmp_path), "draw"), "cannot read", str(tmp_path))
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert_bad_input(run("view", str(binary), "--player", "1"), "bin.json", "UTF-8")


def test_missing_position_argument_is_one_line() -> None:
    assert_bad_input(run("legal"), "POSITION")


# --- play --------------------------------------------------------------------------------------------------------


def test_play_hands_the_game_to_the_terminal_ui(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    def run_play(**kwargs: Any) -> int:
        calls.append(kwargs)
        return 3

    monkeypatch.setitem(sys.modules, "lordsofwar.tui", types.SimpleNamespace(run_play=run_play))
    save = tmp_path / "saved.json"
    result = run(
        "play",
        "--armies",
        "orcs,dwarves",
        "--seed",
        "9",
        "--opponent",
        "human",
        "--as",
        "2",
        "--save",
        str(save),
        "--names",
        "ann,bo",
        "--rules",
        "basic",
        "--length",
        "25/5",
    )
    assert result.exit_code == 3, result.stderr
    (kwargs,) = calls
    assert kwargs["decks"] == [ORCS, DWARVES]
    assert kwargs["seed"] == 9
    assert kwargs["variant"] == Variant(rules="basic", units_to_win=25, commands_to_win=5)
    assert kwargs["opponent"] == "human" and kwargs["human_player"] == 2
    assert kwargs["save"] == save and kwargs["names"] == ("ann", "bo")
    assert "orcs:01" in kwargs["cards"]


def test_play_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def run_play(**kwargs: Any) -> int:
        calls.append(kwargs)
        return 0

    monkeypatch.setitem(sys.modules, "lordsofwar.tui", types.SimpleNamespace(run_play=run_play))
    assert ok(run("play")) == ""
    (kwargs,) = calls
    assert kwargs["opponent"] == "random" and kwargs["human_player"] == 1 and kwargs["save"] is None
    assert isinstance(kwargs["seed"], int) and kwargs["variant"] == Variant()
    assert [CORE.standard_army_of(d) for d in kwargs["decks"]] != [None, None]


def test_play_bad_options_and_a_missing_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_bad_input(run("play", "--opponent", "genius"), "--opponent")
    assert_bad_input(run("play", "--as", "3"), "--as")
    monkeypatch.setitem(sys.modules, "lordsofwar.tui", None)  # importing it now fails
    assert_bad_input(run("play", "--seed", "1"), "lordsofwar.tui")


# --- the installed command ---------------------------------------------------------------------------------------


def _commands() -> list[list[str]]:
    commands = [[sys.executable, "-m", "lordsofwar"]]
    script = shutil.which("lordsofwar") or shutil.which("lordsofwar", path=str(Path(sys.executable).parent))
    if script:
        commands.append([script])
    return commands


@pytest.mark.parametrize("command", _commands(), ids=lambda c: Path(c[-1]).name)
def test_the_console_script(command: list[str]) -> None:
    new = subprocess.run(
        [*command, "new", "--armies", "orcs,dwarves", "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert new.returncode == 0, new.stderr
    assert new.stdout == dumps(position_to_json(deal([ORCS, DWARVES], 7))) + "\n"
    legal = subprocess.run(
        [*command, "legal", "-"], input=new.stdout, capture_output=True, text=True, timeout=60, check=False
    )
    assert legal.stdout.splitlines() == [f"deploy {c} c3" for c in OPENING_HAND_1]
    bad = subprocess.run(
        [*command, "apply", "-", "deploy orcs:07 d4"],
        input=new.stdout,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr.startswith("error: deploy orcs:07 d4: ") and bad.stderr.count("\n") == 1
    assert "clarifications" in bad.stderr


def test_bare_command_shows_the_help() -> None:
    result = run()
    assert "Commands:" in result.output and "legal" in result.output


def test_version() -> None:
    assert ok(run("--version")).startswith("lordsofwar, version ")


# --- faults of the program itself ---------------------------------------------------------------


def test_an_internal_fault_is_one_line_with_exit_status_1(opening_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from lordsofwar.rules import engine

    def broken(pos: Any) -> list[Any]:
        raise RuntimeError("simulated fault")

    monkeypatch.setattr(engine, "legal_actions", broken)
    result = run("legal", opening_file, env={"LOW_DEBUG": ""})
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: internal error (RuntimeError: simulated fault)")
    assert "please report it" in lines[0]


def test_low_debug_shows_the_traceback_of_an_internal_fault(opening_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from lordsofwar.rules import engine

    def broken(pos: Any) -> list[Any]:
        raise RuntimeError("simulated fault")

    monkeypatch.setattr(engine, "legal_actions", broken)
    result = run("legal", opening_file, env={"LOW_DEBUG": "1"})
    assert isinstance(result.exception, RuntimeError)
