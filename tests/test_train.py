"""Training the network (lordsofwar.train): a tiny self-play run, a tiny network fitted to it
whose training loss falls, a run stopped and resumed that ends where an unbroken one does, and the
exported file read with NumPy alone and played in a game; the command's sub-steps."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lordsofwar import core
from lordsofwar.bots import make_bot
from lordsofwar.bots.play import play_game
from lordsofwar.bots.policy import Policy, PolicyBot
from lordsofwar.cli import cli
from lordsofwar.train.selfplay import generate, iter_shards

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="self-play searches on the core")
torch = pytest.importorskip("torch")

from lordsofwar.train.fit import Batches, FitConfig, export, fit, load_checkpoint, load_data, losses  # noqa: E402
from lordsofwar.train.model import Network  # noqa: E402


def tiny(steps: int) -> FitConfig:
    return FitConfig(
        steps=steps, batch=32, lr=3e-3, trunk=(32,), value_hidden=(8,), holdout=3, eval_every=50, checkpoint_every=100
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("selfplay")
    assert generate(out, 3, seed=1, iterations=30, shard_games=2) > 100
    return out


def test_self_play_shards_hold_consistent_decisions(data: Path) -> None:
    shards = list(iter_shards(data))
    assert len(shards) == 2 and shards[1]["games"].tolist() == [2]
    for s in shards:
        n = len(s["value"])
        assert s["planes"].shape == (n, 38, 6, 7) and s["info"].shape == (n, 264)
        assert s["visit_ptr"][-1] == len(s["visits"]) and s["legal_ptr"][-1] == len(s["legal_ids"])
        assert set(np.unique(s["result"])) <= {-1.0, 0.0, 1.0} and np.all(np.abs(s["value"]) <= 1)
        for i in range(n):
            legal = set(s["legal_ids"][s["legal_ptr"][i] : s["legal_ptr"][i + 1]].tolist())
            visited = s["visit_ids"][s["visit_ptr"][i] : s["visit_ptr"][i + 1]].tolist()
            assert len(legal) > 1 and visited and set(visited) <= legal
        for g in np.unique(s["game"]):  # one result per game and decider, opposite for the two sides
            rows = s["game"] == g
            by_player = {int(p): set(s["result"][rows & (s["player"] == p)].tolist()) for p in (1, 2)}
            assert all(len(r) == 1 for r in by_player.values())
            assert by_player[1].pop() == -by_player[2].pop()


def test_a_generated_run_continues_and_refuses_other_settings(data: Path, tmp_path: Path) -> None:
    assert generate(data, 3, seed=1, iterations=30, shard_games=2) == 0  # nothing left to play
    more = tmp_path / "more"
    shutil.copytree(data, more)
    assert generate(more, 4, seed=1, iterations=30, shard_games=2) > 0  # game 3, in a shard of its own
    assert [s["games"].tolist() for s in iter_shards(more)] == [[0, 1], [2], [3]]
    with pytest.raises(ValueError, match="use another directory"):
        generate(data, 4, seed=2, iterations=30, shard_games=2)


@pytest.mark.slow  # about 8 s on one busy core
def test_a_tiny_network_learns_resumes_exports_and_plays(data: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    fit([data], tmp_path / "a", tiny(300), say=lambda s: None)
    log = [json.loads(line) for line in (tmp_path / "a" / "log.jsonl").read_text().splitlines()]
    assert [e["step"] for e in log] == [50, 100, 150, 200, 250, 300]
    assert log[-1]["policy"] < log[0]["policy"] and log[-1]["value"] < log[0]["value"], log
    # The training loss falls by a real margin: its excess over the targets' own entropy (the
    # least a cross entropy can be) is less than half the untrained network's.
    d = load_data([data])
    rows = np.flatnonzero(d.game % 3 != 0)
    x, legal, target, z = Batches(d, 0.5).get(rows)
    entropy = float(-(target * torch.log(target.clamp(min=1e-12))).sum(dim=1).mean())
    torch.manual_seed(0)
    with torch.no_grad():
        before = float(losses(Network(trunk=(32,), value_hidden=(8,)), x, legal, target, z)[0])
        after = float(losses(load_checkpoint(tmp_path / "a")[0], x, legal, target, z)[0])
    assert after - entropy < 0.5 * (before - entropy), (before, after, entropy)

    fit([data], tmp_path / "b", tiny(200), say=lambda s: None)  # stopped at 200 (checkpoint at 200)...
    with pytest.raises(FileExistsError):
        fit([data], tmp_path / "b", tiny(300), say=lambda s: None)
    fit([], tmp_path / "b", tiny(300), resume=True, say=lambda s: None)  # ... and resumed to 300
    a, _ = load_checkpoint(tmp_path / "a")
    b, facts = load_checkpoint(tmp_path / "b")
    assert facts["steps"] == 300
    for (name, pa), pb in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        assert torch.allclose(pa, pb, atol=1e-6), name

    export(a, tmp_path / "net.npz", {"steps": 300})
    net = Policy(tmp_path / "net.npz")  # NumPy alone
    assert net.version == 3 and net.value_from == 0 and net.meta["training"] == {"steps": 300}
    obs = np.random.default_rng(0).random((5, net.observation_size)).astype(np.float32)
    with torch.no_grad():
        logits, v = a(torch.from_numpy(obs))
    np.testing.assert_allclose(net.logits(obs), logits.numpy(), atol=1e-4)
    np.testing.assert_allclose(net.value(obs), np.tanh(v.numpy()), atol=1e-5)
    bot = PolicyBot(net, 1, temperature=0)
    out = play_game({1: bot, 2: make_bot("random", 2)}, seed=3)  # play_game refuses an illegal action
    assert len(out.actions) > 10


def test_the_command_exports_a_run_and_names_the_extra_without_torch(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["train", "export", "--run", str(tmp_path / "none"), "--out", str(tmp_path / "n.npz")])
    assert done.exit_code == 2 and "no checkpoint" in done.output
    fit([data], tmp_path / "run", tiny(20), say=lambda s: None)
    done = runner.invoke(cli, ["train", "export", "--run", str(tmp_path / "run"), "--out", str(tmp_path / "n.npz")])
    assert done.exit_code == 0, done.output
    assert Policy(tmp_path / "n.npz").meta["training"]["steps"] == 20
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    done = runner.invoke(cli, ["train", "fit", "--data", str(data), "--run", str(tmp_path / "r2")])
    assert done.exit_code == 2 and "pip install 'lordsofwar[train]'" in done.output
    assert not (tmp_path / "r2").exists()
