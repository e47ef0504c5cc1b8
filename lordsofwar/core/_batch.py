"""``lordsofwar.core.Batch``: many games stepped at once by the compiled core (docs/core.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import lordsofwar.core._core as _core
from lordsofwar.core._native import Game, _result_from_core, core_variant, greedy_handle, greedy_params, table
from lordsofwar.core.batching import OPPONENT_SEED, OPPONENTS, SEARCH_OPPONENTS, BatchBuffers, with_frame
from lordsofwar.core.encoding import FRAME
from lordsofwar.rules.cards import CardSet
from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.position import Result, Variant


class Batch(BatchBuffers):
    """``size`` games stepped together by the compiled core, with automatic reset; the buffers
    (:class:`~lordsofwar.core.batching.BatchBuffers`) are rewritten in place by :meth:`reset` and
    :meth:`step`, and no Python object is made per game or per step (docs/core.md)."""

    def __init__(
        self,
        size: int,
        seed: int = 0,
        variant: Variant | None = None,
        decks: Sequence[Sequence[str]] | None = None,
        cards: CardSet | None = None,
        frame: tuple[int, int] = FRAME,
        opponent: str | None = None,
        seats: Sequence[int] | None = None,
    ):
        super().__init__(size, variant, decks, cards, frame, opponent, seats)
        self._table = table(self.cards)
        index = self._table.index
        self._b = _core.Batch(
            self._table.core,
            [[index[c] for c in deck] for deck in self.decks],
            core_variant(self.variant),
            size,
            seed & (2**64 - 1),
            self.frame[0],
            self.frame[1],
        )
        if opponent is not None:
            values, fresh, weight, pushes = greedy_params(self.cards, self.variant)
            kind = 1 + OPPONENTS.index(opponent)
            if opponent in SEARCH_OPPONENTS:
                kind = 3
                self._set_search(opponent, values)
            self._b.set_opponent(
                kind, self.seats.tolist(), values, fresh, weight, pushes, (seed ^ OPPONENT_SEED) & (2**64 - 1)
            )
        self._greedy_cap = 0
        self.allocate(self._b.width, self._b.height, self._b.num_actions)
        self._game_class = with_frame(Game, self.frame)
        self.reset()

    def _set_search(self, name: str, values: list[float]) -> None:
        """The search level ``name`` as the batch's opponent (``lordsofwar.bots.search``)."""
        from lordsofwar.bots.search import LEVELS, core_settings, network_for

        level = LEVELS[name]
        network = network_for(level, self.variant)  # as the search bot: None on the other mat
        self._b.set_search(
            iterations=level.iterations,
            value=values,
            net=network.net if network else None,
            greedy=greedy_handle(self.cards, self.variant) if network else None,
            **core_settings(level),
        )

    def greedy_scores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The greedy bot's judgement of every game's legal actions, for its decider (what
        :func:`lordsofwar.bots.features.raw_scores` gives for one game): ``ids`` (int32), ``raw``
        (float32, (n, 3): score, preference, exposure) and ``ptr`` (int64, size + 1): game ``i``'s
        entries are ``ids[ptr[i]:ptr[i + 1]]``, ids ascending."""
        values, fresh, weight, pushes = greedy_params(self.cards, self.variant)
        cap = max(self._greedy_cap, 64 * self.size)
        ptr = np.zeros(self.size + 1, np.int64)
        while True:
            ids = np.empty(cap, np.int32)
            raw = np.empty((cap, 3), np.float32)
            try:
                n = self._b.greedy_scores(values, fresh, weight, pushes, ids, raw, ptr)
            except ValueError:
                if cap >= self.size * self.num_actions:
                    raise
                cap = min(cap * 2, self.size * self.num_actions)
                continue
            self._greedy_cap = cap
            return ids[:n], raw[:n], ptr

    def opponent_view(self, i: int, seed: int = 0) -> tuple[Game, list[str], list[str], list[str]]:
        """What the search opponent of game ``i`` would search from now (its seat's view, the
        learner's shown hand cards placed, its general placed; src/core/search.hpp), the pools
        that fill the unknown cards of players 1 and 2, and the learner's hand cards it has seen
        (forced deployments, recalls). ``seed`` draws the general when a pool holds several."""
        if self.opponent not in SEARCH_OPPONENTS:
            raise ValueError(f"opponent {self.opponent!r}: only a search opponent searches from a view")
        if not 0 <= i < self.size:
            raise IndexError(f"no game {i} in this batch of {self.size}")
        state, pool1, pool2, shown = self._b.opponent_view(i, seed & (2**64 - 1))
        ids = self._table.ids
        return self._wrap(state), [ids[c] for c in pool1], [ids[c] for c in pool2], [ids[c] for c in shown]

    def reset(self) -> None:
        """Deal every game afresh (the opponent, if any, plays until its learner decides)."""
        self._b.reset(self.planes, self.info, self.mask, self.to_play)
        self.clear_outcomes()

    def step(self, actions: np.ndarray) -> None:
        """Apply ``actions[i]`` (an id) to game ``i``, all checked first: one that is not legal
        raises :class:`IllegalActionError` and nothing changes. ``SKIP`` (-1) leaves game ``i``
        as it is (its rewards, done and truncated read 0)."""
        acts = np.ascontiguousarray(actions, dtype=np.int32)
        bad = self._b.step(
            acts, self.planes, self.info, self.mask, self.to_play, self.rewards, self.done, self.truncated
        )
        if bad >= 0:
            raise IllegalActionError(f"game {bad} of the batch: action id {int(acts[bad])} is not legal there")

    def sample(self) -> np.ndarray:
        """A uniformly random legal id for every game (in ``self.actions``)."""
        self._b.sample(self.mask, self.actions)
        return self.actions

    def game(self, i: int) -> Game:
        """A copy of game ``i`` as a :class:`lordsofwar.core.Game`."""
        return self._wrap(self._b.game(i))

    def finished(self, i: int) -> Game | None:
        """A copy of the last game that ended in slot ``i``, as it ended (its result, its last
        position); None before any did. It stays until game ``i`` ends again."""
        state = self._b.finished(i)
        return None if state is None else self._wrap(state)

    def finished_result(self, i: int) -> Result | None:
        """The result of the last game that ended in slot ``i`` (``finished(i).result`` without
        copying the game); None before any did, or when it was cut short."""
        t = self._b.finished_result(i)
        return None if t is None else _result_from_core(t)

    def observe_finished(
        self, rows: Sequence[int] | np.ndarray, players: Sequence[int] | np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The last observation of the game that ended in each of ``rows`` from ``players``'
        side (1 or 2 per row), in that game's frame: planes ``(len(rows), PLANES, H, W)`` uint8
        and info ``(len(rows), INFO)`` float32, what a decider ``players[k]`` would have been
        given there (Gymnasium's ``final_obs``). A row where no game has ended yet raises."""
        r, p = self._finished_args(rows, players)
        planes, info = self._finished_buffers(r.size)
        self._b.observe_finished(r, p, planes, info)
        return planes, info

    def _wrap(self, state: Any) -> Game:
        # The armies, as notation.deal names them: the standard deck each side's cards make.
        r = state.record()
        ids = self._table.ids
        armies = [""]
        for p, hand, deck, lost in zip((1, 2), r.hands, r.decks, r.lost, strict=True):
            held = [ids[u.card] for u in r.units if u.owner == p]
            held += [ids[c] for c in (*hand, *deck, *lost) if c >= 0]
            armies.append(self._table.cards.standard_army_of(held) or "mercenary")
        return self._game_class(state, self._table, self.variant, armies)

    @property
    def steps(self) -> int:
        """Actions applied since the batch was made (the opponent's included)."""
        return int(self._b.steps)

    @property
    def episodes(self) -> int:
        """Games finished since the batch was made."""
        return int(self._b.episodes)
