"""Many games at once: a Gymnasium vector environment over the core's batch (docs/rl.md).

``LordsOfWarVectorEnv(num_envs, opponent="self" | "random" | "greedy" | a search level | "policy:FILE", ...)``
steps ``num_envs`` games in the compiled core with one call, without a Python object per game,
into NumPy arrays: ``{"observation": float32 (num_envs, size), "action_mask": int8 (num_envs,
num_actions)}``, each game's observation for its decider and from the decider's side of the mat.

Every step's (and reset's) ``infos["action_mask"]`` is the observation's mask (int8, the same
array), and :meth:`LordsOfWarVectorEnv.action_masks` gives the legal ids as bools, for masking
libraries (sb3-contrib's ``MaskablePPO``).

- ``opponent="self"``: the caller's policy plays both seats (self-play). ``infos["to_play"]``
  says who decides in each game; a step's reward is that of the player who just acted, and
  ``infos["rewards"]`` holds both players' (num_envs, 2).
- any other opponent: the caller plays seat ``seat`` (default: 1 in even-numbered games, 2 in
  odd ones; ``env.seats``) and the opponent the other, inside :meth:`step`; every observation is
  a decision of the caller's seat, and the reward is the caller's. ``"random"`` (a uniformly
  random player), ``"greedy"`` (the greedy bot, ``lordsofwar.bots.greedy``) and the search levels
  (``"recruit"``, ``"veteran"``, ``"elite"``, ``"general"``, ``"marshal"``: each searching from its
  own view and what it has seen, its iteration cap ending every search; standard army decks only)
  play inside the core's batch, in C++; ``"policy:FILE"`` (a trained policy, ``lordsofwar.bots.policy``) and an
  :class:`Opponent` object (such as :class:`lordsofwar.rl.selfplay.SelfPlayPool`) play every
  waiting game at once with one batched NumPy inference per round.

A finished game is dealt again in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``): its
row then shows the new game's first observation, and, as Gymnasium's own vector environments
give them, ``infos["final_obs"]`` (an object array: the finished game's last observation, of
the side whose reward the step gives, with an all-zero mask; None in the other rows) and
``infos["final_info"]`` (``winner``: 1, 2 or 0 for a draw; ``termination``: the result's code,
``lordsofwar.rules.result.Termination``, "" for a game cut short; ``reason``: its sentence),
each with its ``_``-prefixed mask of the rows it holds.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from lordsofwar import core
from lordsofwar.core.batching import OPPONENTS, SKIP
from lordsofwar.core.observation import HAND_FEATURES, INFO
from lordsofwar.rl.config import Config, flat_observations, normalise, spaces_of
from lordsofwar.rules.errors import IllegalActionError
from lordsofwar.rules.position import Result

LOST = 2 * 6 * HAND_FEATURES + 4
"""Where ``info`` holds the decider's lost units (the opponent's follow)."""


@runtime_checkable
class Opponent(Protocol):
    """An opponent the vector environment plays in Python, every waiting game at once."""

    def check(self, config: Config) -> None:
        """Refuse (``ValueError``, saying why) an environment it cannot play."""

    def begin(self, games: np.ndarray) -> None:
        """New games start in these slots (indices)."""

    def act(self, games: np.ndarray, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal id for each of ``games``, whose opponent decides: ``observation`` holds
        their unscaled observation vectors (:func:`lordsofwar.rl.config.raw_observation`, one row
        per game), ``mask`` their legal ids."""
        ...

    def end(self, games: np.ndarray, results: np.ndarray) -> None:
        """The games in these slots ended; ``results`` from the learner's side: 1 won, 0.5 drawn
        (or cut short), 0 lost."""


@lru_cache(maxsize=1024)
def _reason(result: Result) -> str:
    """``result.reason``, made once per kind of ending (a Result is frozen)."""
    return result.reason


def policy_input(policy: Any, raw: np.ndarray) -> np.ndarray:
    """The input of ``policy`` (a :class:`lordsofwar.bots.policy.Policy`) for a batch of
    unscaled observation vectors: ``log1p`` of them for a version 1 file, else scaled to [0, 1]."""
    if policy.version == 1:
        out: np.ndarray = np.log1p(np.maximum(raw, 0))
        return out
    return normalise(raw.copy(), raw.shape[-1] - INFO)


def sample_masked(
    logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator, temperature: float = 1.0
) -> np.ndarray:
    """One id per row drawn from the softmax of ``logits / temperature`` over the legal ids of
    ``mask`` (the Gumbel-max draw); ``temperature`` 0 takes the most likely legal id."""
    z = np.where(mask.astype(bool), logits.astype(np.float64), -np.inf)
    if temperature > 0:
        z = z / temperature + rng.gumbel(size=z.shape)
    ids: np.ndarray = z.argmax(axis=1).astype(np.int32)
    return ids


class PolicyOpponent:
    """A trained policy (``policy:FILE``, :mod:`lordsofwar.bots.policy`) as the opponent of every
    game, drawing its ids as :class:`~lordsofwar.bots.policy.PolicyBot` does, from its own seeded
    generator."""

    def __init__(self, path: str, seed: int | None = None, temperature: float = 1.0):
        from lordsofwar.bots.policy import Policy

        self.policy = Policy(path)
        self.name = f"policy:{path}"
        self.rng = np.random.default_rng(seed)
        self.temperature = temperature

    def check(self, config: Config) -> None:
        check_policy(self.policy, config, self.name)

    def begin(self, games: np.ndarray) -> None:
        pass

    def act(self, games: np.ndarray, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.policy.logits(policy_input(self.policy, observation))
        return sample_masked(logits, mask, self.rng, self.temperature)

    def end(self, games: np.ndarray, results: np.ndarray) -> None:
        pass


def check_policy(policy: Any, config: Config, name: str) -> None:
    """Refuse (``ValueError``) a policy trained for another mat or frame than ``config``'s."""
    frame_differs = config.mat == "unbordered" and policy.frame != config.frame
    if policy.mat != config.mat or frame_differs:
        raise ValueError(
            f"opponent {name!r} was trained for the {policy.mat} mat (frame {policy.frame[0]} x "
            f"{policy.frame[1]}), not this environment's {config.mat} mat"
            + (f" (frame {config.frame[0]} x {config.frame[1]})" if frame_differs else "")
        )


class LordsOfWarVectorEnv(VectorEnv):
    """See the module text; ``**options`` are those of :class:`lordsofwar.rl.config.Config`."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 64,
        opponent: str | Opponent = "self",
        seat: int | None = None,
        copy: bool = True,
        **options: Any,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs: at least 1, got {num_envs!r}")
        if seat not in (None, 1, 2):
            raise ValueError(f"seat {seat!r}: 1, 2 or None (1 in even-numbered games, 2 in odd ones)")
        self.config = Config.of(**options)
        self._python_opponent: Opponent | None = None
        if isinstance(opponent, str) and opponent.startswith("policy:"):
            self._python_opponent = PolicyOpponent(opponent.removeprefix("policy:"))
        elif isinstance(opponent, Opponent) and not isinstance(opponent, str):
            self._python_opponent = opponent
        elif opponent != "self" and opponent not in OPPONENTS:
            raise ValueError(
                f"opponent {opponent!r}: 'self', {', '.join(map(repr, OPPONENTS))}, 'policy:FILE' or an Opponent"
            )
        if self._python_opponent is not None:
            self._python_opponent.check(self.config)
        self.num_envs = num_envs
        self.opponent = opponent
        self.copy = copy
        self.single_observation_space, self.single_action_space = spaces_of(self.config)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.spaces.MultiDiscrete(np.full(num_envs, self.config.num_actions))
        self.render_mode = None
        self.seats = (
            np.full(num_envs, seat, np.int8) if seat is not None else (1 + np.arange(num_envs) % 2).astype(np.int8)
        )
        self.batch: Any = None
        self._obs = np.zeros((num_envs, self.config.observation_size), np.float32)
        self._mask = np.zeros((num_envs, self.config.num_actions), np.int8)
        self._reward = np.zeros(num_envs, np.float32)
        self._both = np.zeros((num_envs, 2), np.float32)
        self._done = np.zeros(num_envs, bool)
        self._truncated = np.zeros(num_envs, bool)

    # --- the batch ------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if seed is None:
            seed = int(np.random.default_rng().integers(2**62))
        decks = self.config.deck_list()
        in_core = isinstance(self.opponent, str) and self.opponent in OPPONENTS
        self.batch = core.Batch(
            self.num_envs,
            seed=seed,
            variant=self.config.variant,
            decks=decks,
            cards=self.config.cards,
            frame=self.config.frame,
            opponent=str(self.opponent) if in_core else None,
            seats=self.seats.tolist(),
        )
        self._steps = 0
        self._reward[:] = 0
        self._both[:] = 0
        self._done[:] = False
        self._truncated[:] = False
        if self._python_opponent is not None:
            if isinstance(self._python_opponent, PolicyOpponent):
                self._python_opponent.rng = np.random.default_rng(seed)
            self._python_opponent.begin(np.arange(self.num_envs))
            self._opponent_plays()
        if self.config.shaped_reward:
            self._lost = self._lost_now()
        obs = self._observation()
        return obs, {**self._infos(), "action_mask": obs["action_mask"]}

    def _lost_now(self) -> np.ndarray:
        """(num_envs, 2): the units players 1 and 2 have lost, read from the observations."""
        info, to_play = self.batch.info, self.batch.to_play
        own, other = info[:, LOST], info[:, LOST + 1]
        return np.stack([np.where(to_play == 1, own, other), np.where(to_play == 1, other, own)], axis=1)

    def _shaping(self, side: np.ndarray) -> np.ndarray:
        """The shaped reward of ``side`` (1 or 2 per game) since the last observation: the weight
        times (units the opponent lost - units ``side`` lost); 0 where a game ended (the new
        game's counts start again)."""
        now = self._lost_now()
        delta = now - self._lost
        self._lost = now
        gain = np.where(side == 1, delta[:, 1] - delta[:, 0], delta[:, 0] - delta[:, 1])
        return np.where(self._done, 0.0, self.config.shaped_reward * gain).astype(np.float32)

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        batch = self.batch
        if batch is None:
            raise RuntimeError("call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(f"actions: {self.num_envs} integer ids, got an array of {acts.shape} {acts.dtype}")
        movers = batch.to_play.copy()
        batch.step(acts)  # every id checked first: an illegal one raises and changes nothing
        self._steps += 1
        np.copyto(self._both, batch.rewards)
        np.copyto(self._done, batch.done.astype(bool))
        np.copyto(self._truncated, batch.truncated.astype(bool))
        if self.opponent == "self":
            self._reward[:] = np.where(movers == 1, batch.rewards[:, 0], batch.rewards[:, 1])
            side = movers
        else:
            self._reward[:] = np.where(self.seats == 1, batch.rewards[:, 0], batch.rewards[:, 1])
            if self._python_opponent is not None:
                self._games_ended(self._done, self._reward)
                self._opponent_plays()
            side = self.seats
        if self.config.shaped_reward:
            self._reward += self._shaping(side)
        terminated = self._done & ~self._truncated
        obs = self._observation()
        reward = self._reward.copy() if self.copy else self._reward
        infos = self._infos()
        infos["action_mask"] = obs["action_mask"]
        if self._done.any():
            self._add_finals(infos, side)
        return obs, reward, terminated, self._truncated.copy(), infos

    def _games_ended(self, ended: np.ndarray, reward: np.ndarray) -> None:
        """Tell the Python opponent which games ``ended`` (their learner's ``reward``) and began."""
        rows = np.flatnonzero(ended)
        if rows.size and self._python_opponent is not None:
            self._python_opponent.end(rows, (np.sign(reward[rows]) + 1) / 2)
            self._python_opponent.begin(rows)

    def _opponent_plays(self) -> None:
        """The Python opponent's actions, every waiting game at once, until each game waits for
        the caller's seat."""
        batch, opponent = self.batch, self._python_opponent
        assert opponent is not None
        n = self.config.planes_size
        while True:
            rows = np.flatnonzero(batch.to_play != self.seats)
            if not rows.size:
                return
            raw = np.empty((rows.size, self.config.observation_size), np.float32)
            raw[:, :n] = batch.planes[rows].reshape(rows.size, -1)
            raw[:, n:] = batch.info[rows]
            ids = np.asarray(opponent.act(rows, raw, batch.mask[rows]))
            acts = np.full(self.num_envs, SKIP, np.int32)
            acts[rows] = ids
            batch.step(acts)
            mine = np.where(self.seats == 1, batch.rewards[:, 0], batch.rewards[:, 1])
            self._reward += mine
            self._both += batch.rewards
            ended = batch.done.astype(bool)
            self._done |= ended
            self._truncated |= batch.truncated.astype(bool)
            self._games_ended(ended, mine)

    def _observation(self) -> dict[str, np.ndarray]:
        batch = self.batch
        flat_observations(batch.planes, batch.info, self._obs)
        np.copyto(self._mask, batch.mask, casting="unsafe")
        if self.copy:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
        return {"observation": self._obs, "action_mask": self._mask}

    def _add_finals(self, infos: dict[str, Any], side: np.ndarray) -> None:
        """``final_obs`` and ``final_info`` of the games that ended in this step (Gymnasium's
        same-step autoreset): the last observation of ``side`` (1 or 2 per game), the result."""
        n = self.num_envs
        rows = np.flatnonzero(self._done)
        final_obs = np.empty(n, dtype=object)  # None in every row: NumPy fills new object arrays so
        winner = np.zeros(n, np.int64)
        termination = np.empty(n, dtype=object)
        reason = np.empty(n, dtype=object)
        flat = flat_observations(*self.batch.observe_finished(rows, side[rows]))
        masks = np.zeros((rows.size, self.config.num_actions), np.int8)
        for k, i in enumerate(rows.tolist()):
            final_obs[i] = {"observation": flat[k], "action_mask": masks[k]}
            result = self.batch.finished_result(i)
            if result is None:  # cut short: no legal action had an id in the frame
                termination[i], reason[i] = "", "no legal action has an id in the frame"
            else:
                winner[i] = result.winner or 0
                termination[i], reason[i] = result.termination.value, _reason(result)
        mask = self._done.copy()
        infos["final_obs"], infos["_final_obs"] = final_obs, mask
        infos["final_info"] = {
            "winner": winner,
            "_winner": mask.copy(),
            "termination": termination,
            "_termination": mask.copy(),
            "reason": reason,
            "_reason": mask.copy(),
        }
        infos["_final_info"] = mask.copy()

    def _infos(self) -> dict[str, Any]:
        return {"to_play": self.batch.to_play.copy(), "rewards": self._both.copy()}

    def action_masks(self) -> np.ndarray:
        """The legal ids of every game now, ``(num_envs, num_actions)`` bools (sb3-contrib's
        ``MaskablePPO`` asks for it); ``infos["action_mask"]`` is the observation's mask."""
        if self.batch is None:
            raise RuntimeError("call reset() first")
        masks: np.ndarray = self.batch.mask.astype(bool)
        return masks

    def close_extras(self, **kwargs: Any) -> None:
        self.batch = None


def make_vector(num_envs: int = 64, opponent: str = "random", **options: Any) -> LordsOfWarVectorEnv:
    """The vector entry point of ``lordsofwar/LordsOfWar-v0``:
    ``gymnasium.make_vec("lordsofwar/LordsOfWar-v0", num_envs=64, vectorization_mode="vector_entry_point")``
    gives the same game as the single environment against ``random``, ``greedy``, a search level
    or ``policy:FILE``; ``opponent="self"`` gives self-play. A bot the vector environment does
    not play (``python:MODULE:FACTORY``): the single environment, with
    ``vectorization_mode="async"`` or ``"sync"``."""
    if opponent not in ("self", *OPPONENTS) and not (isinstance(opponent, str) and opponent.startswith("policy:")):
        raise ValueError(
            f"opponent {opponent!r}: the vector environment plays 'self', {', '.join(map(repr, OPPONENTS))} or "
            "'policy:FILE'; for another bot use vectorization_mode='async' or 'sync'"
        )
    options.pop("render_mode", None)
    return LordsOfWarVectorEnv(num_envs, opponent=opponent, **options)
