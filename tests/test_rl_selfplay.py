"""Self-play against a pool of past checkpoints (lordsofwar/rl/selfplay.py, docs/rl.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from lordsofwar.bots.policy import PolicyError, save_policy  # noqa: E402
from lordsofwar.rl.config import Config  # noqa: E402
from lordsofwar.rl.selfplay import SelfPlayPool  # noqa: E402
from lordsofwar.rl.vector import LordsOfWarVectorEnv  # noqa: E402


def checkpoint(path: Path, seed: int, mat: str = "bordered") -> Path:
    """A small random policy file (one hidden layer of 8) for ``mat``."""
    config = Config.of(mat=mat)
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(0, 0.1, (config.observation_size, 8)), np.zeros(8)),
        (rng.normal(0, 0.1, (8, config.num_actions)), np.zeros(config.num_actions)),
    ]
    meta = {"mat": mat, "frame": list(config.frame), "observation_size": config.observation_size}
    save_policy(path, layers, {**meta, "num_actions": config.num_actions})
    return path


def test_the_pool_keeps_the_latest_and_a_bounded_past(tmp_path: Path) -> None:
    pool = SelfPlayPool(capacity=3, latest=0.5, seed=1)
    with pytest.raises(RuntimeError, match="empty"):
        pool.draw()
    names = [pool.add(checkpoint(tmp_path / f"c{i}.npz", i)) for i in range(5)]
    assert names == ["c0", "c1", "c2", "c3", "c4"] and pool.names == ["c2", "c3", "c4"]
    assert pool.add(tmp_path / "c4.npz") == "c4#2" and pool.names == ["c3", "c4", "c4#2"]
    draws = [pool.draw() for _ in range(3000)]
    assert abs(draws.count("c4#2") / 3000 - 0.5) < 0.04  # the latest with probability 0.5
    assert abs(draws.count("c3") / 3000 - 0.25) < 0.04  # the past shared evenly
    only_latest = SelfPlayPool(capacity=2, latest=1.0, seed=2)
    only_past = SelfPlayPool(capacity=2, latest=0.0, seed=2)
    for pool in (only_latest, only_past):
        pool.add(tmp_path / "c0.npz")
        pool.add(tmp_path / "c1.npz")
    assert {only_latest.draw() for _ in range(50)} == {"c1"} and {only_past.draw() for _ in range(50)} == {"c0"}


def test_a_bad_checkpoint_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    pool = SelfPlayPool(capacity=2)
    pool.add(checkpoint(tmp_path / "good.npz", 0))
    (tmp_path / "bad.npz").write_bytes(b"not a policy")
    with pytest.raises(PolicyError, match="not a NumPy"):
        pool.add(tmp_path / "bad.npz")
    assert pool.names == ["good"] and [r.name for r in pool.table()] == ["good"]
    LordsOfWarVectorEnv(2, opponent=pool)  # the environment's mat is now the pool's to keep
    with pytest.raises(ValueError, match="trained for the unbordered mat"):
        pool.add(checkpoint(tmp_path / "wide.npz", 1, mat="unbordered"))
    assert pool.names == ["good"]
    with pytest.raises(ValueError, match="capacity"):
        SelfPlayPool(capacity=0)
    with pytest.raises(ValueError, match="latest"):
        SelfPlayPool(latest=1.5)
    with pytest.raises(ValueError, match="empty"):
        LordsOfWarVectorEnv(2, opponent=SelfPlayPool())


def test_self_play_against_the_pool_records_every_game(tmp_path: Path) -> None:
    pool = SelfPlayPool(capacity=3, latest=0.5, seed=3)
    for i in range(3):
        pool.add(checkpoint(tmp_path / f"c{i}.npz", i))
    e = LordsOfWarVectorEnv(8, opponent=pool, units_to_win=8, commands_to_win=2)
    obs, infos = e.reset(seed=4)
    rng = np.random.default_rng(4)
    won = drawn = lost = 0
    for step in range(120):
        assert np.array_equal(infos["to_play"], e.seats)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in obs["action_mask"]])
        obs, reward, terminated, truncated, infos = e.step(actions)
        done = terminated | truncated
        won += int((reward[done] > 0).sum())
        lost += int((reward[done] < 0).sum())
        drawn += int((reward[done] == 0).sum())
        if step == 60:
            pool.add(checkpoint(tmp_path / "c3.npz", 3))  # a new checkpoint while games run
    table = {r.name: r for r in pool.table()}
    assert sum(r.games for r in table.values()) == won + drawn + lost >= 10
    assert (sum(r.won for r in table.values()), sum(r.lost for r in table.values())) == (won, lost)
    assert sum(1 for r in table.values() if r.games) >= 2
    assert "c3" in table and pool.names == ["c1", "c2", "c3"]
    text = pool.format_table()
    assert text.splitlines()[0].split() == ["opponent", "games", "won", "drawn", "lost", "score"]
    assert len(text.splitlines()) == 5
