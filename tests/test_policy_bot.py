"""A trained policy as a bot (lordsofwar.bots.policy, docs/rl.md): read with NumPy alone, legal
in every variant it was trained for, refused with a reason when the file is not a policy; the
worked example (examples/train_policy.py) trains one that the command line can play."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lordsofwar import core
from lordsofwar.bots import make_bot
from lordsofwar.bots.play import play_game
from lordsofwar.bots.policy import PolicyBot, PolicyError, save_policy
from lordsofwar.cli import cli
from lordsofwar.core.observation import INFO, PLANES
from lordsofwar.rules.position import Variant

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the policy bot observes through the core")


def random_policy(path: Path, mat: str = "bordered", hidden: int = 16, seed: int = 0) -> Path:
    w, h = (7, 6) if mat == "bordered" else (21, 21)
    size = PLANES * w * h + INFO
    n = w * h
    actions = 6 * n + n * 18 + 17 * n + 2
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(0, 0.1, (size, hidden)), np.zeros(hidden)),
        (rng.normal(0, 0.1, (hidden, actions)), np.zeros(actions)),
    ]
    save_policy(path, layers, {"mat": mat, "frame": [21, 21], "observation_size": size, "num_actions": actions})
    return path


@pytest.mark.parametrize("variant", [Variant(), Variant(rules="basic", hands="visible", units_to_win=15, commands_to_win=3)])
def test_a_policy_plays_whole_legal_games(tmp_path: Path, variant: Variant) -> None:
    path = random_policy(tmp_path / "p.npz")
    bot = make_bot(f"policy:{path}", 3)
    assert isinstance(bot, PolicyBot)
    out = play_game({1: bot, 2: make_bot("random", 4)}, seed=5, variant=variant)  # play_game checks legality
    assert out.winner in (1, 2, None) and len(out.actions) > 20


def test_an_unbordered_policy(tmp_path: Path) -> None:
    path = random_policy(tmp_path / "u.npz", mat="unbordered", hidden=4)
    out = play_game({1: make_bot("random", 1), 2: make_bot(f"policy:{path}", 2)}, seed=8, variant=Variant(mat="unbordered"))
    assert len(out.actions) > 20
    with pytest.raises(PolicyError, match="unbordered mat"):
        play_game({1: make_bot(f"policy:{path}", 1), 2: make_bot("random", 2)}, seed=8)


def test_the_same_seed_plays_the_same_game(tmp_path: Path) -> None:
    path = random_policy(tmp_path / "p.npz")
    games = [play_game({1: make_bot(f"policy:{path}", 7), 2: make_bot("greedy", 7)}, seed=2).actions for _ in range(2)]
    assert games[0] == games[1]
    greedy_choice = PolicyBot(path, 7, temperature=0)
    assert play_game({1: greedy_choice, 2: make_bot("random", 1)}, seed=3).actions


def test_files_that_are_not_policies_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(PolicyError, match="not a NumPy .npz"):
        make_bot(f"policy:{text}")
    with pytest.raises(PolicyError, match="No such file"):
        make_bot(f"policy:{tmp_path / 'missing.npz'}")
    other = tmp_path / "other.npz"
    np.savez(other, w0=np.zeros((2, 2)), b0=np.zeros(2))
    with pytest.raises(PolicyError, match="meta"):
        make_bot(f"policy:{other}")
    bad = tmp_path / "bad.npz"
    size = PLANES * 42 + INFO
    save_policy(bad, [(np.zeros((size, 8)), np.zeros(8)), (np.zeros((9, 1724)), np.zeros(1724))],
                {"mat": "bordered", "frame": [21, 21], "observation_size": size, "num_actions": 1724})
    with pytest.raises(PolicyError, match="does not follow"):
        make_bot(f"policy:{bad}")
    wrong = tmp_path / "wrong.npz"
    save_policy(wrong, [(np.zeros((10, 4)), np.zeros(4))], {"mat": "bordered", "frame": [21, 21], "observation_size": 10, "num_actions": 4})
    with pytest.raises(PolicyError, match="the bordered mat has 1860 and 1724"):
        make_bot(f"policy:{wrong}")
    shallow = tmp_path / "shallow.npz"
    save_policy(shallow, [(np.zeros((size, 5)), np.zeros(5))],
                {"mat": "bordered", "frame": [21, 21], "observation_size": size, "num_actions": 1724})
    with pytest.raises(PolicyError, match="do not map"):
        make_bot(f"policy:{shallow}")


def test_the_command_line_plays_a_policy(tmp_path: Path) -> None:
    path = random_policy(tmp_path / "p.npz")
    runner = CliRunner()
    result = runner.invoke(cli, ["match", f"policy:{path}", "random", "--games", "2", "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["wins"] + doc["draws"] + doc["losses"] == 2
    bad = runner.invoke(cli, ["match", f"policy:{tmp_path / 'nope.npz'}", "random"])
    assert bad.exit_code == 2 and "nope.npz" in bad.output
    bad = runner.invoke(cli, ["play", "--opponent", "policy:"])
    assert bad.exit_code == 2


def test_the_worked_example_trains_a_policy_the_cli_plays(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("gymnasium")
    out = tmp_path / "trained.npz"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_policy.py"), "--minutes", "0.1", "--envs", "8", "--steps", "8",
         "--hidden", "16", "--threads", "1", "--eval-games", "4", "--workers", "1", "--out", str(out), "--json"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    assert doc["updates"] >= 1 and doc["samples"] == doc["updates"] * 64
    assert [e["opponent"] for e in doc["evaluation"]] == ["random", "greedy"]
    assert all(e["wins"] + e["draws"] + e["losses"] == 4 for e in doc["evaluation"])
    bot = make_bot(f"policy:{out}", 1)
    assert play_game({1: bot, 2: make_bot("random", 2)}, seed=11).actions


def test_the_shipped_version_1_policy_reads_unscaled_numbers_a_new_one_the_scaled_observation(tmp_path: Path) -> None:
    from lordsofwar.bots.policy import Policy
    from lordsofwar.rl.config import flat_observation, raw_observation

    shipped = Policy(ROOT / "examples" / "policy.npz")
    fresh = Policy(random_policy(tmp_path / "p.npz"))
    assert (shipped.version, fresh.version) == (1, 2)
    game = core.Game.deal(_decks(), 3)
    planes, info = game.observation()
    assert np.array_equal(shipped.observe(planes, info), np.log1p(raw_observation(planes, info)))
    assert np.array_equal(fresh.observe(planes, info), flat_observation(planes, info))
    assert raw_observation(planes, info).max() > 1 >= fresh.observe(planes, info).max()
    # the shipped policy still beats random as its figures say (it plays on the unscaled numbers)
    bot = PolicyBot(ROOT / "examples" / "policy.npz", seed=1)
    wins = sum(
        play_game({seat: bot, 3 - seat: make_bot("random", g)}, seed=200 + g).winner == seat
        for g, seat in enumerate((1, 2, 1, 2, 1, 2))
    )
    assert wins >= 4


def _decks() -> list[list[str]]:
    from lordsofwar.rules.cards import CORE

    return [CORE.standard_deck("orcs"), CORE.standard_deck("elves")]
