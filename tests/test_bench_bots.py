"""The bots' benchmark (bench/bots.py) runs end to end: a round-robin in worker processes and on a
local Ray, one JSON object with ratings, intervals, pairs and decision times."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lordsofwar.bots.ladder import fit  # noqa: E402


def run(*args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots.py"), *args, "--json"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check(doc: dict, levels: list[str], games: int, cross: int, anchor: int = 0) -> None:
    assert [row["name"] for row in doc["levels"]] == levels
    pairs = {(p["a"], p["b"]): p for p in doc["pairs"]}
    for i in range(1, len(levels)):
        for j in range(i):
            p = pairs[(levels[i], levels[j])]
            wanted = games if i - j == 1 else cross
            if (levels[i], levels[j]) == (levels[-1], "greedy"):
                wanted = max(wanted, anchor)
            assert p["games"] == wanted
            assert p["wins"] + p["draws"] + p["losses"] == p["games"]
            assert p["interval"][0] <= p["score"] <= p["interval"][1]
    for row in doc["levels"]:
        assert row["interval"][0] <= row["rating"] <= row["interval"][1]
        assert row["decisions"] > 0 and row["ms_p50"] <= row["ms_p99"]
    assert doc["games"] == sum(p["games"] for p in doc["pairs"])


def test_round_robin_in_worker_processes(tmp_path: Path) -> None:
    out = tmp_path / "ladder.json"
    doc = run("--levels", "random,recruit,greedy", "--games", "2", "--cross-games", "1", "--workers", "2",
              "--bootstrap", "50", "--write", str(out))
    check(doc, ["random", "recruit", "greedy"], 2, 1)
    assert doc["games"] == 2 + 2 + 1
    assert doc["anchor"] == {"greedy": 1000.0}
    assert next(r for r in doc["levels"] if r["name"] == "greedy")["rating"] == 1000
    stored = json.loads(out.read_text())
    assert stored["levels"] == doc["levels"]


def test_the_top_level_plays_the_anchor_more() -> None:
    doc = run("--levels", "greedy,random,recruit", "--games", "1", "--cross-games", "1", "--anchor-games", "3",
              "--workers", "2", "--bootstrap", "20")
    check(doc, ["greedy", "random", "recruit"], 1, 1, anchor=3)
    assert doc["games"] == 1 + 1 + 3


def test_round_robin_on_a_local_ray() -> None:
    pytest.importorskip("ray")
    doc = run("--levels", "random,recruit", "--games", "2", "--cross-games", "0", "--ray", "local", "--bootstrap", "20")
    check(doc, ["random", "recruit"], 2, 0)
    assert doc["workers"] == "ray local"


def test_any_bot_make_bot_takes_is_a_level(tmp_path: Path) -> None:
    """A Python bot and a trained policy play in the round-robin (rebuilt from their names in the
    worker processes); the tables show the policy by its file name."""
    from lordsofwar import core

    if core.IMPLEMENTATION != "native":
        pytest.skip("the policy bot observes through the core")
    bot = tmp_path / "mybot.py"
    bot.write_text("import random\n\nclass Bot:\n    def __init__(self, seed):\n        self.rng = random.Random(seed)\n\n"
                   "    def choose(self, view, known=None, deck=None):\n        return self.rng.choice(view.legal_actions())\n")
    levels = ["random", f"python:{bot}:Bot", f"policy:{ROOT / 'examples' / 'policy.npz'}"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots.py"), "--levels", ",".join(levels), "--games", "1",
         "--cross-games", "0", "--anchor-games", "0", "--workers", "2", "--bootstrap", "20"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "policy.npz" in proc.stdout and "mybot.py:Bot" in proc.stdout and str(ROOT) not in proc.stdout
    bad = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots.py"), "--levels", f"random,python:{bot}:Nope"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert bad.returncode == 2 and "has no 'Nope'" in bad.stderr


def test_ratings_follow_the_scores() -> None:
    levels = ["a", "b", "c"]
    ratings = fit(levels, {("b", "a"): [1.0] * 30 + [0.0] * 10, ("c", "b"): [1.0] * 30 + [0.0] * 10})
    assert ratings["a"] < ratings["b"] < ratings["c"]
    # 75% is about 191 Elo points (one virtual draw per pair pulls it in a little)
    assert 150 < ratings["b"] - ratings["a"] < 200


def test_combining_runs_drops_the_changed_and_adds_the_pairs_played_again(tmp_path: Path) -> None:
    """``--combine``: the old pairs of a changed level go, a pair played again adds its games,
    decision times come from a level's latest run, and the ratings are fitted over the result."""
    old = run("--levels", "random,recruit,greedy", "--games", "3", "--cross-games", "2", "--workers", "2",
              "--bootstrap", "20", "--seed", "1")
    new = run("--levels", "recruit,greedy", "--games", "4", "--cross-games", "0", "--anchor-games", "0",
              "--workers", "2", "--bootstrap", "20", "--seed", "7")
    files = []
    for i, doc in enumerate((old, new)):
        files.append(tmp_path / f"run{i}.json")
        files[-1].write_text(json.dumps(doc))
    out = tmp_path / "ladder.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots.py"), "--combine", *map(str, files), "--changed", "recruit",
         "--write", str(out), "--json", "--bootstrap", "20"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    pairs = {(p["a"], p["b"]): p for p in doc["pairs"]}
    # recruit changed: its old pair with random is dropped, greedy v recruit is the new run's
    assert set(pairs) == {("greedy", "random"), ("greedy", "recruit")}
    assert pairs[("greedy", "recruit")] == next(p for p in new["pairs"] if (p["a"], p["b"]) == ("greedy", "recruit"))
    assert pairs[("greedy", "random")]["games"] == 2
    assert [r["name"] for r in doc["levels"]] == ["random", "recruit", "greedy"]
    rows = {r["name"]: r for r in doc["levels"]}
    assert rows["recruit"]["decisions"] == next(r for r in new["levels"] if r["name"] == "recruit")["decisions"]
    assert rows["random"]["decisions"] == next(r for r in old["levels"] if r["name"] == "random")["decisions"]
    assert rows["greedy"]["rating"] == 1000 and doc["games"] == 2 + 4
    assert [r["pairs"] for r in doc["runs"]] == [["greedy v random"], ["greedy v recruit"]]
    # each run keeps the machine it was played on (processor and cores)
    assert [r["machine"] for r in doc["runs"]] == [old["machine"], new["machine"]]
    assert f"{os.cpu_count()} cores" in old["machine"]
    assert json.loads(out.read_text())["levels"] == doc["levels"]
    # nothing changed: greedy v recruit has the games of both runs
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bots.py"), "--combine", *map(str, files), "--json", "--bootstrap", "20"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    both = {(p["a"], p["b"]): p for p in json.loads(proc.stdout)["pairs"]}
    old_pair = next(p for p in old["pairs"] if (p["a"], p["b"]) == ("greedy", "recruit"))
    new_pair = pairs[("greedy", "recruit")]
    added = both[("greedy", "recruit")]
    assert added["games"] == old_pair["games"] + new_pair["games"] == 3 + 4
    assert added["wins"] == old_pair["wins"] + new_pair["wins"] and added["draws"] == old_pair["draws"] + new_pair["draws"]
    assert added["interval"][0] <= added["score"] <= added["interval"][1]
    assert both[("recruit", "random")] == next(p for p in old["pairs"] if (p["a"], p["b"]) == ("recruit", "random"))
