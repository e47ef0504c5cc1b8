"""How strong a network plays: its policy alone (as the ``scout`` level plays it) against a
bot, and the curve of that strength against training time over a run's snapshots
(docs/bots.md, "The network")."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lordsofwar.bots import make_bot
from lordsofwar.bots.play import derived_seed, percentile, play_game, wilson
from lordsofwar.bots.policy import Policy, PolicyBot


def score_against(
    net: str | Path | Policy,
    opponent: str,
    games: int,
    seed: int = 0,
    temperature: float = 0.0,
    progress: Callable[[int, float], None] | None = None,
) -> dict[str, Any]:
    """``games`` games of the network's policy against ``opponent``, seeded as ``lordsofwar
    match`` seeds them (game ``i`` dealt from ``derived_seed(seed + i, "deal")``; the network
    plays seat 1 in even games, seat 2 in odd ones): its wins, draws, losses, score with a 95%
    Wilson interval and its milliseconds a decision (p50, p99)."""
    policy = net if isinstance(net, Policy) else Policy(net)
    won = drawn = 0
    ms: list[float] = []
    for i in range(games):
        game_seed = seed + i
        seat = 1 if game_seed % 2 == 0 else 2
        bots = {
            seat: PolicyBot(policy, derived_seed(game_seed, "bot", seat), temperature),
            3 - seat: make_bot(opponent, derived_seed(game_seed, "bot", 3 - seat)),
        }
        out = play_game(bots, derived_seed(game_seed, "deal"))
        ms.extend(1000 * s for s in out.decisions[seat])
        if out.winner is None:
            drawn += 1
        elif out.winner == seat:
            won += 1
        if progress is not None:
            progress(i + 1, (won + drawn / 2) / (i + 1))
    score = (won + drawn / 2) / games
    low, high = wilson(won + drawn / 2, games)
    return {
        "opponent": opponent,
        "games": games,
        "seed": seed,
        "temperature": temperature,
        "won": won,
        "drawn": drawn,
        "lost": games - won - drawn,
        "score": round(score, 4),
        "interval": [round(low, 4), round(high, 4)],
        "ms_p50": round(percentile(ms, 50), 3),
        "ms_p99": round(percentile(ms, 99), 3),
    }


def curve(
    run: str | Path,
    opponent: str = "greedy",
    games: int = 100,
    seed: int = 0,
    every: int = 1,
    say: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """The score of every ``every``-th snapshot of a run (``snapshots/net-STEP.npz``) against
    ``opponent``, with its training steps and seconds; kept in ``run/curve-OPPONENT.json`` as it
    goes (a snapshot already measured with the same games is not played again)."""
    run = Path(run)
    snapshots = sorted((run / "snapshots").glob("net-*.npz"))[::-1][::every][::-1]
    if not snapshots:
        raise FileNotFoundError(f"no snapshots in {str(run / 'snapshots')!r}")
    store = run / f"curve-{opponent}.json"
    points: list[dict[str, Any]] = json.loads(store.read_text()) if store.exists() else []
    done = {(p["snapshot"], p["games"], p["seed"]) for p in points}
    for path in snapshots:
        if (path.name, games, seed) in done:
            continue
        policy = Policy(path)
        start = time.perf_counter()
        result = score_against(policy, opponent, games, seed)
        training = policy.meta.get("training", {})
        point = {"snapshot": path.name, "steps": training.get("steps"), "seconds": training.get("seconds"), **result}
        point["wall_seconds"] = round(time.perf_counter() - start, 1)
        points.append(point)
        points.sort(key=lambda p: p["steps"] or 0)
        store.write_text(json.dumps(points, indent=1) + "\n")
        say(f"{path.name}: {result['score']:.1%} against {opponent} over {games} games")
    return points


def plot(curves: list[list[dict[str, Any]]], out: str | Path, title: str) -> None:
    """A PNG of the score against training minutes, one line per opponent (matplotlib: the dev extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    for points in curves:
        xs = [p["seconds"] / 60 for p in points]
        ys = [100 * p["score"] for p in points]
        lo = [100 * (p["score"] - p["interval"][0]) for p in points]
        hi = [100 * (p["interval"][1] - p["score"]) for p in points]
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=f"against {points[0]['opponent']}")
    ax.axhline(75, color="tab:red", lw=0.8, ls="--", label="75%")
    ax.set_xlabel("training time (minutes, one core)")
    ax.set_ylabel("score (%), 95% interval")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
