"""What the two batches (the compiled ``_batch.Batch`` and the Python ``_python.Batch``) share:
their options, their defaults and their NumPy buffers (docs/core.md, "The batch API")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from lordsofwar.core.observation import INFO, PLANES
from lordsofwar.rules.cards import CORE, DECK_SIZE, CardSet
from lordsofwar.rules.position import Variant

G = TypeVar("G")

SKIP = -1
"""An action id for ``Batch.step``: this game does not move (its rows stay as they are)."""

SEARCH_OPPONENTS = ("recruit", "veteran", "elite", "general", "marshal")
"""The search levels (``lordsofwar.bots.search.LEVELS``) a compiled batch plays itself: each
searches from its own view and knowledge, as the search bot does, and its iteration cap alone
ends a search (no clock: a batch repeats from its seed). The Python batch does not play them."""

OPPONENTS = ("random", "greedy", *SEARCH_OPPONENTS)
"""The opponents a batch plays itself, inside ``reset`` and ``step``: a uniformly random player,
the greedy bot (``lordsofwar.bots.greedy``) and the search levels (:data:`SEARCH_OPPONENTS`)."""

OPPONENT_SEED = 0x6F70706F6E656E74
"""Mixed into a batch's seed for its opponent's own draws."""


def with_frame(game_class: type[G], frame: tuple[int, int]) -> type[G]:
    """``game_class``, or a subclass of it whose integer actions use ``frame``."""
    if getattr(game_class, "FRAME", None) == frame:
        return game_class
    key = (game_class, frame[0], frame[1])
    framed = _FRAMED.get(key)
    if framed is None:  # one class per frame: a pickled game comes back as the same class
        framed = _FRAMED[key] = type(
            game_class.__name__, (game_class,), {"FRAME": (frame[0], frame[1]), "__slots__": ()}
        )
    return framed


_FRAMED: dict[tuple[type, int, int], type] = {}


class BatchBuffers:
    """The options of a batch, checked, and its buffers:

    - ``planes`` (size, PLANES, H, W) uint8 and ``info`` (size, INFO) float32: each game's
      observation for its decider; ``mask`` (size, num_actions) uint8: its legal ids;
      ``to_play`` (size,) int8: its decider;
    - after a step, ``rewards`` (size, 2) float32: +1 / -1 / 0 for players 1 and 2 when the game
      ended at this step, else 0; ``done`` (size,) uint8: the game ended and a new one was dealt
      (the observation is the new game's first); ``truncated``: it was cut short because no
      legal action had an id in the frame (unbordered mat only);
    - ``actions`` (size,) int32: what ``sample()`` returns.

    With an ``opponent`` (:data:`OPPONENTS`; a search level only against standard army decks),
    the learner plays ``seats[i]`` in game ``i`` (default:
    1 in even-numbered games, 2 in odd ones) and the opponent the other seat, inside ``reset`` and
    ``step``: every row then shows a decision of the learner's seat, and ``step``'s rewards and
    ``done`` count the games the opponent's actions ended too.

    Games are dealt from ``decks`` (default: every 36-card army of ``cards``, each side drawn at
    random for every game).
    """

    def __init__(
        self,
        size: int,
        variant: Variant | None,
        decks: Sequence[Sequence[str]] | None,
        cards: CardSet | None,
        frame: tuple[int, int],
        opponent: str | None = None,
        seats: Sequence[int] | None = None,
    ):
        if opponent is not None and opponent not in OPPONENTS:
            raise ValueError(f"opponent {opponent!r}: None, or one of {', '.join(OPPONENTS)}")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError("size: at least one game")
        if seats is None:
            seats = [1 + b % 2 for b in range(size)]
        learner = np.array([int(s) if s in (1, 2) else 0 for s in seats], np.int8)
        if learner.shape != (size,) or not learner.all():
            raise ValueError(f"seats: one learner's seat, 1 or 2, per game ({size}), got {list(seats)!r}")
        self.opponent = opponent
        self.seats = learner
        self.cards = CORE if cards is None else cards
        self.variant = variant or Variant()
        if decks is None:
            decks = [self.cards.standard_deck(a) for a in self.cards.armies if len(self.cards.army(a)) == DECK_SIZE]
        for deck in decks:
            self.cards.validate_deck(deck)
        if not decks:
            raise ValueError("a batch needs at least one deck")
        if opponent in SEARCH_OPPONENTS:
            for deck in decks:
                if self.cards.standard_army_of(deck) is None:
                    raise ValueError(
                        f"opponent {opponent!r}: the search opponents play against standard army decks only "
                        "(they know the list of the army they face, as a player does)"
                    )
        self.decks = [list(deck) for deck in decks]
        self.size = size
        self.frame = (frame[0], frame[1])

    def allocate(self, width: int, height: int, num_actions: int) -> None:
        """Make the buffers for frames of ``width`` x ``height`` and ``num_actions`` ids."""
        size = self.size
        self.num_actions = num_actions
        self.planes = np.zeros((size, PLANES, height, width), np.uint8)
        self.info = np.zeros((size, INFO), np.float32)
        self.mask = np.zeros((size, num_actions), np.uint8)
        self.to_play = np.zeros(size, np.int8)
        self.rewards = np.zeros((size, 2), np.float32)
        self.done = np.zeros(size, np.uint8)
        self.truncated = np.zeros(size, np.uint8)
        self.actions = np.zeros(size, np.int32)

    def _finished_args(
        self, rows: Sequence[int] | np.ndarray, players: Sequence[int] | np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``observe_finished``'s arguments checked: ``rows`` as int32 (each a game of the batch),
        ``players`` as int8 (1 or 2, one per row)."""
        r = np.asarray(rows).reshape(-1)
        p = np.asarray(players).reshape(-1)
        for name, a in (("rows", r), ("players", p)):
            if a.size and not np.issubdtype(a.dtype, np.integer):
                raise ValueError(f"observe_finished: {name} are integers, got {a.dtype}")
        if p.shape != r.shape:
            raise ValueError(f"observe_finished: one player per row, got {p.size} for {r.size} rows")
        if r.size and (r.min() < 0 or r.max() >= self.size):
            raise IndexError(f"observe_finished: rows are games 0 to {self.size - 1}")
        if not ((p == 1) | (p == 2)).all():
            raise ValueError("observe_finished: players are 1 or 2")
        return np.ascontiguousarray(r, dtype=np.int32), np.ascontiguousarray(p, dtype=np.int8)

    def _finished_buffers(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        """Zeroed planes and info for ``rows`` observations of this batch's frame."""
        return np.zeros((rows, *self.planes.shape[1:]), np.uint8), np.zeros((rows, INFO), np.float32)

    def clear_outcomes(self) -> None:
        self.rewards[:] = 0
        self.done[:] = 0
        self.truncated[:] = 0
