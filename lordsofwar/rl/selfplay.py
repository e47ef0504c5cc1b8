"""Self-play against a pool of past checkpoints (docs/rl.md, "Self-play").

A learner that only ever plays its latest self can chase its own tail: it forgets how to beat
the players it used to be. :class:`SelfPlayPool` keeps the latest checkpoint and a bounded
number of past ones (policy files as :func:`lordsofwar.bots.policy.save_policy` writes them),
draws each episode's opponent (the latest with probability ``latest``, else one of the past
uniformly), and plays it as the opponent of the vector environment
(``LordsOfWarVectorEnv(n, opponent=pool)``): every game waiting for an opponent is answered in one
batched NumPy inference per checkpoint. It keeps each opponent's results from the learner's side,
a small table of games, wins, draws and losses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lordsofwar.bots.policy import Policy
from lordsofwar.rl.config import Config
from lordsofwar.rl.vector import check_policy, policy_input, sample_masked


@dataclass
class Record:
    """The learner's results against one opponent."""

    name: str
    won: int = 0
    drawn: int = 0
    lost: int = 0

    @property
    def games(self) -> int:
        return self.won + self.drawn + self.lost

    @property
    def score(self) -> float:
        """Wins and half the draws, per game (0 before any game)."""
        return (self.won + 0.5 * self.drawn) / self.games if self.games else 0.0


class SelfPlayPool:
    """The latest checkpoint and up to ``capacity - 1`` past ones, as the vector environment's
    opponent (:class:`lordsofwar.rl.vector.Opponent`); see the module text.

    ``latest``: the probability that an episode's opponent is the latest checkpoint (the rest is
    shared evenly among the past ones; with no past one, always the latest). ``temperature``: as
    :class:`~lordsofwar.bots.policy.PolicyBot`'s (0 plays each checkpoint's most likely id).
    """

    def __init__(self, capacity: int = 8, latest: float = 0.5, seed: int | None = None, temperature: float = 1.0):
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity: at least 1 checkpoint, got {capacity!r}")
        if not 0.0 <= latest <= 1.0:
            raise ValueError(f"latest: a probability from 0 to 1, got {latest!r}")
        if not temperature >= 0:
            raise ValueError(f"temperature: 0 or more, got {temperature!r}")
        self.capacity = capacity
        self.latest = latest
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)
        self._pool: list[tuple[str, Policy]] = []  # oldest first; the last is the latest
        self._playing: dict[int, tuple[str, Policy]] = {}  # game slot -> its opponent
        self._records: dict[str, Record] = {}
        self._config: Config | None = None

    # --- the pool ----------------------------------------------------------------------------------

    def add(self, path: str | Path, name: str | None = None) -> str:
        """Make the policy file ``path`` the latest checkpoint (read and checked now: a file that is
        not a policy, or one for another mat than the environment's, raises and changes nothing);
        the oldest past one leaves when the pool is full. Returns its name in the table (``name``,
        default the file's stem, made unique)."""
        policy = Policy(path)
        if self._config is not None:
            check_policy(policy, self._config, str(path))
        base = name or Path(path).stem
        unique, n = base, 1
        while unique in self._records:
            n += 1
            unique = f"{base}#{n}"
        self._pool.append((unique, policy))
        if len(self._pool) > self.capacity:
            del self._pool[0]
        self._records[unique] = Record(unique)
        return unique

    @property
    def names(self) -> list[str]:
        """The checkpoints in the pool, oldest first; the last is the latest."""
        return [name for name, _ in self._pool]

    def draw(self) -> str:
        """An opponent's name: the latest with probability ``latest``, else a past one uniformly."""
        return self._draw()[0]

    def _draw(self) -> tuple[str, Policy]:
        if not self._pool:
            raise RuntimeError("the self-play pool is empty: add a checkpoint first")
        if len(self._pool) == 1 or self.rng.random() < self.latest:
            return self._pool[-1]
        return self._pool[int(self.rng.integers(len(self._pool) - 1))]

    # --- results ---------------------------------------------------------------------------------

    def table(self) -> list[Record]:
        """The learner's results against every opponent it met or may meet, in the order added
        (checkpoints that left the pool keep their row)."""
        return list(self._records.values())

    def format_table(self) -> str:
        """:meth:`table` as text, one opponent a line."""
        lines = [f"{'opponent':<24} {'games':>6} {'won':>6} {'drawn':>6} {'lost':>6} {'score':>6}"]
        for r in self.table():
            lines.append(f"{r.name:<24} {r.games:>6} {r.won:>6} {r.drawn:>6} {r.lost:>6} {r.score:>6.3f}")
        return "\n".join(lines)

    # --- the vector environment's opponent (lordsofwar.rl.vector.Opponent) -------------------------

    def check(self, config: Config) -> None:
        """Refuse (``ValueError``) an environment some checkpoint was not trained for, or an empty pool."""
        if not self._pool:
            raise ValueError("the self-play pool is empty: add a checkpoint first")
        for name, policy in self._pool:
            check_policy(policy, config, name)
        self._config = config

    def begin(self, games: np.ndarray) -> None:
        for g in games:
            self._playing[int(g)] = self._draw()

    def act(self, games: np.ndarray, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        ids = np.empty(len(games), np.int32)
        opponents = [self._playing[int(g)] for g in games]
        for name in dict.fromkeys(n for n, _ in opponents):  # one batched inference per checkpoint
            rows = np.array([i for i, (n, _) in enumerate(opponents) if n == name])
            policy = opponents[rows[0]][1]
            logits = policy.logits(policy_input(policy, observation[rows]))
            ids[rows] = sample_masked(logits, mask[rows], self.rng, self.temperature)
        return ids

    def end(self, games: np.ndarray, results: np.ndarray) -> None:
        for g, result in zip(games, results, strict=True):
            record = self._records[self._playing.pop(int(g))[0]]
            if result > 0.5:
                record.won += 1
            elif result < 0.5:
                record.lost += 1
            else:
                record.drawn += 1

    def __repr__(self) -> str:
        return f"SelfPlayPool({len(self._pool)} of {self.capacity} checkpoints, latest={self.latest})"
