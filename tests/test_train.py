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
from lordsofwar.bots.features import NUM_FEATURES, features
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
        assert s["greedy"].shape == (len(s["legal_ids"]), 3)  # the greedy bot's numbers of each legal id
        assert np.all(s["greedy"][:, 1] >= -1) and np.all(s["greedy"][:, 1] <= 3)
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


def test_against_the_greedy_bot_only_the_search_s_side_is_recorded(tmp_path: Path) -> None:
    assert generate(tmp_path, 2, seed=7, iterations=30, shard_games=2, opponent="greedy") > 20
    (s,) = iter_shards(tmp_path)
    # The search takes seat 1 in even games and seat 2 in odd ones; the greedy bot's turns are not kept.
    for g, seat in ((0, 1), (1, 2)):
        rows = s["game"] == g
        assert rows.any() and set(s["player"][rows].tolist()) == {seat}
        assert len(set(s["result"][rows].tolist())) == 1
    with pytest.raises(ValueError, match="use another directory"):
        generate(tmp_path, 3, seed=7, iterations=30, shard_games=2)  # the same seed, another opponent
    with pytest.raises(ValueError, match="opponent"):
        generate(tmp_path / "x", 1, opponent="recruit")


def test_a_learner_plays_some_of_the_recorded_decisions_and_the_search_labels_each(tmp_path: Path) -> None:
    from lordsofwar.bots.policy import save_network
    from lordsofwar.train.model import NUM_ACTIONS, OBSERVATION_SIZE

    # A learner that always prefers the highest action id: its moves are easy to tell from the search's.
    w0 = np.zeros((OBSERVATION_SIZE, 1), np.float32)
    bias = (np.arange(NUM_ACTIONS) / 100.0).astype(np.float32)
    policy = [(w0, np.zeros(1, np.float32)), (np.zeros((1, NUM_ACTIONS), np.float32), bias)]
    value = [(np.zeros((1, 1), np.float32), np.zeros(1, np.float32))]
    meta = {"mat": "bordered", "frame": [7, 6], "observation_size": OBSERVATION_SIZE, "num_actions": NUM_ACTIONS}
    save_network(tmp_path / "learner.npz", policy, value, {**meta, "value_from": 0})
    with_learner, without = tmp_path / "a", tmp_path / "b"
    for out, learner in ((with_learner, tmp_path / "learner.npz"), (without, None)):
        generate(out, 2, seed=5, iterations=30, shard_games=2, opponent="greedy", learner=learner, sample_moves=2)
    (a,), (b,) = iter_shards(with_learner), iter_shards(without)
    assert json.loads(bytes(a["meta"]).decode())["teacher_share"] == 0.5
    # The same deals and seeds, but the learner's moves lead the games elsewhere; every decision is labelled.
    assert len(a["value"]) > 10 and a["visit_ptr"][-1] > 0
    n = min(len(a["value"]), len(b["value"]))
    assert not np.array_equal(a["planes"][:n], b["planes"][:n])
    with pytest.raises(ValueError, match="use another directory"):
        generate(with_learner, 3, seed=5, iterations=30, shard_games=2, opponent="greedy", sample_moves=2)
    with pytest.raises(ValueError, match="teacher share"):
        generate(tmp_path / "c", 1, learner=tmp_path / "learner.npz", teacher_share=1.0)


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
    x, legal, target, z, _ = Batches(d, 0.5).get(rows)
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


def tiny_with_head(steps: int) -> FitConfig:
    config = tiny(steps)
    config.action_head = True
    return config


@pytest.mark.slow  # about 6 s on one busy core
def test_a_network_with_an_action_head_learns_exports_and_plays_as_numpy_computes_it(
    data: Path, tmp_path: Path
) -> None:
    torch.set_num_threads(1)
    d = load_data([data])
    assert d.features is not None and d.features.shape == (len(d.legal_ids), NUM_FEATURES)
    first = slice(int(d.legal_ptr[0]), int(d.legal_ptr[1]))
    with np.load(sorted(data.glob("shard-*.npz"))[0]) as shard:
        np.testing.assert_array_equal(d.features[first], features(shard["greedy"][first]))
    fit([data], tmp_path / "h", tiny_with_head(300), say=lambda s: None)
    log = [json.loads(line) for line in (tmp_path / "h" / "log.jsonl").read_text().splitlines()]
    assert log[-1]["policy"] < log[0]["policy"], log
    net, facts = load_checkpoint(tmp_path / "h")
    assert net.features == NUM_FEATURES and facts["config"]["action_head"] is True
    export(net, tmp_path / "scout.npz", {"steps": 300})
    policy = Policy(tmp_path / "scout.npz")
    assert policy.version == 4 and policy.features == NUM_FEATURES and policy.action_from == 0
    # NumPy's logits of one decision's legal actions are the network's, head included.
    batch = Batches(d, 0.5, action_head=True)
    x, legal, _, _, entries = batch.get(np.array([0]))
    assert entries is not None
    with torch.no_grad():
        logits, _ = net(x, entries)
    ids = entries[1].numpy()
    np.testing.assert_allclose(
        policy.action_logits(x[0].numpy(), ids, entries[2].numpy()), logits[0, ids].numpy(), atol=1e-4
    )
    with pytest.raises(ValueError, match="action head"):
        net(x)
    bot = PolicyBot(policy, 1, temperature=0)
    out = play_game({1: bot, 2: make_bot("random", 2)}, seed=3)  # play_game refuses an illegal action
    assert len(out.actions) > 10
    plain = tmp_path / "plain"
    plain.mkdir()
    for f in data.glob("shard-*.npz"):  # a version 1 shard has no greedy numbers: an action head is refused
        with np.load(f) as shard:
            arrays = {k: shard[k] for k in shard.files if k != "greedy"}
        np.savez(plain / f.name, **arrays)
    with pytest.raises(ValueError, match="greedy bot's numbers"):
        fit([plain], tmp_path / "p", tiny_with_head(10), say=lambda s: None)
