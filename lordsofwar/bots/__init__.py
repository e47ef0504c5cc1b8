"""Players that choose actions: one interface, several strengths.

A bot sees only its own view of the game (``notation.view(pos, player)``): the opponent's hand
in the hidden-hands variant and both decks are ``None`` there, so a bot cannot cheat by
construction. The game loop, not the bot, applies the chosen action to the real position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from lordsofwar.rules.state import Action, Position


@runtime_checkable
class Bot(Protocol):
    """A player program: it is shown its own view and answers with one of its legal actions."""

    name: str

    def choose(self, view: Position) -> Action:
        """One of ``view.legal_actions()`` for ``view.decider`` (the bot's own player)."""
        ...


BotFactory = Callable[[int | None], Bot]


def _random_bot(seed: int | None) -> Bot:
    from lordsofwar.bots.random_bot import RandomBot

    return RandomBot(seed)


def _greedy_bot(seed: int | None) -> Bot:
    from lordsofwar.bots.greedy import GreedyBot

    return GreedyBot(seed)


BOTS: dict[str, BotFactory] = {"random": _random_bot, "greedy": _greedy_bot}
"""The bots a user can pick by name (``lordsofwar play --opponent NAME``), each built from a seed:
``random`` (uniformly random legal actions) and ``greedy`` (the action that eliminates the most
value this turn, see :mod:`lordsofwar.bots.greedy`), weakest first."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """The bot called ``name``; an unknown name raises ``ValueError`` listing the known ones
    (in the order of :data:`BOTS`, weakest first)."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})") from None
    return factory(seed)


__all__ = ["BOTS", "Bot", "BotFactory", "make_bot"]
