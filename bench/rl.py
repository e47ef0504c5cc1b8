"""The RL environments' speed (docs/rl.md): steps a second on one core.

- ``single``: one ``lordsofwar.rl.env()`` driven through PettingZoo's AEC API as a learner drives
  it: ``env.last()`` (the observation and the action mask of the agent to act), a uniformly
  random legal action from the mask, ``env.step``; the games' resets are counted in;
- ``vector``: ``LordsOfWarVectorEnv(--envs, opponent="self")``: the observations and masks of
  every game written into NumPy arrays at every step, actions drawn by the batch's own sampler
  (``vector_raw``: the core's batch alone, its uint8 buffers, no float observation);
- ``vector_random``, ``vector_greedy``, ``vector_recruit``: the same against the core's ``random``
  and ``greedy`` opponents and the ``recruit`` search level (played inside the batch): the
  learner's steps a second, its actions uniformly random legal ids from the batch's sampler;
- ``gym_random``, ``gym_greedy``, ``gym_recruit``: one Gymnasium environment
  (``lordsofwar/LordsOfWar-v0``) against those bots (``recruit`` is the Python search bot there,
  given its view at every decision), a uniformly random legal id from the mask at every step,
  resets counted in;
- ``connect_four_v3`` and ``chess_v6`` from PettingZoo's classic games, driven by the same loop
  as ``single``, for comparison;
- ``greedy_decision``: microseconds per decision of the compiled greedy bot
  (``Game.greedy_action``, binding included) over the decision points with more than one legal
  action of 12 games between a random player and the greedy bot (those of
  tests/test_core_greedy.py's ``decision_points(12, seed=3)``), the best of repeated passes.

``--seconds`` per measurement (default 5), ``--only NAME ...`` for some of them, ``--json`` for
one object. The process pins itself to one core (``os.sched_setaffinity``, as ``taskset -c 0``);
``--cpu-time`` times by its CPU time instead of the wall clock, for a machine busy with other work.
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

clock = time.perf_counter
"""The clock the measurements read: the wall clock, or with ``--cpu-time`` the process's CPU time."""


def aec_steps(make: Callable[[], Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Steps a second through the AEC API with the observation and mask read at every step."""
    env = make()
    rng = np.random.default_rng(derived_seed(seed, "bot"))  # the choices: a stream apart from the deals'
    steps = games = 0
    env.reset(seed=seed)
    start = clock()
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
        if clock() >= deadline:
            break
        env.reset(seed=seed + games)
    elapsed = clock() - start
    return {"steps_per_s": steps / elapsed, "steps": steps, "games": games, "steps_per_game": steps / games}


def gym_steps(opponent: str, seconds: float, seed: int = 0) -> dict[str, float]:
    """The learner's steps a second in one Gymnasium environment against ``opponent``."""
    import gymnasium

    import lordsofwar.rl as rl

    env = gymnasium.make(rl.ENV_ID, opponent=opponent).unwrapped
    rng = np.random.default_rng(derived_seed(seed, "bot"))
    steps = games = 0
    obs, _ = env.reset(seed=seed)
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        legal = np.flatnonzero(obs["action_mask"])
        obs, _reward, terminated, truncated, _info = env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
        if terminated or truncated:
            games += 1
            obs, _ = env.reset(seed=seed + games)
    elapsed = clock() - start
    return {"steps_per_s": steps / elapsed, "steps": steps, "games": games}


def vector_steps(envs: int, seconds: float, raw: bool = False, opponent: str = "self") -> dict[str, float]:
    from lordsofwar import core
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    if raw:
        batch = core.Batch(envs, seed=1)
        step, sample = batch.step, batch.sample
    else:
        env = LordsOfWarVectorEnv(envs, opponent=opponent, copy=False)
        env.reset(seed=1)
        batch = env.batch
        sample = batch.sample

        def step(actions: np.ndarray) -> Any:
            return env.step(actions)

    calls = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        step(sample())
        calls += 1
    elapsed = clock() - start
    return {"steps_per_s": calls * envs / elapsed, "steps": calls * envs, "envs": envs}


def greedy_decisions(seconds: float, games: int = 12, seed: int = 3) -> dict[str, float]:
    """Microseconds per ``greedy_action`` over the decision points of ``games`` games between a
    uniformly random player and the greedy bot (seats alternating), the best pass of those that
    fit in ``seconds``."""
    import random

    from lordsofwar import core
    from lordsofwar.rules.cards import CORE, DECK_SIZE

    armies = [a for a in CORE.armies if len(CORE.army(a)) == DECK_SIZE]
    rng = random.Random(seed)
    points = []
    for i in range(games):
        decks = [CORE.standard_deck(rng.choice(armies)) for _ in range(2)]
        game = core.Game.deal(decks, rng.randrange(2**31))
        while not game.is_over:
            legal = game.legal()
            if len(legal) > 1:
                points.append(game.clone())
            if game.decider == 1 + i % 2:
                game.apply(game.greedy_action(rng.randrange(2**32)))
            else:
                game.apply(rng.choice(legal))
    best = float("inf")
    deadline = clock() + seconds
    while best == float("inf") or clock() < deadline:
        start = clock()
        for n, point in enumerate(points):
            point.greedy_action(n)
        best = min(best, clock() - start)
    return {"us_per_decision": best / len(points) * 1e6, "decisions": len(points)}


MEASUREMENTS = (
    "single",
    "vector",
    "vector_raw",
    "vector_random",
    "vector_greedy",
    "vector_recruit",
    "gym_random",
    "gym_greedy",
    "gym_recruit",
    "connect_four_v3",
    "chess_v6",
    "greedy_decision",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--envs", type=int, default=256, help="games in the vector environment")
    parser.add_argument("--only", nargs="+", choices=MEASUREMENTS, help="these measurements only")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time by the process's CPU time, not the wall clock (on a busy machine: about what an idle core gives)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    global clock
    if args.cpu_time:
        clock = time.process_time
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    wanted = set(args.only or MEASUREMENTS)

    import lordsofwar.rl as rl
    from lordsofwar import core

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pettingzoo.classic import chess_v6, connect_four_v3

    figures: dict[str, Any] = {"core": core.IMPLEMENTATION}
    if "single" in wanted:
        single = aec_steps(rl.env, args.seconds)
        figures["single_steps_per_s"] = round(single["steps_per_s"])
        figures["single_steps_per_game"] = round(single["steps_per_game"], 1)
    figures["vector_envs"] = args.envs
    if "vector" in wanted:
        figures["vector_steps_per_s"] = round(vector_steps(args.envs, args.seconds)["steps_per_s"])
    if "vector_raw" in wanted:
        figures["vector_raw_steps_per_s"] = round(vector_steps(args.envs, args.seconds, raw=True)["steps_per_s"])
    for opponent in ("random", "greedy", "recruit"):
        if f"vector_{opponent}" in wanted:
            found = vector_steps(args.envs, args.seconds, opponent=opponent)
            figures[f"vector_{opponent}_steps_per_s"] = round(found["steps_per_s"])
    for opponent in ("random", "greedy", "recruit"):
        if f"gym_{opponent}" in wanted:
            figures[f"gym_{opponent}_steps_per_s"] = round(gym_steps(opponent, args.seconds)["steps_per_s"])
    if "connect_four_v3" in wanted:
        figures["connect_four_v3_steps_per_s"] = round(aec_steps(connect_four_v3.env, args.seconds)["steps_per_s"])
    if "chess_v6" in wanted:
        figures["chess_v6_steps_per_s"] = round(aec_steps(chess_v6.env, args.seconds)["steps_per_s"])
    if "greedy_decision" in wanted:
        found = greedy_decisions(args.seconds)
        figures["greedy_us_per_decision"] = round(found["us_per_decision"], 2)
        figures["greedy_decisions"] = found["decisions"]
    figures["cpu_cores"] = 1
    figures["clock"] = "process CPU time" if args.cpu_time else "wall clock"
    add_platform(figures)
    show(figures, "RL environments: steps a second on one core", args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
