"""Fuzzing the readers (notation.md: every reader refuses bad input with one clear line, never a traceback).

Valid documents come from real games (``deal`` + random legal actions); Hypothesis then replaces a
random sub-value with random JSON of any type, deletes keys, adds keys, wraps values in lists ...
Every reader must either accept the input or raise a :class:`LordsOfWarError` whose message is one
line; an accepted position must then list actions that apply, write back and read again. The CLI
must answer bad files with exit status 2, one ``error:`` line on stderr and nothing on stdout.

The problems this fuzzing found are kept as regression tests (``test_bug_*``) at the end of the file.
Set ``FUZZ_EXAMPLES`` to a larger number to fuzz harder locally.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lordsofwar.cli import cli
from lordsofwar.rules import mat
from lordsofwar.rules.cards import CARD_ID_RE, CORE, parse_card_file
from lordsofwar.rules.errors import (
    CardPackError,
    HiddenInformationError,
    IllegalActionError,
    InvalidActionError,
    LordsOfWarError,
    NotationError,
)
from lordsofwar.rules.notation import (
    GameRecord,
    deal,
    loads,
    parse_action,
    parse_position,
    parse_record,
    position_to_json,
    replay,
    view_json,
)
from lordsofwar.rules.state import Action, Position, Variant

Doc = dict[str, Any]

SCALE = int(os.environ.get("FUZZ_EXAMPLES", "1"))


def fuzz_settings(n: int) -> settings:
    return settings(
        max_examples=n * SCALE,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


# --- the corpus: real positions, views and records ------------------------------------------------

RIDERS_PACK: Doc = {
    "format": "lordsofwar-cards",
    "version": 1,
    "title": "Moving units for the fuzz tests (no core card moves)",
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
            "name": "Horse Archer",
            "rank": "veteran",
            "class": "ranged",
            "defence": 2,
            "attacks": "F1",
            "ranged": {"damage": 2, "grid": ["###", ".U."]},
            "moves": "F B L R FL FR BL BR",
        },
        {
            "id": "riders:03",
            "name": "Wild Runner",
            "rank": "regular",
            "class": "berserker",
            "defence": 3,
            "attacks": "FL3 F3 FR3",
            "moves": "F",
        },
    ],
}
CARDS = CORE.with_cards(parse_card_file(json.dumps(RIDERS_PACK), "riders.json"))
"""The core cards plus three moving units: every reader below reads with this card set."""


def riders_deck(army: str) -> list[str]:
    """A core army's deck with some elites, veterans and regulars swapped for moving riders (8.4)."""
    swap = {"elite": "riders:01", "veteran": "riders:02", "regular": "riders:03"}
    deck, done = [], dict.fromkeys(swap, 0)
    for card in CORE.standard_deck(army):
        rank = CORE[card].rank
        if rank in swap and done[rank] < 2:
            done[rank] += 1
            card = swap[rank]
        deck.append(card)
    return deck


def _play(decks: list[list[str]], seed: int, variant: Variant) -> Iterator[tuple[Position, list[str]]]:
    """Yield every position of a random game (after each action) with the actions so far."""
    rng = random.Random(seed)
    pos = deal(decks, seed, variant, CARDS)
    played: list[str] = []
    yield pos, played
    while not pos.is_over:
        action = rng.choice(pos.legal_actions())
        pos.push(action)
        played.append(str(action))
        yield pos, played


@functools.cache
def corpus() -> dict[str, list[Any]]:
    """Position documents (start of turn, mid-turn, over, views, a berserker choice) and records."""
    rng = random.Random(2024)
    positions: list[Doc] = []
    views: list[Doc] = []
    records: list[Doc] = []
    std = CORE.standard_deck
    games = [
        ([std("orcs"), std("dwarves")], 1, Variant()),
        ([std("elves"), std("undead")], 2, Variant(hands="visible", mat="unbordered")),
        ([std("lizardmen"), std("templars")], 3, Variant(rules="basic", units_to_win=15, commands_to_win=3)),
        ([std("orcs"), std("lizardmen")], 4, Variant(mat="unbordered", no_progress_turns=0)),
        ([std("dwarves"), std("elves")], 5, Variant(units_to_win=25, commands_to_win=5)),
        ([riders_deck("orcs"), riders_deck("elves")], 6, Variant()),
        ([riders_deck("undead"), std("templars")], 7, Variant(mat="unbordered", hands="visible")),
    ]
    for decks, seed, variant in games:
        actions: list[str] = []
        for pos, played in _play(decks, seed, variant):
            actions = played
            if rng.random() < 0.06 or pos.is_over or pos.phase == "advance":
                positions.append(position_to_json(pos))
                if rng.random() < 0.4:
                    views.append(view_json(pos, rng.choice((1, 2))))
        full = GameRecord(decks, seed, variant, ["alice", "bob"], list(actions), pos.result).to_json()
        records.append(full)
        cut = rng.randrange(1, len(actions))
        records.append(GameRecord(decks, seed, variant, ["p1", "p2"], list(actions[:cut])).to_json())
    advance: list[Doc] = []
    for seed in range(60):  # orcs against lizardmen: berserkers on both sides, choices happen
        variant = Variant(mat=("bordered", "unbordered")[seed % 2])
        for pos, _ in _play([std("orcs"), std("lizardmen")], seed, variant):
            if pos.phase == "advance":
                advance.append(position_to_json(pos))
                break
        if len(advance) >= 3:
            break
    return {"positions": positions + advance, "views": views, "records": records, "advance": advance}


def orcs_pack() -> Doc:
    return json.loads((Path(mat.__file__).parent / "data" / "orcs.json").read_text(encoding="utf-8"))


# --- random JSON and mutations ----------------------------------------------------------------------

KEYS = [
    "format",
    "version",
    "variant",
    "turn",
    "to_move",
    "quiet_turns",
    "board",
    "players",
    "result",
    "turn_state",
    "events",
    "comment",
    "square",
    "card",
    "owner",
    "army",
    "hand",
    "deck",
    "lost",
    "name",
    "1",
    "2",
    "0",
    "3",
    "phase",
    "decider",
    "deployed",
    "supported",
    "shot",
    "took_part",
    "moved",
    "engaged_at_start",
    "shot_damage",
    "shots",
    "generals_lost",
    "eliminated",
    "forced",
    "advance",
    "owners",
    "candidates",
    "taken",
    "advanced",
    "winner",
    "reason",
    "termination",
    "count",
    "player",
    "threshold",
    "ending",
    "seed",
    "actions",
    "rules",
    "hands",
    "mat",
    "units_to_win",
    "commands_to_win",
    "no_progress_turns",
    "d3",
    "c3",
    "e4",
    "-1,0",
    "id",
    "rank",
    "class",
    "defence",
    "attacks",
    "arrows",
    "ranged",
    "moves",
    "erratum",
    "damage",
    "grid",
    "title",
    "cards",
]

INTERESTING: list[Any] = [
    0,
    -1,
    1,
    2,
    3,
    6,
    7,
    36,
    1.0,
    2.0,
    0.5,
    -0.0,
    1e308,
    -1e308,
    float("inf"),
    float("nan"),
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64,
    -(2**63),
    10**100,
    10**4000,
    True,
    False,
    None,
    "",
    " ",
    "d3",
    "c3",
    "e4",
    "a1",
    "g6",
    "h7",
    "a0",
    "3,2",
    "-1,0",
    "0,-1",
    "32704,0",
    "32705,0",
    "999999,0",
    "1,2,3",
    "d3\n",
    "3,2\n",
    " d3",
    "D3",
    "d\u0663",
    "\uff44\uff13",
    "orcs:01",
    "orcs:07",
    "orcs:35",
    "dwarves:06",
    "undead:36",
    "orcs:99",
    "orcs:07\n",
    "ORCS:07",
    "orcs:7",
    "orcs:007",
    "\u0000",
    "\ud800",
    "\U0001f642",
    "x" * 1000,
    "\n",
    "a\nb",
    [],
    {},
    [None],
    [[]],
    ["d3"],
    ["orcs:01"],
    {"d3": "d4"},
    {"d3": ["d4"]},
    [1, 2],
    [2, 1],
    [1, 1],
    "pre",
    "post",
    "advance",
    "over",
    "hidden",
    "visible",
    "bordered",
    "unbordered",
    "basic",
    "intermediate",
    "lordsofwar-position",
    "lordsofwar-game",
    "lordsofwar-cards",
    "draw",
    "pass",
    "deploy orcs:07 c3",
    "shoot d2 d5",
    "recall c3",
    "advance c3 d4",
    "move a1 a2",
    "player 1 resigned",
    "player 2 resigned",
]

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-3, 45),
    st.floats(),
    st.text(max_size=12),
    st.sampled_from(INTERESTING).map(copy.deepcopy),  # some are lists and dicts: never share them
)
json_values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=8,
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def mutate(data: st.DataObject, doc: Any, rounds: int = 3) -> Any:
    """A copy of ``doc`` with 1..rounds random structural mutations."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, rounds), label="rounds")):
        paths = list(_paths(doc))
        path = data.draw(st.sampled_from(paths), label="path")
        op = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "wrap", "dup", "null"]), label="op")
        if not path:
            if op in ("replace", "wrap"):
                doc = data.draw(json_values) if op == "replace" else [doc]
            continue
        parent, key = _get(doc, path[:-1]), path[-1]
        value = parent[key]
        if op == "replace":
            parent[key] = data.draw(json_values, label="value")
        elif op == "null":
            parent[key] = None
        elif op == "wrap":
            parent[key] = [value]
        elif op == "delete":
            del parent[key]
        elif op == "dup" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(value))
        elif op == "dup" and isinstance(value, list) and value:
            value.append(copy.deepcopy(value[-1]))
        elif isinstance(value, dict):
            value[data.draw(st.sampled_from(KEYS) | st.text(max_size=6), label="key")] = data.draw(json_values)
        elif isinstance(value, list):
            value.insert(data.draw(st.integers(0, len(value))), data.draw(json_values))
        elif isinstance(parent, dict):
            parent[data.draw(st.sampled_from(KEYS), label="key")] = data.draw(json_values)
    return doc


# --- the checks ------------------------------------------------------------------------------------------


def assert_one_line(exc: BaseException) -> None:
    text = str(exc)
    assert text.strip(), f"{type(exc).__name__} with an empty message"
    assert "\n" not in text and "\r" not in text, f"message is not one line: {text!r}"


def reads(reader: Callable[[], Any]) -> Any:
    """Run a reader: its result, or None when it refused the input with a one-line LordsOfWarError."""
    try:
        return reader()
    except LordsOfWarError as exc:
        assert_one_line(exc)
        return None


def legal_strings(pos: Position) -> list[str] | None:
    try:
        return sorted(str(a) for a in pos.legal_actions())
    except HiddenInformationError as exc:
        assert_one_line(exc)
        return None


def exercise(pos: Position, rng: random.Random, depth: int = 2) -> None:
    """A position that parsed must behave: its listed actions apply, and it writes back and reads again."""
    doc = position_to_json(pos)
    json.dumps(doc, allow_nan=False)
    again = parse_position(json.loads(json.dumps(doc)), pos.cards)
    assert legal_strings(again) == legal_strings(pos), "legal actions change after a JSON round trip"
    for player in (1, 2):
        parse_position(view_json(pos, player), pos.cards)
    try:
        actions = pos.legal_actions()
    except HiddenInformationError:
        actions = []
    if pos.is_over:
        assert actions == []
    for action in rng.sample(actions, min(len(actions), 6)):
        assert parse_action(str(action), pos) == action, f"{action} does not read back"
        try:
            new, events = pos.apply(action)
        except HiddenInformationError:
            continue
        except IllegalActionError as exc:  # pragma: no cover - would be a bug
            raise AssertionError(f"listed action {action} is refused: {exc}") from None
        json.dumps(position_to_json(new, events), allow_nan=False)
        if depth > 1:
            exercise(new, rng, depth - 1)
        else:
            parse_position(json.loads(json.dumps(position_to_json(new))), pos.cards)


def try_actions(pos: Position, texts: list[str]) -> None:
    for text in texts:
        try:
            pos.push(text)
        except LordsOfWarError as exc:
            assert_one_line(exc)


# --- fuzz: JSON text --------------------------------------------------------------------------------------


@fuzz_settings(150)
@given(st.data())
def test_loads_refuses_bad_text_with_a_notation_error(data: st.DataObject) -> None:
    base = json.dumps(data.draw(st.sampled_from(corpus()["positions"] + corpus()["records"])))
    text = data.draw(
        st.one_of(
            st.text(max_size=40),
            st.builds(lambda i, s: base[:i] + s, st.integers(0, len(base)), st.text(max_size=5)),
            st.builds(lambda i, s: base[:i] + s + base[i:], st.integers(0, len(base)), st.text(max_size=5)),
            st.builds(lambda n: "[" * n + "]" * n, st.integers(900, 3000)),
            st.builds(lambda n: '{"a":' * n + "1" + "}" * n, st.integers(900, 3000)),
            st.sampled_from(["", " ", "\ufeff{}", "NaN", "-Infinity", '{"a": 1, "a": 2}', "1e999", "\x00"]),
        )
    )
    doc = reads(lambda: loads(text, "position"))
    if isinstance(doc, dict):
        pos = reads(lambda: parse_position(doc, CARDS))
        if pos is not None:
            exercise(pos, random.Random(0), 1)


# --- fuzz: positions and views ------------------------------------------------------------------------


@fuzz_settings(250)
@given(st.data(), st.randoms(use_true_random=False))
def test_mutated_positions_are_refused_or_behave(data: st.DataObject, rng: random.Random) -> None:
    c = corpus()
    doc = mutate(data, data.draw(st.sampled_from(c["positions"] + c["views"]), label="doc"))
    pos = reads(lambda: parse_position(doc, CARDS))
    if pos is not None:
        exercise(pos, rng)


def _squares(doc: Doc) -> list[str]:
    board = [e["square"] for e in doc["board"]]
    return board + ["a1", "d3", "c3", "e4", "g6", "-1,0", "7,5", "d3", "c4", "d4"]


@st.composite
def turn_states(draw: st.DrawFn, doc: Doc) -> Doc:
    """Turn states that mostly name units on the board: structurally valid, possibly inconsistent."""
    squares = _squares(doc)
    sq = st.sampled_from(squares)
    ts: Doc = {
        "phase": draw(st.sampled_from(["pre", "post", "advance"])),
        "decider": draw(st.sampled_from([1, 2, None])),
    }
    if ts["decider"] is None:
        del ts["decider"]
    for label in ("deployed", "supported", "shot", "took_part", "moved", "engaged_at_start"):
        if draw(st.booleans()):
            ts[label] = draw(st.lists(sq, max_size=3))
    if draw(st.booleans()):
        ts["shot_damage"] = draw(st.dictionaries(sq, st.integers(0, 12), max_size=3))
    if draw(st.booleans()):
        ts["shots"] = draw(st.dictionaries(sq, sq, max_size=3))
    if draw(st.booleans()):
        ts["generals_lost"] = draw(st.lists(st.sampled_from([1, 2]), max_size=2))
    ts["eliminated"] = draw(st.booleans())
    ts["forced"] = draw(st.booleans())
    if ts["phase"] == "advance" or draw(st.booleans()):
        ts["advance"] = {
            "owners": draw(st.lists(st.sampled_from([1, 2]), min_size=1, max_size=2, unique=True)),
            "candidates": draw(st.dictionaries(sq, st.lists(sq, max_size=3, unique=True), max_size=3)),
            "taken": draw(st.lists(sq, max_size=2)),
            "advanced": draw(st.booleans()),
        }
    return ts


@fuzz_settings(250)
@given(st.data(), st.randoms(use_true_random=False))
def test_invented_turn_states_are_refused_or_behave(data: st.DataObject, rng: random.Random) -> None:
    c = corpus()
    doc = copy.deepcopy(data.draw(st.sampled_from([d for d in c["positions"] if d["result"] is None]), label="doc"))
    doc["turn_state"] = data.draw(turn_states(doc), label="turn_state")
    pos = reads(lambda: parse_position(doc, CARDS))
    if pos is not None:
        exercise(pos, rng)


@fuzz_settings(100)
@given(st.data(), st.randoms(use_true_random=False))
def test_mutated_berserker_choices_are_refused_or_behave(data: st.DataObject, rng: random.Random) -> None:
    advance = corpus()["advance"]
    assert advance, "no berserker choice found in the corpus games"
    doc = copy.deepcopy(data.draw(st.sampled_from(advance), label="doc"))
    adv = doc["turn_state"]["advance"]
    key = data.draw(st.sampled_from(["owners", "candidates", "taken", "advanced", "decider"]))
    if key == "decider":
        doc["turn_state"]["decider"] = data.draw(json_values)
    elif key == "candidates":
        squares = _squares(doc)
        adv["candidates"] = data.draw(
            st.dictionaries(st.sampled_from(squares), st.lists(st.sampled_from(squares), max_size=3, unique=True))
        )
    else:
        adv[key] = data.draw(json_values)
    pos = reads(lambda: parse_position(doc, CARDS))
    if pos is not None:
        exercise(pos, rng)


# --- fuzz: actions -------------------------------------------------------------------------------------

TOKENS = [
    "shoot",
    "deploy",
    "advance",
    "move",
    "recall",
    "draw",
    "pass",
    "resign",
    "DRAW",
    "d3",
    "c3",
    "e4",
    "a1",
    "g6",
    "h1",
    "3,2",
    "-1,0",
    "32704,-32704",
    "32705,0",
    "orcs:07",
    "orcs:01",
    "dwarves:06",
    "orcs:99",
    "",
    "\t",
    "\n",
    "\u00a0",
    "\U0001f642",
    "d\u0663",
    "1,2,3",
]


@fuzz_settings(300)
@given(
    st.data(),
    st.one_of(
        st.text(max_size=30),
        st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=5).map(" ".join),
        st.builds(lambda v, n: v + " x" * n, st.sampled_from(TOKENS), st.integers(0, 200)),
        json_values,
    ),
)
def test_action_text_is_refused_or_applies(data: st.DataObject, text: Any) -> None:
    c = corpus()
    pos = parse_position(data.draw(st.sampled_from(c["positions"] + c["views"])), CARDS)
    action = reads(lambda: parse_action(text, pos))
    if action is not None:
        assert isinstance(action, Action)
        assert parse_action(str(action), pos) == action
        try_actions(pos.copy(), [text])
    reads(lambda: parse_action(text))


# --- fuzz: game records and replay ---------------------------------------------------------------------


@fuzz_settings(120)
@given(st.data())
def test_mutated_records_are_refused_or_replay(data: st.DataObject) -> None:
    doc = mutate(data, data.draw(st.sampled_from(corpus()["records"]), label="record"), rounds=2)
    record = reads(lambda: parse_record(doc, CARDS))
    if record is not None:
        positions = reads(lambda: replay(record, CARDS))
        if positions is not None:
            json.dumps(record.to_json(), allow_nan=False)
            parse_position(position_to_json(positions[-1]), CARDS)


@fuzz_settings(60)
@given(st.data())
def test_records_with_edited_actions_are_refused_or_replay(data: st.DataObject) -> None:
    doc = copy.deepcopy(data.draw(st.sampled_from(corpus()["records"])))
    actions = doc["actions"]
    i = data.draw(st.integers(0, len(actions)))
    doc["actions"] = actions[:i] + data.draw(
        st.lists(st.sampled_from(INTERESTING[-9:]) | st.text(max_size=8), max_size=2)
    )
    doc["result"] = data.draw(
        st.sampled_from(
            [None, doc["result"], {"winner": 1, "reason": "player 2 resigned"}, {"winner": None, "reason": ""}]
        )
    )
    record = reads(lambda: parse_record(doc, CARDS))
    if record is not None:
        reads(lambda: replay(record, CARDS))


# --- fuzz: card files and decks -------------------------------------------------------------------------


@fuzz_settings(150)
@given(st.data())
def test_mutated_card_files_are_refused_or_read(data: st.DataObject) -> None:
    pack = orcs_pack()
    pack["cards"] = data.draw(
        st.lists(st.sampled_from(pack["cards"]), min_size=1, max_size=3, unique_by=lambda c: c["id"])
    )
    doc = mutate(data, pack, rounds=2)
    cards = reads(lambda: parse_card_file(json.dumps(doc), "pack.json"))
    if cards is None:
        return
    for card in cards:
        assert CARD_ID_RE.match(card.id)
        json.dumps(card.facts(), allow_nan=False)
        assert card.number >= 0 and card.defence >= 0


@fuzz_settings(100)
@given(st.lists(st.sampled_from(list(CORE)) | leaves, max_size=40))
def test_validate_deck_refuses_bad_decks(deck: list[Any]) -> None:
    reads(lambda: CORE.validate_deck(deck))
    reads(lambda: CORE.validate_deck(deck, allowed_armies=["orcs"], custom=False))


# --- fuzz: the command line -------------------------------------------------------------------------------


def run_cli(tmp: Path, args: list[str], files: dict[str, str | bytes]) -> None:
    """Write the files, run the command; bad input means exit 2, one ``error:`` line, empty stdout."""
    for name, content in files.items():
        path = tmp / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
    result = CliRunner().invoke(cli, [str(tmp / a) if a in files else a for a in args])
    assert result.exit_code in (0, 2), (args, result.exit_code, result.stderr, result.exception)
    if result.exit_code == 2:
        assert result.stdout == "", result.stdout
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert result.stderr.endswith("\n")


@fuzz_settings(40)
@given(st.data())
def test_cli_refuses_malformed_position_files(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    tmp = tmp_path_factory.mktemp("cli")
    c = corpus()
    doc = mutate(data, data.draw(st.sampled_from(c["positions"] + c["views"])), rounds=2)
    text = json.dumps(doc)
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(text)))
        text = text[:i] + data.draw(st.text(max_size=3)) + text[i + 1 :]
    command = data.draw(
        st.sampled_from([["legal", "p.json"], ["view", "p.json", "--player", "2"], ["apply", "p.json", "draw"]])
    )
    if command[0] == "apply" and data.draw(st.booleans()):
        command = ["apply", "p.json", data.draw(st.sampled_from(TOKENS) | st.text(max_size=10))]
    run_cli(tmp, ["--cards", "r.json", *command], {"p.json": text, "r.json": json.dumps(RIDERS_PACK)})


@fuzz_settings(25)
@given(st.data())
def test_cli_refuses_malformed_records_decks_and_packs(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    tmp = tmp_path_factory.mktemp("cli")
    kind = data.draw(st.sampled_from(["game", "deck", "pack"]))
    if kind == "game":
        doc = mutate(data, data.draw(st.sampled_from(corpus()["records"])), rounds=2)
        run_cli(
            tmp,
            ["--cards", "r.json", "replay", "g.json"],
            {"g.json": json.dumps(doc), "r.json": json.dumps(RIDERS_PACK)},
        )
    elif kind == "deck":
        deck = mutate(data, CORE.standard_deck("elves"), rounds=2)
        text = (
            json.dumps(deck)
            if data.draw(st.booleans())
            else "\n".join(map(str, deck if isinstance(deck, list) else [deck]))
        )
        run_cli(tmp, ["new", "--deck1", "d.txt", "--armies", "random,orcs", "--seed", "3"], {"d.txt": text})
    else:
        pack = orcs_pack()
        pack["cards"] = [dict(c, id=c["id"].replace("orcs", "riders")) for c in pack["cards"][:3]]
        run_cli(
            tmp,
            ["--cards", "k.json", "cards", "--army", "riders"],
            {"k.json": json.dumps(mutate(data, pack, rounds=2))},
        )


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfe\x00",
        b"\xef\xbb\xbf{}",
        b"\x00",
        b"[]",
        b"null",
        b"{",
        b'{"format": "lordsofwar-position"}',
        b"\xed\xa0\x80",
        "\ufeff\ufeff{}".encode(),
    ],
)
@pytest.mark.parametrize("command", ["legal", "view", "replay", "apply", "deck", "pack"])
def test_cli_refuses_raw_bytes(tmp_path: Path, content: bytes, command: str) -> None:
    args = {
        "legal": ["legal", "f"],
        "view": ["view", "f", "--player", "1"],
        "replay": ["replay", "f"],
        "apply": ["apply", "f", "draw"],
        "deck": ["new", "--deck1", "f", "--seed", "1"],
        "pack": ["--cards", "f", "cards"],
    }[command]
    run_cli(tmp_path, args, {"f": content})


@pytest.mark.parametrize("content", [b"\xff\xfe", b"", b'{"format": "lordsofwar-position", "version": 1', b"\x00"])
@pytest.mark.parametrize(
    "command", [["legal", "-"], ["view", "-", "--player", "2"], ["replay", "-"], ["apply", "-", "x"]]
)
def test_cli_refuses_bad_stdin(content: bytes, command: list[str]) -> None:
    result = CliRunner().invoke(cli, command, input=content)
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr


@pytest.mark.parametrize("path", ["/nonexistent/x.json", "."])
@pytest.mark.parametrize("option", ["position", "deck", "pack"])
def test_cli_refuses_unreadable_files(path: str, option: str) -> None:
    args = {"position": ["legal", path], "deck": ["new", "--deck1", path], "pack": ["--cards", path, "cards"]}[option]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr


# --- hand-written cases that must hold ------------------------------------------------------------------


def a_position() -> Doc:
    return copy.deepcopy(corpus()["positions"][3])


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("turn", 1.0),
        ("turn", 1e308),
        ("turn", True),
        ("turn", -1),
        ("turn", 2**64),
        ("turn", "9"),
        ("turn", None),
        ("quiet_turns", float("nan")),
        ("quiet_turns", float("inf")),
        ("to_move", 3),
        ("to_move", True),
        ("to_move", None),
        ("to_move", [1]),
        ("variant", []),
        ("variant", {"rules": ["basic"]}),
        ("variant", {"units_to_win": 1.5}),
        ("variant", {"no_progress_turns": -1}),
        ("variant", {"mat": None}),
        ("board", None),
        ("board", [None]),
        ("board", [[]]),
        ("board", {"d3": "orcs:01"}),
        ("players", []),
        ("players", {"1": None, "2": None}),
        ("result", []),
        ("result", {"winner": 3}),
        ("result", {"reason": "x"}),
        ("result", {"winner": None, "reason": ["x"]}),
        ("turn_state", []),
        ("turn_state", {"phase": None}),
        ("turn_state", {"phase": "advance"}),
        ("turn_state", {"phase": "over"}),
        ("format", None),
        ("version", True),
        ("version", 2),
        ("comment", {"deep": [1, 2]}),
    ],
)
def test_hand_written_bad_position_fields(field: str, value: Any) -> None:
    doc = a_position()
    doc[field] = value
    pos = reads(lambda: parse_position(doc, CARDS))
    if pos is not None:
        exercise(pos, random.Random(1))


@pytest.mark.parametrize(
    "players",
    [
        {"hand": [None] * 6, "deck": 3},
        {"hand": ["orcs:01"] * 7},
        {"hand": "orcs:01"},
        {"hand": [["orcs:01"]]},
        {"deck": -1},
        {"deck": 10**6},
        {"deck": 1.0},
        {"deck": [None, "orcs:01", None]},
        {"lost": [None]},
        {"lost": ["orcs:01"] * 40},
        {"army": None},
        {"army": "\U0001f642" * 41},
        {"name": "x"},
        {"hand": ["orcs:01\n"]},
        {"hand": ["Orcs:01"]},
        {"hand": ["orcs:01 "]},
        {"hand": ["\uff4frcs:01"]},
    ],
)
def test_hand_written_bad_player_entries(players: Doc) -> None:
    doc = a_position()
    doc["players"]["1"].update(players)
    pos = reads(lambda: parse_position(doc, CARDS))
    if pos is not None:
        exercise(pos, random.Random(2))


@pytest.mark.parametrize(
    "text",
    [
        "draw ",
        " draw",
        "draw  pass",
        "deploy orcs:07",
        "deploy orcs:07 c3 c4",
        "deploy c3 orcs:07",
        "shoot d2",
        "recall",
        "move a1",
        "advance",
        "pass pass",
        "shoot 99999,0 d3",
        "move 32705,0 d3",
        "move -32704,32704 d3",
        "x" * 201,
        "\u2028",
        "draw\u00a0",
        "deploy orcs:07 \U0001f642",
        "recall d3\r",
    ],
)
def test_hand_written_bad_actions(text: str) -> None:
    for doc in corpus()["positions"][:4]:
        pos = parse_position(doc, CARDS)
        with pytest.raises(InvalidActionError) as info:
            parse_action(text, pos)
        assert_one_line(info.value)


def test_far_off_mat_squares_work_on_the_unbordered_mat() -> None:
    doc = next(d for d in corpus()["positions"] if d["variant"]["mat"] == "unbordered" and d["result"] is None)
    doc = copy.deepcopy(doc)
    doc.pop("turn_state", None)
    doc["board"] = [
        {"square": "32000,32000", "card": "orcs:09", "owner": 1},
        {"square": "-32000,-32000", "card": "dwarves:17", "owner": 2},
        {"square": "31999,31999", "card": "orcs:24", "owner": 2},
    ]
    pos = parse_position(doc, CARDS)
    exercise(pos, random.Random(3))


def test_seeds_of_records() -> None:
    doc = copy.deepcopy(corpus()["records"][1])
    for seed in (-1, 2**63, 1.0, True, None, "1", 1e308, [1]):
        doc["seed"] = seed
        with pytest.raises(NotationError) as info:
            parse_record(doc, CARDS)
        assert "seed" in str(info.value)
    doc["seed"] = 2**63 - 1
    doc["actions"] = []
    replay(parse_record(doc, CARDS), CARDS)


def test_card_packs_refuse_bad_shapes() -> None:
    bad_cards: list[Any] = [
        None,
        [],
        "x",
        {"id": None},
        {"id": "riders:01", "name": "x", "rank": "elite", "class": "cavalry", "defence": True},
        {"id": "riders:01", "name": "x", "rank": "elite", "class": "cavalry", "defence": 2.0},
        {
            "id": "riders:01",
            "name": "x",
            "rank": "elite",
            "class": "cavalry",
            "defence": 2,
            "ranged": {"damage": 1, "grid": []},
        },
        {
            "id": "riders:01",
            "name": "x",
            "rank": "elite",
            "class": "cavalry",
            "defence": 2,
            "ranged": {"damage": 1, "grid": [""]},
        },
        {"id": "riders:01", "name": "x", "rank": "elite", "class": "cavalry", "defence": 2, "attacks": "F\u0665"},
        {"id": "riders:01", "name": "x", "rank": "elite", "class": "cavalry", "defence": 2, "attacks": "F1 F2"},
        {"id": "riders:01", "name": "x", "rank": "elite", "class": "cavalry", "defence": 2, "moves": "F F"},
        {"id": "\uff52iders:01", "name": "x", "rank": "elite", "class": "cavalry", "defence": 2},
    ]
    for card in bad_cards:
        text = json.dumps({"format": "lordsofwar-cards", "version": 1, "cards": [card]})
        with pytest.raises(CardPackError) as info:
            parse_card_file(text, "pack.json")
        assert_one_line(info.value)
        assert str(info.value).startswith("pack.json")


# --- problems found: each test states the contract and fails today ---------------------------------------


def small_position(**changes: Any) -> Doc:
    """Player 1 to move at turn 9: an orc catapult (ranged) on d2, a goblin on d3, a dwarf on d5."""
    doc: Doc = {
        "format": "lordsofwar-position",
        "version": 1,
        "variant": {},
        "turn": 9,
        "to_move": 1,
        "quiet_turns": 0,
        "board": [
            {"square": "d2", "card": "orcs:24", "owner": 1},
            {"square": "d3", "card": "orcs:09", "owner": 1},
            {"square": "d5", "card": "dwarves:17", "owner": 2},
        ],
        "players": {
            "1": {"army": "orcs", "hand": ["orcs:30"], "deck": ["orcs:31"], "lost": []},
            "2": {"army": "dwarves", "hand": ["dwarves:35"], "deck": ["dwarves:23"], "lost": []},
        },
        "result": None,
    }
    doc.update(changes)
    return doc


def berserker_choice() -> Doc:
    """A real position of a berserker choice (phase 'advance') from the corpus games."""
    advance = corpus()["advance"]
    assert advance
    return copy.deepcopy(advance[0])


HUGE_INT = "1" * 5000  # more digits than Python's int <-> str conversion limit (4300)


def test_bug_loads_refuses_numbers_with_too_many_digits() -> None:
    with pytest.raises(NotationError):
        loads('{"turn": ' + HUGE_INT + "}", "position")


@pytest.mark.parametrize(
    ("args", "content"),
    [
        (["legal", "f"], '{"format": "lordsofwar-position", "version": 1, "turn": ' + HUGE_INT + "}"),
        (["replay", "f"], '{"format": "lordsofwar-game", "seed": ' + HUGE_INT + "}"),
        (["new", "--deck1", "f", "--seed", "1"], "[" + HUGE_INT + "]"),
    ],
)
def test_bug_cli_refuses_numbers_with_too_many_digits(tmp_path: Path, args: list[str], content: str) -> None:
    run_cli(tmp_path, args, {"f": content})


@pytest.mark.parametrize("text", ['{"format": ' + HUGE_INT + "}", "[" * 100_000 + "]" * 100_000])
def test_bug_card_file_refuses_huge_numbers_and_deep_nesting(text: str) -> None:
    with pytest.raises(CardPackError):
        parse_card_file(text, "pack.json")


@pytest.mark.parametrize("text", ['{"format": ' + HUGE_INT + "}", "[" * 100_000 + "]" * 100_000])
def test_bug_cli_card_pack_with_huge_numbers_and_deep_nesting(tmp_path: Path, text: str) -> None:
    run_cli(tmp_path, ["--cards", "k.json", "cards"], {"k.json": text})


def test_bug_card_ids_with_a_trailing_newline_are_refused() -> None:
    card = {"id": "riders:01\n", "name": "Rider", "rank": "elite", "class": "cavalry", "defence": 4, "attacks": "F3"}
    text = json.dumps({"format": "lordsofwar-cards", "version": 1, "cards": [card]})
    # accepted today: 'lordsofwar legal' then prints 'deploy riders:01' and ' c3' on two lines
    with pytest.raises(CardPackError):
        parse_card_file(text, "pack.json")


@pytest.mark.parametrize("text", ["3,2\n", "-1,0\n"])
def test_bug_squares_with_a_trailing_newline_are_refused(text: str) -> None:
    with pytest.raises(NotationError):
        mat.parse(text, bordered=False)


@pytest.mark.parametrize("deck", [[["orcs:01"]] * 36, [{"id": "orcs:01"}] * 36])
def test_bug_validate_deck_refuses_unhashable_ids(deck: list[Any]) -> None:
    with pytest.raises(LordsOfWarError):
        CORE.validate_deck(deck)


@pytest.mark.parametrize("field", ["turn", "to_move", "quiet_turns"])
def test_bug_parse_position_refuses_python_ints_too_long_to_print(field: str) -> None:
    with pytest.raises(NotationError):
        parse_position(small_position(**{field: 10**5000}))


@pytest.mark.parametrize(
    "change",
    [
        {"to_move": 1.0},
        {"version": 1.0},
        {"board": [{"square": "d3", "card": "orcs:09", "owner": 2.0}]},
        {"result": {"winner": 2.0, "reason": "4 command units eliminated"}},
    ],
)
def test_bug_player_numbers_and_versions_must_be_whole_numbers(change: Doc) -> None:
    with pytest.raises(NotationError):
        parse_position(small_position(**change))


@pytest.mark.parametrize("version", [True, 1.0])
def test_bug_card_file_version_must_be_the_number_1(version: Any) -> None:
    with pytest.raises(CardPackError):
        parse_card_file(json.dumps({"format": "lordsofwar-cards", "version": version, "cards": []}), "pack.json")


@pytest.mark.parametrize("where", ["shot_damage", "shots", "candidates", "reason"])
def test_bug_messages_stay_one_line_whatever_the_keys(where: str) -> None:
    if where == "reason":
        doc_ = dict(corpus()["records"][1], result={"winner": 1, "reason": "one\ntwo"})
        reader: Callable[[], Any] = lambda: replay(parse_record(doc_))  # noqa: E731
    else:
        doc = small_position(turn_state={"phase": "post", "decider": 1})
        if where == "candidates":
            doc["turn_state"].update(phase="advance", advance={"owners": [1], "candidates": {"d3\nd4": ["c4"]}})
        else:
            doc["turn_state"][where] = {"d3\nd4": 1 if where == "shot_damage" else "d5"}
        reader = lambda: parse_position(doc)  # noqa: E731
    with pytest.raises(NotationError) as info:
        reader()
    assert_one_line(info.value)


@pytest.mark.parametrize(("where", "command"), [("army", "view"), ("army", "apply"), ("reason", "view")])
def test_bug_cli_refuses_strings_that_are_not_unicode(tmp_path: Path, where: str, command: str) -> None:
    doc = small_position()
    action = str(parse_position(doc).legal_actions()[0])
    if where == "army":
        doc["players"]["1"]["army"] = "\ud800"
    else:
        doc["result"] = {"winner": 1, "reason": "\ud800"}
    args = ["view", "p.json", "--player", "1"] if command == "view" else ["apply", "p.json", action]
    run_cli(tmp_path, args, {"p.json": json.dumps(doc)})  # json.dumps writes the escape '\ud800'


def test_bug_cli_new_refuses_names_that_are_not_unicode(tmp_path: Path) -> None:
    run_cli(tmp_path, ["new", "--seed", "1", "--names", "\udcff,bob", "--record", str(tmp_path / "r.json")], {})


def test_bug_actions_listed_near_the_off_mat_limit_read_back() -> None:
    doc = small_position(
        variant={"mat": "unbordered"},
        board=[{"square": "32704,0", "card": "orcs:09", "owner": 1}],
    )
    doc["players"]["1"]["hand"] = ["orcs:07"]
    pos = parse_position(doc)
    for action in pos.legal_actions():  # 'deploy orcs:07 32705,0' is listed ...
        parse_action(str(action), pos)  # ... and refused: '32705,0' is too far from the mat


@pytest.mark.parametrize("extra", [["same"], [1, 1], [1] * 1000])
def test_bug_advance_owners_are_distinct_players(extra: list[Any]) -> None:
    doc = berserker_choice()
    adv = doc["turn_state"]["advance"]
    first = adv["owners"][0]
    adv["owners"] = [first] + [first if e == "same" else e for e in extra]
    # a 600 kB file with 200,000 owners takes 7 s to push one advance; 10 MB would take half an hour
    with pytest.raises(NotationError):
        parse_position(doc)


def test_bug_advance_candidates_without_duplicates() -> None:
    doc = berserker_choice()
    candidates = doc["turn_state"]["advance"]["candidates"]
    b = next(iter(candidates))
    candidates[b] = candidates[b] + candidates[b]
    try:
        pos = parse_position(doc)
    except NotationError:
        return
    actions = pos.legal_actions()
    assert len(actions) == len(set(actions)), sorted(map(str, actions))


def test_bug_advance_candidates_are_adjacent() -> None:
    doc = berserker_choice()
    occupied = {e["square"] for e in doc["board"]}
    b = next(iter(doc["turn_state"]["advance"]["candidates"]))
    bx, by = mat.coords(mat.parse(b, False))
    far = next(
        mat.name(s)
        for s in sorted(mat.ON_MAT)
        if mat.name(s) not in occupied and max(abs(mat.coords(s)[0] - bx), abs(mat.coords(s)[1] - by)) > 1
    )
    doc["turn_state"]["advance"]["candidates"][b] = [far]
    with pytest.raises(NotationError):
        parse_position(doc)  # accepted today: 'advance <b> <far>' is then legal and teleports the unit


@pytest.mark.parametrize(
    "turn_state",
    [
        # d2 has shot d5 but is not flagged 'shot': 'shoot d2 d5' is legal a second time
        {"shots": {"d2": "d5"}, "shot_damage": {"d5": 4}},
        # the goblin on d3 has no ranged weapon, and shoots its own catapult
        {"shots": {"d3": "d2"}, "shot": ["d3"]},
        # the dwarf (player 2) shot during player 1's turn
        {"shots": {"d5": "d3"}, "shot": ["d5"]},
    ],
)
def test_bug_shots_agree_with_the_position(turn_state: Doc) -> None:
    doc = small_position(turn_state={"phase": "post", "decider": 1, **turn_state})
    with pytest.raises(NotationError):
        parse_position(doc)


def test_bug_turn_state_must_say_the_decider() -> None:
    with pytest.raises(NotationError):
        parse_position(small_position(turn_state={"phase": "post"}))
