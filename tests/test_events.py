"""lordsofwar.rules.events: every event the engine, the native core and the endings off the board
produce has exactly the fields of its kind's TypedDict, with their types; the browser client's
model.d.ts and docs/notation.md list the same kinds and fields."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import core_worlds
import pytest
from pydantic import Field, TypeAdapter, ValidationError

from lordsofwar import core
from lordsofwar.rules import engine, notation
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.events import EVENT_TYPES, Event, EventType, squares
from lordsofwar.rules.state import Position

ROOT = Path(__file__).resolve().parent.parent
EVENTS = TypeAdapter(Annotated[Event, Field(discriminator="type")])


def tag(kind: type) -> str:
    """The ``type`` tag of one kind's TypedDict."""
    (value,) = get_args(get_type_hints(kind)["type"])
    return str(value)


KINDS: dict[str, Any] = {tag(k): k for k in EVENT_TYPES}


def fields(kind: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The required and the optional keys of one kind, ``type`` left out."""
    return kind.__required_keys__ - {"type"}, frozenset(kind.__optional_keys__)


def check_event(event: Any) -> None:
    """``event`` is one of :data:`Event`: exactly its kind's keys, each of its type (strictly:
    no ``1`` for ``true``, no ``"3"`` for ``3``)."""
    assert isinstance(event, dict), event
    assert event.get("type") in KINDS, f"unknown event type: {event!r}"
    required, optional = fields(KINDS[event["type"]])
    keys = set(event) - {"type"}
    assert required <= keys, f"{event!r} lacks {sorted(required - keys)}"
    assert keys <= required | optional, f"{event!r} has fields its kind has not: {sorted(keys - required - optional)}"
    EVENTS.validate_python(event, strict=True)


def check_all(events: Iterable[Any], seen: Counter[str]) -> None:
    for e in events:
        check_event(e)
        seen[e["type"]] += 1


# --- the types themselves ----------------------------------------------------------------------


def test_each_kind_has_one_tag_and_the_tags_are_the_event_types() -> None:
    assert len(KINDS) == len(EVENT_TYPES)
    assert set(KINDS) == set(get_args(EventType))
    for kind in EVENT_TYPES:
        hint = get_type_hints(kind)["type"]
        assert get_origin(hint) is Literal and len(get_args(hint)) == 1


def test_an_event_with_a_missing_extra_or_mistyped_field_is_refused() -> None:
    good = {"type": "deploy", "card": "orcs:01", "square": "d4", "player": 1, "forced": False}
    check_event(good)
    bad: list[dict[str, Any]] = [
        {k: v for k, v in good.items() if k != "forced"},
        {**good, "owner": 1},
        {**good, "forced": 0},
        {**good, "player": "1"},
        {**good, "type": "deployed"},
        {"type": "result", "winner": 1, "reason": "player 2 resigned"},
    ]
    for event in bad:
        with pytest.raises((AssertionError, ValidationError)):
            check_event(event)


def test_the_squares_an_event_names() -> None:
    shot: Event = {
        "type": "shot",
        "from": "c2",
        "target": "d4",
        "damage": 2,
        "declared": False,
        "card": "orcs:24",
        "target_card": "elves:01",
    }
    assert squares(shot) == ["c2", "d4"]
    assert squares({"type": "deploy", "card": "orcs:01", "square": "b3", "player": 1, "forced": True}) == ["b3"]
    assert squares({"type": "advance", "from": "c3", "to": "c4", "owner": 2, "card": "orcs:02"}) == ["c3", "c4"]
    assert squares({"type": "recall", "square": "e5", "card": "orcs:09", "player": 2}) == ["e5"]
    assert squares({"type": "draw", "player": 1}) == []
    assert squares({"type": "draw_agreed"}) == []


# --- what produces events ----------------------------------------------------------------------

WORLDS = range(2026_11_27, 2026_11_27 + 120)
BOARD_KINDS = {"deploy", "shot", "eliminated", "advance", "recall", "draw", "result"}
"""Kinds that every batch of random games produces (the rarer ones: pass, reveal, extra_turn,
move, are checked where they happen)."""


def _python_game(pos: Position, rng: random.Random) -> list[Any]:
    out: list[Any] = []
    while not pos.is_over:
        out.extend(pos.push(rng.choice(sorted(pos.legal_actions(), key=str))))
    return out


def test_the_python_engine_builds_events_of_their_kinds() -> None:
    seen: Counter[str] = Counter()
    for seed in WORLDS:
        rng = random.Random(seed)
        world = core_worlds.start(rng)
        check_all(_python_game(world.pos.copy(), rng), seen)
    assert set(seen) >= BOARD_KINDS, seen
    assert seen["result"] == len(WORLDS)


def test_the_native_core_builds_the_same_keys() -> None:
    if core.IMPLEMENTATION != "native":
        pytest.skip(f"the native core is not built ({core.FALLBACK_REASON})")
    seen: Counter[str] = Counter()
    for seed in WORLDS:
        rng = random.Random(seed)
        world = core_worlds.start(rng)
        game = core.Game.from_json(json.dumps(notation.position_to_json(world.pos)), world.cards)
        while not game.is_over:
            check_all(game.apply(rng.choice(sorted(game.legal()))), seen)
    assert set(seen) >= BOARD_KINDS, seen
    assert seen["result"] == len(WORLDS)


def _forced_deployment(seeds: range) -> tuple[Position, list[str], list[Any]] | None:
    """A dealt game played at random to its first forced deployment: the deal, the actions up
    to the deployment (its own last) and the deployment's events, found with the native core when
    it is built (faster), else with the rules engine."""
    native = core.IMPLEMENTATION == "native"
    for seed in seeds:
        rng = random.Random(seed)
        world = core_worlds.dealt(rng)
        pos = world.pos.copy()
        game = core.Game.from_json(json.dumps(notation.position_to_json(pos)), world.cards) if native else None
        played: list[str] = []
        while not pos.is_over if game is None else not game.is_over:
            legal = sorted(game.legal()) if game is not None else sorted(str(a) for a in pos.legal_actions())
            played.append(rng.choice(legal))
            events = game.apply(played[-1]) if game is not None else pos.push(played[-1])
            if any(e["type"] == "reveal" for e in events):
                return world.pos, played, events
    return None


def test_a_forced_deployment_reveals_a_typed_hand_in_both_implementations() -> None:
    """Forced deployments are rare in random games: look for one over dealt games, then play the
    same actions with the rules engine: the same events, of their kinds."""
    found = _forced_deployment(range(400))
    assert found is not None, "no forced deployment in 400 dealt games"
    start, played, events = found
    check_all(events, Counter())
    pos = start.copy()
    for text in played[:-1]:
        pos.push(text)
    assert pos.push(played[-1]) == events


def _ended(how: str, player: int | None, turn: int) -> list[Any]:
    pos = notation.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 5)
    rng = random.Random(5)
    while pos.turn < turn:
        pos.push(rng.choice(sorted(pos.legal_actions(), key=str)))
    if how == "resign":
        assert player is not None
        return engine.resign(pos, player)
    if how.startswith("abort"):
        return engine.abort(pos, ("abort", player) if how == "abort" else (how[len("abort:") :], player))
    return engine.end_by_platform(pos, how, player)


@pytest.mark.parametrize(
    ("how", "player", "turn", "kinds"),
    [
        ("resign", 2, 4, ["resign", "result"]),
        ("time", 1, 4, ["timeout", "result"]),
        ("deadline", 2, 4, ["timeout", "result"]),
        ("agreed", None, 4, ["draw_agreed", "result"]),
        ("abort", 1, 1, ["abort", "result"]),
        ("abort:resign", 2, 2, ["resign", "result"]),
        ("abort:time", 1, 1, ["timeout", "result"]),
        ("abort:agreed", None, 2, ["draw_agreed", "result"]),
    ],
)
def test_endings_off_the_board_build_events_of_their_kinds(
    how: str, player: int | None, turn: int, kinds: Sequence[str]
) -> None:
    events = _ended(how, player, turn)
    check_all(events, Counter())
    assert [e["type"] for e in events] == kinds


# --- the same kinds in the browser client and the notation document -----------------------------


def _ts_interfaces() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """model.d.ts's event interfaces: tag -> (required fields, optional fields), ``type`` left out."""
    text = (ROOT / "lordsofwar/web/static/js/model.d.ts").read_text(encoding="utf-8")
    found: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for body in re.findall(r"export interface \w+Event \{(.*?)\n\}", text, re.S):
        members = re.findall(r"^\s*(\w+)(\??):\s*(.+?);", body, re.M)
        tags = [m[2].strip("'") for m in members if m[0] == "type"]
        assert len(tags) == 1, body
        required = frozenset(name for name, opt, _ in members if not opt and name != "type")
        optional = frozenset(name for name, opt, _ in members if opt)
        found[tags[0]] = (required, optional)
    return found


def test_the_browser_client_types_the_same_kinds_and_fields() -> None:
    assert _ts_interfaces() == {t: fields(k) for t, k in KINDS.items()}


def test_the_notation_document_lists_every_kind_with_its_fields() -> None:
    text = (ROOT / "docs/notation.md").read_text(encoding="utf-8")
    section = text.split("\n## Events\n", 1)[1].split("\n## ", 1)[0]
    rows = {m[0]: set(re.findall(r"`(\w+)`", m[1])) for m in re.findall(r"^\| `(\w+)` \| (.*) \|$", section, re.M)}
    for t, kind in KINDS.items():
        required, optional = fields(kind)
        assert t in rows, f"docs/notation.md, Events, has no row for {t}"
        assert required | optional <= rows[t], f"{t}: the row lacks {sorted(required | optional - rows[t])}"
