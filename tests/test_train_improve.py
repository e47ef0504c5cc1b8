"""``lordsofwar train improve``: a network with an action head improved by PPO against a bot the
core's batch plays (lordsofwar/train/improve.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from lordsofwar import core
from lordsofwar.bots.features import features, raw_scores
from lordsofwar.bots.play import play_game
from lordsofwar.bots.policy import SCOUT, Policy, ScoutBot
from lordsofwar.bots.random_bot import RandomBot
from lordsofwar.cli import cli

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the batch's opponents play on the core")
torch = pytest.importorskip("torch")

from lordsofwar.train.improve import (  # noqa: E402
    ImproveConfig,
    decision_inputs,
    evaluate,
    legal_logits,
    network_from_file,
    ppo_losses,
    rollout,
    segment_log_softmax,
    update,
)


def test_the_pytorch_network_is_the_files() -> None:
    """The network made from scout's file gives the logits NumPy gives (``Policy.action_logits``)
    for every legal action of 16 games, from the batch's inputs."""
    policy = Policy(SCOUT)
    net = network_from_file(policy)
    batch: Any = core.Batch(16, seed=3, opponent="greedy")
    for _ in range(5):
        x, rows, ids, feats, ptr = decision_inputs(batch)
        with torch.no_grad():
            lg, _ = legal_logits(
                net, torch.from_numpy(x), torch.from_numpy(rows), torch.from_numpy(ids), torch.from_numpy(feats)
            )
        for b in range(batch.size):
            game = batch.game(b)
            planes, info = game.observation()
            want_ids, raw = raw_scores(game)
            lo, hi = int(ptr[b]), int(ptr[b + 1])
            assert np.array_equal(ids[lo:hi], want_ids)
            want = policy.action_logits(policy.observe(planes, info), want_ids, features(raw))
            np.testing.assert_allclose(lg.numpy()[lo:hi], want, rtol=1e-4, atol=1e-4)
        batch.step(batch.sample())


def test_an_evaluation_plays_exactly_its_games_half_in_each_seat() -> None:
    """Against the random player, scout's network wins nearly all; the score is a count of
    ``games`` results (wins and half draws), whatever the number of games or slots."""
    net = network_from_file(Policy(SCOUT))
    for games in (7, 10):
        score = evaluate(net, "random", games, seed=4)
        results = 2 * score * games  # wins count 2, draws 1
        assert abs(results - round(results)) < 1e-9 and score >= 0.7, (games, score)


def test_segment_log_softmax_is_each_rows() -> None:
    values = torch.tensor([0.5, -1.0, 2.0, 3.0, 3.0, -7.0])
    rows = torch.tensor([0, 0, 1, 2, 2, 2])
    got = segment_log_softmax(values, rows, 3)
    for r in range(3):
        sel = rows == r
        torch.testing.assert_close(got[sel], torch.log_softmax(values[sel], dim=0))


def test_an_update_lowers_the_ppo_loss_of_its_rollout() -> None:
    """On the decisions of one rollout, a pass of updates lowers the clipped PPO loss and the value
    loss (the objective it descends), from the start, where every ratio is 1."""
    torch.manual_seed(0)
    config = ImproveConfig(network=str(SCOUT), games=16, steps=12, epochs=3, minibatch=64, lr=3e-4, entropy=0.0)
    net = network_from_file(Policy(SCOUT))
    batch: Any = core.Batch(config.games, seed=5, opponent="greedy")
    data = rollout(net, batch, config, np.random.default_rng(1))
    rows = np.arange(len(data.played))
    assert len(rows) == config.games * config.steps and data.ids.shape[0] == data.feats.shape[0]
    with torch.no_grad():
        before = [float(t) for t in ppo_losses(net, data, rows, config)]
    assert abs(before[0] - float(-data.advantage.mean())) < 1e-4  # ratio 1: the loss is -mean(advantage)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    update(net, opt, data, config, seed=2)
    with torch.no_grad():
        after = [float(t) for t in ppo_losses(net, data, rows, config)]
    assert after[0] < before[0] - 1e-3, (before, after)
    assert after[1] < before[1], (before, after)


def test_the_command_improves_resumes_and_writes_a_network_scout_plays(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    out = tmp_path / "better.npz"
    small = ["--games", "8", "--steps", "6", "--eval-every", "1", "--eval-games", "8", "--snapshot-every", "1"]
    small += ["--run", str(run_dir)]
    runner = CliRunner()
    done = runner.invoke(cli, ["train", "improve", *small, "--iterations", "1", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "iteration 1:" in done.output and "best score" in done.output
    first = torch.load(run_dir / "checkpoint.pt", weights_only=False)
    assert first["iteration"] == 1 and len(first["curve"]) == 2
    plot = tmp_path / "curve.png"
    done = runner.invoke(cli, ["train", "improve", *small, "--iterations", "2", "--plot", str(plot), "--lr", "0.5"])
    assert done.exit_code == 0, done.output
    assert "with its own settings (not the lr given)" in done.output
    assert "iteration 2:" in done.output and "iteration 1:" not in done.output
    again = torch.load(run_dir / "checkpoint.pt", weights_only=False)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert again["iteration"] == 2 and again["curve"][:2] == first["curve"] and again["seconds"] >= first["seconds"]
    assert Policy(run_dir / "last.npz").meta["training"]["improved"]["iteration"] == 2
    policy = Policy(out)
    assert policy.version == 4 and policy.meta["training"]["improved"]["opponent"] == "greedy"
    outcome = play_game({1: ScoutBot(0, network=policy), 2: RandomBot(0)}, 4)
    assert outcome.winner in (1, 2, None) and outcome.actions
    bad = runner.invoke(cli, ["train", "improve", "--opponent", "oracle", "--run", str(tmp_path / "x")])
    assert bad.exit_code != 0 and "opponent 'oracle'" in bad.output
    snapshots = sorted((run_dir / "snapshots").glob("it-*.npz"))
    assert [p.name for p in snapshots] == ["it-00001.npz", "it-00002.npz"]
    averaged = tmp_path / "mean.npz"
    done = runner.invoke(cli, ["train", "average", *map(str, snapshots), "--out", str(averaged)])
    assert done.exit_code == 0, done.output
    mean, one, two = Policy(averaged), Policy(snapshots[0]), Policy(snapshots[1])
    for chain in ("layers", "value_layers", "action_layers"):
        for (w, b), (w1, b1), (w2, b2) in zip(
            getattr(mean, chain), getattr(one, chain), getattr(two, chain), strict=True
        ):
            np.testing.assert_allclose(w, (w1 + w2) / 2, rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(b, (b1 + b2) / 2, rtol=1e-6, atol=1e-7)
    assert [a["iteration"] for a in mean.meta["training"]["averaged"]] == [1, 2]
    bad = runner.invoke(
        cli, ["train", "average", str(snapshots[0]), str(SCOUT.parent / "net.npz"), "--out", str(averaged)]
    )
    assert bad.exit_code != 0 and "not the shape" in bad.output
