"""The vector environment's opponents (docs/rl.md, "The vector environment"): ``random`` and
``greedy`` inside the core's batch, ``policy:FILE`` and :class:`~lordsofwar.rl.vector.Opponent`
objects in batched NumPy inference; the caller always sees its own seat's decisions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from lordsofwar import core  # noqa: E402
from lordsofwar.rl.vector import LordsOfWarVectorEnv, sample_masked  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[1] / "examples" / "policy.npz"
native = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the vector environment's speed needs the core")


def play(e: LordsOfWarVectorEnv, steps: int, seed: int) -> tuple[list[float], list[dict[str, Any]]]:
    """Random legal actions for ``steps`` steps; the caller's final rewards and the finished
    games' final observations and results, checked on the way."""
    obs, infos = e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards: list[float] = []
    finals: list[dict[str, Any]] = []
    for _ in range(steps):
        assert np.array_equal(infos["to_play"], e.seats)  # always the caller's decision
        legal = obs["action_mask"].astype(bool)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        obs, reward, terminated, truncated, infos = e.step(actions)
        done = terminated | truncated
        rewards += list(reward[done])
        if done.any():
            assert np.array_equal(infos["_final_obs"], done)
            for i in np.flatnonzero(done):
                winner = int(infos["final_info"]["winner"][i])
                want = 0.0 if winner == 0 else (1.0 if winner == e.seats[i] else -1.0)
                assert reward[i] == want and not infos["final_obs"][i]["action_mask"].any()
                finals.append(infos["final_obs"][i])
    return rewards, finals


@native
def test_the_greedy_opponent_plays_inside_the_batch() -> None:
    e = LordsOfWarVectorEnv(8, opponent="greedy", units_to_win=10, commands_to_win=2)
    rewards, finals = play(e, 150, seed=1)
    assert len(rewards) >= 8 and rewards.count(1.0) < 0.2 * len(rewards)  # random play loses to greedy
    assert e.batch.opponent == "greedy" and e.batch.episodes >= len(rewards)


@native
def test_the_opponents_of_the_core_repeat_with_the_seed() -> None:
    for opponent in ("random", "greedy"):
        runs = []
        for _ in range(2):
            e = LordsOfWarVectorEnv(4, opponent=opponent, seat=2)
            obs, _ = e.reset(seed=9)
            for _ in range(30):
                obs, *_rest = e.step(
                    sample_masked(np.zeros(obs["action_mask"].shape), obs["action_mask"], np.random.default_rng(0), 0)
                )
            runs.append(obs["observation"])
        assert np.array_equal(runs[0], runs[1])


def test_a_trained_policy_as_the_vector_opponent(tmp_path: Path) -> None:
    e = LordsOfWarVectorEnv(4, opponent=f"policy:{SHIPPED}", seat=2)
    obs, infos = e.reset(seed=2)
    for b in range(4):  # the policy moved first in every game
        assert any(k.owner == 1 for k in e.batch.game(b).to_position().board.values())
    rewards, _ = play(e, 60, seed=2)
    assert set(rewards) <= {-1.0, 0.0, 1.0}
    with pytest.raises(ValueError, match="trained for the bordered mat"):
        LordsOfWarVectorEnv(2, opponent=f"policy:{SHIPPED}", mat="unbordered")
    with pytest.raises(ValueError, match="'policy:FILE' or an Opponent"):
        LordsOfWarVectorEnv(2, opponent="grandmaster")


def test_sample_masked_draws_only_legal_ids_with_the_softmax() -> None:
    rng = np.random.default_rng(0)
    logits = np.array([[0.0, np.log(3.0), 5.0, 0.0]] * 4000)
    mask = np.array([[1, 1, 0, 0]] * 4000, np.int8)
    ids = sample_masked(logits, mask, rng)
    assert set(ids) == {0, 1} and abs((ids == 1).mean() - 0.75) < 0.03
    assert list(sample_masked(logits[:2], mask[:2], rng, temperature=0)) == [1, 1]
