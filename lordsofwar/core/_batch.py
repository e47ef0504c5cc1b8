"""``lordsofwar.core.Batch``: many games stepped at once by the compiled core (docs/core.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import lordsofwar.core._core as _core
from lordsofwar.core._native import Game, _variant_tuple, table
from lordsofwar.core.encoding import FRAME
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.position import Variant

PLANES: int = _core.PLANES
INFO: int = _core.INFO


class Batch:
    """``size`` games dealt from ``decks`` (default: every core army's standard deck, each side
    drawn at random for every game), stepped together with automatic reset.

    The buffers are NumPy arrays owned by the batch and rewritten in place by :meth:`reset` and
    :meth:`step`; no Python object is made per game or per step:

    - ``planes`` (size, PLANES, H, W) uint8 and ``info`` (size, INFO) float32: each game's
      observation for its decider; ``mask`` (size, num_actions) uint8: its legal ids;
      ``to_play`` (size,) int8: its decider;
    - after a step, ``rewards`` (size, 2) float32: +1 / -1 / 0 for players 1 and 2 when the game
      ended at this step, else 0; ``done`` (size,) uint8: the game ended and a new one was dealt
      (the observation is the new game's first); ``truncated``: it was cut short because no
      legal action had an id in the frame (unbordered mat only).
    """

    def __init__(
        self,
        size: int,
        seed: int = 0,
        variant: Variant | None = None,
        decks: Sequence[Sequence[str]] | None = None,
        cards: CardSet | None = None,
        frame: tuple[int, int] = FRAME,
    ):
        cards = cards or CORE
        self.variant = variant or Variant()
        self._table = table(cards)
        if decks is None:
            decks = [cards.standard_deck(a) for a in cards.armies if len(cards.army(a)) == 36]
        for deck in decks:
            cards.validate_deck(deck)
        index = self._table.index
        self._b = _core.Batch(
            self._table.core,
            [[index[c] for c in deck] for deck in decks],
            _variant_tuple(self.variant),
            size,
            seed & (2**64 - 1),
            frame[0],
            frame[1],
        )
        b = self._b
        self.size = size
        self.num_actions: int = b.num_actions
        self.planes = np.zeros((size, PLANES, b.height, b.width), np.uint8)
        self.info = np.zeros((size, INFO), np.float32)
        self.mask = np.zeros((size, self.num_actions), np.uint8)
        self.to_play = np.zeros(size, np.int8)
        self.rewards = np.zeros((size, 2), np.float32)
        self.done = np.zeros(size, np.uint8)
        self.truncated = np.zeros(size, np.uint8)
        self.actions = np.zeros(size, np.int32)
        self._frame = frame
        self.reset()

    def reset(self) -> None:
        """Deal every game afresh."""
        self._b.reset(self.planes, self.info, self.mask, self.to_play)
        self.rewards[:] = 0
        self.done[:] = 0
        self.truncated[:] = 0

    def step(self, actions: np.ndarray) -> None:
        """Apply ``actions[i]`` (an id) to game ``i``, all checked first: one that is not legal
        raises :class:`IllegalActionError` and nothing changes."""
        acts = np.ascontiguousarray(actions, dtype=np.int32)
        bad = self._b.step(acts, self.planes, self.info, self.mask, self.to_play, self.rewards, self.done, self.truncated)
        if bad >= 0:
            raise IllegalActionError(f"game {bad} of the batch: action id {int(acts[bad])} is not legal there")

    def sample(self) -> np.ndarray:
        """A uniformly random legal id for every game (in ``self.actions``)."""
        self._b.sample(self.mask, self.actions)
        return self.actions

    def game(self, i: int) -> Game:
        """A copy of game ``i`` as a :class:`lordsofwar.core.Game`."""
        cls = Game if self._frame == Game.FRAME else type("Game", (Game,), {"FRAME": self._frame, "__slots__": ()})
        state = self._b.game(i)
        # The armies, as notation.deal names them: the standard deck each side's cards make.
        _head, units, hands, decks, lost, *_ = state.export()
        ids = self._table.ids
        armies = [""]
        for p in (1, 2):
            held = [ids[u[1]] for u in units if u[2] == p]
            held += [ids[c] for c in (*hands[p - 1], *decks[p - 1], *lost[p - 1]) if c >= 0]
            armies.append(self._table.cards.standard_army_of(held) or "mercenary")
        return cls(state, self._table, self.variant, armies)

    @property
    def steps(self) -> int:
        """Actions applied since the batch was made."""
        return int(self._b.steps)

    @property
    def episodes(self) -> int:
        """Games finished since the batch was made."""
        return int(self._b.episodes)
