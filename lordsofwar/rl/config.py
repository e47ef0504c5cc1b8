"""What every environment of :mod:`lordsofwar.rl` shares: the options (variant, decks, frame,
reward shaping), the observation vector and its spaces (docs/rl.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from lordsofwar.core.encoding import FRAME, shot_offsets
from lordsofwar.core.observation import INFO, PLANES
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, DECK_SIZE, CardSet
from lordsofwar.rules.position import Variant
from lordsofwar.rules.state import Position

AGENTS = ("player_1", "player_2")
"""The agents' names: ``player_1`` moves first."""

HAND_SLOTS = 6


@dataclass(frozen=True)
class Config:
    """The options of an environment, checked once (each is a keyword of every environment).

    - ``rules``, ``hands``, ``mat``, ``units_to_win``, ``commands_to_win``,
      ``no_progress_turns``: the game's variant (:class:`lordsofwar.rules.position.Variant`);
    - ``armies``: the core armies each side's standard deck is drawn from at every reset
      (default: all six); ``decks``: 36-card decks to draw from instead (custom decks);
    - ``frame``: the unbordered mat's frame of squares (columns, rows), default 21 x 21; the
      bordered mat's is the mat, 7 x 6;
    - ``shaped_reward``: a weight ``w`` (default 0, off): after each action a player also gets
      ``w`` times (the opponent's units lost minus its own) during that action.
    """

    rules: str = "intermediate"
    hands: str = "hidden"
    mat: str = "bordered"
    units_to_win: int = 20
    commands_to_win: int = 4
    no_progress_turns: int = 40
    armies: tuple[str, ...] | None = None
    decks: tuple[tuple[str, ...], ...] | None = None
    frame: tuple[int, int] = FRAME
    shaped_reward: float = 0.0
    cards: CardSet = field(default_factory=lambda: CORE, repr=False, compare=False)

    @classmethod
    def of(cls, **options: Any) -> Config:
        """The options checked; an unknown or malformed one raises ``ValueError`` naming it."""
        known = {f for f in cls.__dataclass_fields__ if f != "cards"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)}; the options are {', '.join(sorted(known))}")
        armies = options.get("armies")
        if armies is not None:
            if isinstance(armies, str):
                armies = (armies,)
            options["armies"] = tuple(armies)
        decks = options.get("decks")
        if decks is not None:
            options["decks"] = tuple(tuple(d) for d in decks)
        if "frame" in options:
            w, h = options["frame"]
            options["frame"] = (int(w), int(h))
        config = cls(**options)
        _variant = config.variant  # reading it checks the variant's values
        for name in config.armies or ():
            if name not in config.cards.armies or len(config.cards.army(name)) != DECK_SIZE:
                raise ValueError(f"armies: {name!r} is not a core army ({', '.join(config.cards.armies)})")
        if config.armies is not None and not config.armies:
            raise ValueError("armies: name at least one army")
        for deck in config.decks or ():
            config.cards.validate_deck(list(deck))
        if config.decks is not None and not config.decks:
            raise ValueError("decks: give at least one deck")
        if config.frame[0] < 7 or config.frame[1] < 6:
            raise ValueError(f"frame: at least 7 x 6 squares, got {config.frame[0]} x {config.frame[1]}")
        if not np.isfinite(config.shaped_reward) or config.shaped_reward < 0:
            raise ValueError(f"shaped_reward: a weight of 0 or more, got {config.shaped_reward!r}")
        return config

    @property
    def variant(self) -> Variant:
        return notation.parse_variant(
            {
                "rules": self.rules,
                "hands": self.hands,
                "mat": self.mat,
                "units_to_win": self.units_to_win,
                "commands_to_win": self.commands_to_win,
                "no_progress_turns": self.no_progress_turns,
            }
        )

    @property
    def width(self) -> int:
        return 7 if self.mat == "bordered" else self.frame[0]

    @property
    def height(self) -> int:
        return 6 if self.mat == "bordered" else self.frame[1]

    @property
    def num_actions(self) -> int:
        n = self.width * self.height
        return HAND_SLOTS * n + n * len(shot_offsets(self.cards)) + 17 * n + 2

    @property
    def planes_size(self) -> int:
        return PLANES * self.height * self.width

    @property
    def observation_size(self) -> int:
        return self.planes_size + INFO

    def deck_list(self) -> list[list[str]]:
        """The decks a side's deck is drawn from."""
        if self.decks is not None:
            return [list(d) for d in self.decks]
        return [self.cards.standard_deck(a) for a in (self.armies or self._core_armies())]

    def _core_armies(self) -> tuple[str, ...]:
        return tuple(a for a in self.cards.armies if len(self.cards.army(a)) == DECK_SIZE)

    def deal(self, rng: np.random.Generator) -> tuple[list[list[str]], Position]:
        """Both decks drawn from ``rng`` and the dealt position (its shuffle seeded from ``rng``)."""
        pool = self.deck_list()
        decks = [pool[int(rng.integers(len(pool)))] for _ in (1, 2)]
        seed = int(rng.integers(2**62))
        return decks, notation.deal(decks, seed, self.variant, self.cards)


PLANE_SCALE: tuple[float, ...] = (1, 1, *(6,) * 16, 10, 6, *(1,) * 15, 20, 1, 1)
"""What each plane's value is divided by in the observation (docs/rl.md, "Observations"):
arrow values by 6, defence by 10, ranged damage by 6, the shot damage declared at a unit by 20;
the others are 0 or 1."""

HAND_SCALE: tuple[float, ...] = (1, 10, *(6,) * 8, 6, 12, *(1,) * 7, 8)
"""The same for the 20 numbers of a hand slot: defence by 10, arrow values and ranged damage
by 6, target squares by 12, movement arrows by 8."""

SCALAR_SCALE: tuple[float, ...] = (6, 6, 30, 30, 36, 36, 6, 6, 36, 6, 100, 100, 200, *(1,) * 11)
"""The same for the 24 numbers that follow: hand sizes by 6, deck sizes by 30, units lost and
units to win by 36, command units lost and to win by 6, quiet turns and the no-progress limit
by 100, the turn number by 200; the others are 0 or 1."""


@lru_cache(maxsize=16)
def observation_scale(planes_size: int) -> np.ndarray:
    """``1 / divisor`` for each number of an observation whose planes hold ``planes_size``
    numbers (``PLANES x H x W``): what :func:`flat_observation` multiplies by."""
    per_plane = planes_size // PLANES
    divisor = np.concatenate(
        [
            np.repeat(np.asarray(PLANE_SCALE, np.float32), per_plane),
            np.tile(np.asarray(HAND_SCALE, np.float32), 12),
            np.asarray(SCALAR_SCALE, np.float32),
        ]
    )
    if divisor.size != planes_size + INFO:  # pragma: no cover - the tables above follow the core's layout
        raise AssertionError("the observation scales do not cover the observation")
    scale = (1.0 / divisor).astype(np.float32)
    scale.flags.writeable = False
    return scale


def normalise(observation: np.ndarray, planes_size: int) -> np.ndarray:
    """Scale raw observation vectors (the last axis) in place to [0, 1]: each number divided by
    its divisor (:data:`PLANE_SCALE`, :data:`HAND_SCALE`, :data:`SCALAR_SCALE`) and capped at 1
    (only a turn past 200, a custom card's value past the core's or a no-progress limit past 100
    reach the cap)."""
    # One pass over the whole vector (the planes that are 0 or 1 already are multiplied by 1):
    # faster than visiting only the scaled runs, which are many short strided pieces.
    np.multiply(observation, observation_scale(planes_size), out=observation)
    np.clip(observation, np.float32(0), np.float32(1), out=observation)
    return observation


def raw_observation(planes: np.ndarray, info: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The observation's numbers as the core writes them, unscaled: the planes (PLANES x H x W,
    plane by plane, row by row) as floats, then the INFO floats (what a version 1 policy reads)."""
    n = planes.size
    if out is None:
        out = np.empty(n + INFO, np.float32)
    out[:n] = planes.reshape(-1)
    out[n:] = info
    return out


def flat_observation(planes: np.ndarray, info: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector (docs/rl.md): the planes (PLANES x H x W, plane by plane, row by
    row), then the INFO numbers, each scaled to [0, 1] (:func:`normalise`);
    :func:`split_observation` takes it apart again."""
    return normalise(raw_observation(planes, info, out), planes.size)


def flat_observations(planes: np.ndarray, info: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Many observation vectors at once: row ``k`` of the result (``rows x size``, float32) is
    :func:`flat_observation` of ``planes[k]`` (uint8) and ``info[k]`` (float32), the same numbers
    to the bit; written in one pass by the compiled core where it is built."""
    rows = info.shape[0]
    n = math.prod(planes.shape[1:])
    if out is None:
        out = np.empty((rows, n + INFO), np.float32)
    kernel = _scale_kernel()
    if (
        kernel is not None
        and planes.dtype == np.uint8
        and info.dtype == np.float32
        and out.dtype == np.float32
        and planes.flags.c_contiguous
        and info.flags.c_contiguous
        and out.flags.c_contiguous
    ):
        kernel(planes, info, observation_scale(n), out)
        return out
    out[:, :n] = planes.reshape(rows, n)
    out[:, n:] = info
    return normalise(out, n)


@lru_cache(maxsize=1)
def _scale_kernel() -> Any:
    """The compiled core's one-pass scaling (``_core.scale_observations``), None on the Python engine."""
    from lordsofwar import core

    if core.IMPLEMENTATION != "native":
        return None
    from lordsofwar.core import _core

    return _core.scale_observations


def split_observation(obs: np.ndarray, height: int = 6, width: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """``(planes, info)`` of an observation vector (or a batch of them: the last axis), as views;
    ``height`` and ``width`` are the frame's (the bordered mat: 6 and 7)."""
    n = PLANES * height * width
    if obs.shape[-1] != n + INFO:
        raise ValueError(f"an observation of a {width} x {height} frame has {n + INFO} numbers, not {obs.shape[-1]}")
    return obs[..., :n].reshape(*obs.shape[:-1], PLANES, height, width), obs[..., n:]


def spaces_of(config: Config) -> tuple[Any, Any]:
    """(observation space, action space) of one agent: ``{"observation": float32 vector in
    [0, 1], "action_mask": int8 per action id}`` and ``Discrete(num_actions)``."""
    from gymnasium import spaces

    observation = spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (config.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (config.num_actions,), np.int8),
        }
    )
    return observation, spaces.Discrete(config.num_actions)


def lost_counts(lost: Sequence[Sequence[Any]]) -> tuple[int, int]:
    return len(lost[0]), len(lost[1])
