"""The RL environments' speed (docs/rl.md): steps a second on one core.

- ``single``: one ``lordsofwar.rl.env()`` driven through PettingZoo's AEC API as a learner drives
  it: ``env.last()`` (the observation and the action mask of the agent to act), a uniformly
  random legal action from the mask, ``env.step``; the games' resets are counted in;
- ``vector``: ``LordsOfWarVectorEnv(--envs, opponent="self")``: the observations and masks of
  every game written into NumPy arrays at every step, actions drawn by the batch's own sampler
  (``vector_raw``: the core's batch alone, its uint8 buffers, no float observation);
- ``connect_four_v3`` and ``chess_v6`` from PettingZoo's classic games, driven by the same loop
  as ``single``, for comparison.

``--seconds`` per measurement (default 5), ``--json`` for one object.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench.report import add_platform, show  # noqa: E402
from lordsofwar.bots.play import derived_seed  # noqa: E402


def aec_steps(make: Callable[[], Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Steps a second through the AEC API with the observation and mask read at every step."""
    env = make()
    rng = np.random.default_rng(derived_seed(seed, "bot"))  # the choices: a stream apart from the deals'
    steps = games = 0
    env.reset(seed=seed)
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
            del agent
        games += 1
        if time.perf_counter() >= deadline:
            break
        env.reset(seed=seed + games)
    elapsed = time.perf_counter() - start
    return {"steps_per_s": steps / elapsed, "steps": steps, "games": games, "steps_per_game": steps / games}


def vector_steps(envs: int, seconds: float, raw: bool = False) -> dict[str, float]:
    from lordsofwar import core
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    if raw:
        batch = core.Batch(envs, seed=1)
        step, sample = batch.step, batch.sample
    else:
        env = LordsOfWarVectorEnv(envs, opponent="self", copy=False)
        env.reset(seed=1)
        batch = env.batch
        sample = batch.sample

        def step(actions: np.ndarray) -> Any:
            return env.step(actions)

    calls = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        step(sample())
        calls += 1
    elapsed = time.perf_counter() - start
    return {"steps_per_s": calls * envs / elapsed, "steps": calls * envs, "envs": envs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--envs", type=int, default=256, help="games in the vector environment")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    import lordsofwar.rl as rl
    from lordsofwar import core

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pettingzoo.classic import chess_v6, connect_four_v3

    figures: dict[str, Any] = {"core": core.IMPLEMENTATION}
    single = aec_steps(rl.env, args.seconds)
    figures["single_steps_per_s"] = round(single["steps_per_s"])
    figures["single_steps_per_game"] = round(single["steps_per_game"], 1)
    vector = vector_steps(args.envs, args.seconds)
    figures["vector_envs"] = args.envs
    figures["vector_steps_per_s"] = round(vector["steps_per_s"])
    figures["vector_raw_steps_per_s"] = round(vector_steps(args.envs, args.seconds, raw=True)["steps_per_s"])
    figures["connect_four_v3_steps_per_s"] = round(aec_steps(connect_four_v3.env, args.seconds)["steps_per_s"])
    figures["chess_v6_steps_per_s"] = round(aec_steps(chess_v6.env, args.seconds)["steps_per_s"])
    figures["cpu_cores"] = 1
    add_platform(figures)
    show(figures, "RL environments: steps a second on one core", args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
