"""Puzzles for the puzzle API's tests: decision points of real dealt games (orcs against
dwarves, random legal actions), each with one of its legal actions named the solution. The
tests put them in place of the shipped puzzles (:func:`use`), so that they know every hidden
card of each position and can look for it on the wire."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from lordsofwar.learn import puzzles as bank
from lordsofwar.learn.puzzles import Puzzle, puzzle_id
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.state import Position
from lordsofwar.web.puzzles import service

ARMIES = ("orcs", "dwarves")
SHIPPED = (bank.load, bank.by_id)
"""The shipped puzzles' reader, kept before any test puts its own puzzles in place."""


@dataclass(frozen=True)
class Made:
    puzzle: Puzzle
    position: Position
    """The whole position (the hidden cards included): what must never reach a browser."""

    def hidden(self) -> list[str]:
        """The cards the solver cannot see: the opponent's hand and deck (the solver's own deck
        list is theirs to know, its order is not: it is sent sorted)."""
        opp = 3 - self.puzzle.player
        return [c for c in [*self.position.hands[opp], *self.position.decks[opp]] if c is not None]


def make(seed: int, rating: int, margin: float, themes: list[str]) -> Made:
    rng = random.Random(seed)
    decks = [CORE.standard_deck(a) for a in ARMIES]
    pos = notation.deal(decks, seed, armies=list(ARMIES))
    for _ in range(rng.randrange(6, 14)):
        actions = pos.legal_actions()
        if pos.result is not None or not actions:
            break
        pos.push(rng.choice(actions))
    while pos.result is None and len(pos.legal_actions()) < 3:
        pos.push(pos.legal_actions()[0])
    assert pos.result is None
    player = pos.decider
    view = notation.view_json(pos, player)
    legal = sorted(str(a) for a in pos.legal_actions())
    solution = legal[rng.randrange(len(legal))]
    puzzle = Puzzle(
        id=puzzle_id(view, solution),
        view=view,
        player=player,
        deck=list(decks[player - 1]),
        known=[],
        solution=solution,
        margin=margin,
        themes=themes,
        rating=rating,
        legal=len(legal),
    )
    bank.check(puzzle)
    return Made(puzzle, pos)


def collection(n: int = 9) -> list[Made]:
    """``n`` puzzles of rising difficulty, three themes among them, every other one good enough
    to be a daily puzzle."""
    themes = [["ranged"], ["support", "move"], ["command-kill"]]
    return [make(100 + i, 900 + 150 * i, 0.3 if i % 2 == 0 else 0.1, themes[i % 3]) for i in range(n)]


def use(monkeypatch: pytest.MonkeyPatch, made: list[Made]) -> None:
    """Serve ``made`` instead of the shipped puzzles."""
    puzzles = sorted((m.puzzle for m in made), key=lambda p: p.id)
    index = {p.id: p for p in puzzles}
    monkeypatch.setattr(bank, "load", lambda: puzzles)
    monkeypatch.setattr(bank, "by_id", index.get)
    service._solver.cache_clear()
    service._bands_of.cache_clear()
