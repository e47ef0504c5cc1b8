"""The weakest opponent: a uniformly random legal action."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from lordsofwar.rules.state import Action, Position


class RandomBot:
    """Picks uniformly among the legal actions of its view, with its own random generator.

    The actions are sorted by their notation text first, so a seed gives the same game
    whatever order the engine lists them in.
    """

    name = "random"

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(
        self,
        view: Position,
        known: Mapping[int, Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
    ) -> Action:
        actions = sorted(view.legal_actions(), key=str)
        if not actions:
            raise ValueError("the random bot was asked to act, but its view has no legal action")
        return self.rng.choice(actions)

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed!r})"
