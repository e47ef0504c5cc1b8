"""The native core plays exactly the rules engine: 2,000 random games compared action by action.

Each game starts from a world of ``core_worlds`` (dealt games in every variant, crowded
positions of the middle game, some mid-turn, and games with a pack of moving units) and is
played to its end by uniformly random legal actions; ``core_diff.compare_game`` compares the
legal lists, events, position documents and state after every action, and the integer actions,
refusals and clones every few. A failure prints the start position and the actions, and
``python bench/core_diff.py --world SEED`` replays it. The bench script runs the same comparison
for as many games as wanted.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import Any

import core_diff
import core_worlds
import pytest

from lordsofwar import core
from lordsofwar.core import _python
from lordsofwar.rules.cards import CORE, RANKS, CardSet
from lordsofwar.rules.notation import parse_position

CASES = 20
GAMES_PER_CASE = 100
SEED = 2026_11_23
"""World seeds are ``SEED + n`` for games ``n`` = 0 .. CASES * GAMES_PER_CASE - 1."""


def world_seeds(case: int) -> range:
    first = SEED + case * GAMES_PER_CASE
    return range(first, first + GAMES_PER_CASE)


def play_world(seed: int, impl: Any, seen: Counter[str] | None = None) -> int:
    """The game of one world seed, compared against ``impl``; the actions compared."""
    rng = random.Random(seed)
    world = core_worlds.start(rng)
    context = f"world seed {seed}; rerun: python bench/core_diff.py --world {seed}"
    return core_diff.compare_game(world.pos, world.cards, rng, impl, context=context, seen=seen)


# Common enough that every 100 games see them; the rare ones (a berserker choice, a pass, a
# forced deployment's reveal) are covered by the worlds (test_the_worlds_cover_every_family).
EVERY_CASE_SEES = ("deploy", "shoot", "move", "recall", "draw", "event:eliminated", "event:advance")


@pytest.mark.parametrize("case", range(CASES))
def test_native_core_agrees_with_the_python_engine(case: int) -> None:
    if core.IMPLEMENTATION != "native":
        pytest.skip(f"the native core is not built ({core.FALLBACK_REASON})")
    seen: Counter[str] = Counter()
    actions = sum(play_world(seed, core, seen) for seed in world_seeds(case))
    assert actions > 20 * GAMES_PER_CASE
    assert not [kind for kind in EVERY_CASE_SEES if not seen[kind]], seen


# --- the worlds cover every family ------------------------------------------------------------------


@cache
def families() -> Counter[str]:
    """How many worlds of the test above belong to each family (core_worlds.describe)."""
    counts: Counter[str] = Counter()
    for case in range(CASES):
        for seed in world_seeds(case):
            counts.update(core_worlds.describe(core_worlds.start(random.Random(seed))))
    return counts


FAMILIES = [
    "dealt",
    "scrambled",
    "pack",
    "pack-scrambled",
    "basic",
    "intermediate",
    "hidden",
    "visible",
    "bordered",
    "unbordered",
    "15/3",
    "20/4",
    "25/5",
    "quiet:3",
    "quiet:12",
    "quiet:40",
    "mercenary",
    "off-mat",
    "mid-turn",
    "declared-shot",
    "phase:post",
    "phase:advance",
]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_worlds_cover_every_family(family: str) -> None:
    assert families()[family] > 0, dict(families())


def test_most_worlds_are_dealt_games_with_a_good_share_of_the_others() -> None:
    counts = families()
    total = CASES * GAMES_PER_CASE
    assert counts["dealt"] > 0.4 * total
    assert counts["scrambled"] > 0.15 * total
    assert counts["pack"] + counts["pack-scrambled"] > 0.1 * total


def test_raiders_pack_has_moving_units_of_every_class_and_rank() -> None:
    raiders = core_worlds.RAIDERS.army("raiders")
    assert {c.cls for c in raiders if c.moves} == {"infantry", "cavalry", "berserker", "spear", "ranged"}
    assert {c.rank for c in raiders} == set(RANKS)
    assert any(len(c.moves) == 8 for c in raiders)
    assert any(t[1] < 0 for c in raiders if c.ranged for t in c.ranged.targets)  # a target behind


def test_pack_decks_keep_the_rank_counts() -> None:
    rng = random.Random(5)
    for _ in range(50):
        deck = core_worlds.raiders_deck(rng)
        core_worlds.RAIDERS.validate_deck(deck)
        assert any(c.startswith("raiders:") for c in deck)


def test_scrambled_positions_are_crowded_start_of_turn_positions() -> None:
    rng = random.Random(7)
    for _ in range(40):
        v = core_worlds.variant(rng)
        doc = core_worlds.scrambled_doc(rng, CORE, [core_worlds.core_deck(rng), core_worlds.core_deck(rng)], v)
        pos = parse_position(doc, CORE)
        assert pos.turn >= 3 and not pos.in_turn and pos.result is None
        if v.bordered:
            assert 0.6 * 42 - 1 <= len(pos.board) <= 0.95 * 42 + 1
        for p in (1, 2):
            assert len(pos.hands[p]) <= 6
            assert len(pos.lost[p]) < v.units_to_win
            assert sum(pos.cards[c].is_command for c in pos.lost[p]) < v.commands_to_win


# --- the harness itself ---------------------------------------------------------------------------


def test_the_harness_finds_no_difference_between_the_engine_and_itself() -> None:
    """Against the Python face of the API (the engine itself), every comparison passes."""
    assert sum(play_world(seed, _python) for seed in range(SEED, SEED + 12)) > 0


class _NoMoves:
    """An implementation that forgets every move: the harness must catch it and say how to
    replay."""

    class Game:
        def __init__(self, inner: Any):
            self.inner = inner

        @classmethod
        def from_json(cls, text: str, cards: CardSet | None = None) -> _NoMoves.Game:
            return cls(_python.Game.from_json(text, cards))

        def legal(self) -> list[str]:
            return [a for a in self.inner.legal() if not a.startswith("move ")]

        def clone(self) -> _NoMoves.Game:
            return _NoMoves.Game(self.inner.clone())

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)


def test_the_harness_reports_a_difference_with_what_replays_it() -> None:
    rng = random.Random(3)
    world = core_worlds.with_moving_pack(rng)
    while world.kind != "pack-scrambled" or not any(a.kind == "move" for a in world.pos.legal_actions()):
        world = core_worlds.with_moving_pack(rng)
    with pytest.raises(core_diff.Disagreement) as err:
        core_diff.compare_game(world.pos, world.cards, rng, _NoMoves, context="a test")
    report = str(err.value)
    assert 'only in python: ["move ' in report
    assert "start: {" in report and "actions: [" in report and "card set: core + raiders" in report
    with pytest.raises(core_diff.Disagreement, match="only in python"):
        core_diff.replay(err.value.start, err.value.actions, world.cards, _NoMoves)
    core_diff.replay(err.value.start, err.value.actions, world.cards, _python)
