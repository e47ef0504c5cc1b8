"""Rating any bot on the ladder (docs/bots.md, "Rating your own agent"): the agent forms
``make_bot`` takes (``python:MODULE:FACTORY``, ``policy:FILE``), the rating fitted against the
stored levels held fixed, and ``lordsofwar match AGENT`` with its text, its JSON and its refusals."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from lordsofwar import core
from lordsofwar.bots import agent_label, make_bot
from lordsofwar.bots import ladder as ladder_mod
from lordsofwar.bots.ladder import bootstrap_against, expected, fit_against, nearest, place
from lordsofwar.bots.play import match_game, run_games
from lordsofwar.cli import cli

BOT_SOURCE = '''
import random


class FirstBot:
    """Plays the first legal action, or a random one: a researcher's own bot."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed

    def choose(self, view, known=None, deck=None):
        return self.rng.choice(view.legal_actions())


def make(seed):
    return FirstBot(seed)


def nothing(seed):
    return 42


def broken(seed):
    raise RuntimeError("no weights here")


NOT_CALLABLE = 3
'''


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "mybot.py"
    path.write_text(BOT_SOURCE)
    return path


def tiny_policy(path: Path) -> Path:
    """A policy of random weights for the bordered mat (one hidden layer of 4)."""
    from lordsofwar.bots.policy import save_policy
    from lordsofwar.rl.config import Config

    config = Config.of(mat="bordered", frame=(21, 21))
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(0, 0.1, (config.observation_size, 4)), np.zeros(4)),
        (rng.normal(0, 0.1, (4, config.num_actions)), np.zeros(config.num_actions)),
    ]
    save_policy(
        path,
        layers,
        {
            "mat": "bordered",
            "frame": [21, 21],
            "observation_size": config.observation_size,
            "num_actions": config.num_actions,
        },
    )
    return path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, ["match", *args])


# --- the agent forms ---------------------------------------------------------------------------


def test_a_python_bot_is_made_from_a_file_or_a_module_with_its_seed(
    bot_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = make_bot(f"python:{bot_file}:make", 7)
    assert type(bot).__name__ == "FirstBot" and bot.seed == 7  # type: ignore[attr-defined]
    assert bot.name == f"python:{bot_file}:make"  # given the name it was called by
    monkeypatch.chdir(bot_file.parent)  # a module is found in the working directory, as with python -m
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(bot_file.parent))])
    monkeypatch.delitem(sys.modules, "mybot", raising=False)
    again = make_bot("python:mybot:make", 8)
    assert again.seed == 8 and again.name == "python:mybot:make"  # type: ignore[attr-defined]
    game = match_game(f"python:{bot_file}:make", "random", 3)
    assert game["score"] in (0.0, 0.5, 1.0) and game["a_ms"]
    sys.modules.pop("mybot", None)


def test_a_python_bot_that_cannot_be_made_is_refused_saying_why(bot_file: Path) -> None:
    for name, reason in [
        ("python:no_such_module_here:make", "no module named 'no_such_module_here'"),
        (f"python:{bot_file.parent / 'missing.py'}:make", "no file"),
        (f"python:{bot_file}:absent", "has no 'absent'"),
        (f"python:{bot_file}:NOT_CALLABLE", "is a int, not a callable"),
        (f"python:{bot_file}:nothing", "returned int, not a bot"),
        (f"python:{bot_file}:broken", "RuntimeError: no weights here"),
        ("python:make", "write python:MODULE:FACTORY"),
        ("oracle", "policy:FILE or python:MODULE:FACTORY"),
    ]:
        with pytest.raises(ValueError, match=reason):
            make_bot(name, 1)


def test_tables_show_a_policy_by_its_file_name(bot_file: Path) -> None:
    assert agent_label("policy:/home/me/runs/best.npz") == "best.npz"
    assert agent_label(f"python:{bot_file}:make") == "mybot.py:make"
    assert agent_label("python:mybots.first:make") == "python:mybots.first:make"
    assert agent_label("elite") == "elite"


def test_worker_processes_rebuild_a_python_bot_from_its_name(bot_file: Path) -> None:
    tasks = [(f"python:{bot_file}:make", "random", seed) for seed in (0, 1)]
    here = run_games(tasks, workers=1)
    there = run_games(tasks, workers=2)
    assert [g["score"] for g in there] == [g["score"] for g in here]
    assert [g["turns"] for g in there] == [g["turns"] for g in here]


# --- the fit against fixed anchors -------------------------------------------------------------


def test_an_even_score_against_a_level_gives_its_rating() -> None:
    assert fit_against({"greedy": 1000.0}, {"greedy": [1.0, 0.0] * 50}) == pytest.approx(1000, abs=1e-6)
    assert fit_against({"x": 412.0}, {"x": [0.5] * 7}) == pytest.approx(412, abs=1e-6)
    # even against two levels placed symmetrically around 1000: 1000
    assert fit_against({"a": 800.0, "b": 1200.0}, {"a": [1.0, 0.0] * 20, "b": [1.0, 0.0] * 20}) == pytest.approx(1000)


def test_the_fitted_rating_expects_the_score_made() -> None:
    # 75 of 100 against a level rated 1000: about 191 points above (the virtual draw pulls in a little)
    rating = fit_against({"greedy": 1000.0}, {"greedy": [1.0] * 75 + [0.0] * 25})
    assert 185 < rating - 1000 < 191
    assert expected(rating, 1000) * 101 == pytest.approx(75.5)
    # against several levels, the expected games add up to the score made
    anchors = {"random": -494.0, "recruit": 667.0, "greedy": 1000.0}
    scores = {"random": [1.0] * 90 + [0.0] * 10, "recruit": [1.0] * 20 + [0.0] * 80, "greedy": [0.0] * 100}
    r = fit_against(anchors, scores)
    assert sum((len(s) + 1) * expected(r, anchors[n]) for n, s in scores.items()) == pytest.approx(110 + 1.5)
    assert -494 < r < 667
    # a perfect score stays finite, beyond the level
    assert 1000 < fit_against({"greedy": 1000.0}, {"greedy": [1.0] * 20}) < 1700


def test_the_bootstrap_interval_holds_the_rating_and_narrows_with_games() -> None:
    rng = random.Random(5)
    few = [float(rng.random() < 0.6) for _ in range(30)]
    many = [float(rng.random() < 0.6) for _ in range(300)]
    anchors = {"greedy": 1000.0}
    lo, hi = bootstrap_against(anchors, {"greedy": few}, 300, 1)
    assert lo < fit_against(anchors, {"greedy": few}) < hi
    lo2, hi2 = bootstrap_against(anchors, {"greedy": many}, 300, 1)
    assert lo2 < fit_against(anchors, {"greedy": many}) < hi2
    assert hi2 - lo2 < hi - lo
    # a level beaten in every game still leaves an interval
    lo3, hi3 = bootstrap_against(anchors, {"greedy": [1.0] * 10}, 200, 1)
    assert lo3 < hi3


def test_the_levels_around_an_estimate() -> None:
    ratings = {"random": -494.0, "recruit": 667.0, "greedy": 1000.0, "veteran": 1212.0, "general": 1641.0}
    assert nearest(800, ratings) == ["recruit", "greedy"]
    assert nearest(1000, ratings) == ["greedy", "veteran"]
    assert nearest(-900, ratings) == ["random", "recruit"]
    assert nearest(2500, ratings) == ["veteran", "general"]


# --- lordsofwar match AGENT --------------------------------------------------------------------


def test_match_places_an_agent_against_the_stored_levels_it_names() -> None:
    r = invoke("recruit", "--against", "random,greedy", "--games", "2", "--workers", "1", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    stored = ladder_mod.stored_ratings()
    assert [p["b"] for p in doc["pairs"]] == ["random", "greedy"]
    assert doc["ladder"]["ratings"] == {"random": stored["random"], "greedy": stored["greedy"]}
    assert doc["first_round"] is None and doc["games"] == 4
    assert all(p["games"] == 2 and p["wins"] + p["draws"] + p["losses"] == 2 for p in doc["pairs"])
    assert all(p["interval"][0] <= p["score"] <= p["interval"][1] for p in doc["pairs"])
    lo, hi = doc["interval"]
    assert lo <= doc["rating"] <= hi
    scores = {p["b"]: [1.0] * p["wins"] + [0.5] * p["draws"] + [0.0] * p["losses"] for p in doc["pairs"]}
    assert doc["rating"] == round(fit_against(doc["ladder"]["ratings"], scores))
    assert doc["ms"]["decisions"] > 0 and doc["ms"]["p50"] <= doc["ms"]["p99"]


def test_match_finds_the_levels_around_the_agent_by_a_first_round_against_greedy() -> None:
    doc = place("random", 2, seed=4, workers=1)
    first = doc["first_round"]
    assert first["against"] == "greedy" and first["games"] == 2
    stored = {k: v for k, v in ladder_mod.stored_ratings().items() if k != "random"}  # never itself
    wanted = ["greedy", *(n for n in nearest(first["estimate"], stored) if n != "greedy")]
    assert sorted(p["b"] for p in doc["pairs"]) == sorted(wanted)
    assert doc["games"] == 2 * len(wanted)
    again = place("random", 2, seed=4, workers=1)  # the same seed plays the same games
    assert [(p["b"], p["wins"], p["draws"]) for p in again["pairs"]] == [
        (p["b"], p["wins"], p["draws"]) for p in doc["pairs"]
    ]
    assert again["rating"] == doc["rating"] and again["interval"] == doc["interval"]


def test_match_prints_the_rating_the_pairs_and_the_decision_times(bot_file: Path) -> None:
    r = invoke(f"python:{bot_file}:make", "--against", "random", "--games", "2", "--workers", "1")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("mybot.py:make: rating ") and "95% interval" in lines[0] and "greedy = 1000" in lines[0]
    random_rating = str(round(ladder_mod.stored_ratings()["random"]))  # as ladder.json has it
    assert any(line.startswith("random") and random_rating in line for line in lines)
    assert "ms a decision (p50)" in r.output and "2 games in" in r.output


@pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the policy bot observes through the core")
def test_match_places_a_policy_file_and_plays_it_head_to_head(tmp_path: Path) -> None:
    path = tiny_policy(tmp_path / "tiny.npz")
    r = invoke(f"policy:{path}", "--against", "random", "--games", "2", "--workers", "1", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["name"] == "tiny.npz" and doc["pairs"][0]["games"] == 2
    r = invoke(f"policy:{path}", "random", "--games", "2", "--workers", "1")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("tiny.npz against random: ") and "95% interval" in r.output


def test_match_refuses_bad_input_with_one_line_and_status_2(tmp_path: Path, bot_file: Path) -> None:
    for args, said in [
        (["oracle"], "oracle"),
        ([f"policy:{tmp_path / 'nope.npz'}"], "nope.npz"),
        (["greedy", "--games", "0"], "--games"),
        (["greedy", "--against", "random,grandmaster"], "no stored rating for grandmaster"),
        (["greedy", "--against", "random,"], "separated by commas"),
        (["greedy", "random", "--against", "random"], "without B"),
        (["greedy", "--rules", "basic"], "default variant"),
        ([f"python:{bot_file}:nothing"], "not a bot"),
        (["python:no_such_module_here:make", "random"], "no module named"),
    ]:
        r = invoke(*args, "--workers", "1")
        assert r.exit_code == 2, (args, r.output)
        assert r.output.startswith("error: ") and said in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_match_help_names_every_bot_weakest_first() -> None:
    from lordsofwar.bots import BOTS

    text = " ".join(CliRunner().invoke(cli, ["match", "--help"]).output.split())
    assert ", ".join(BOTS) in text, text
