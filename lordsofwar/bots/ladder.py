"""The bots' measured strength, as the lobby shows it, and the ratings' arithmetic.

``ladder.json`` beside this module is written by ``python bench/bots.py --write
lordsofwar/bots/ladder.json`` (a round-robin of every level; docs/bots.md). Nothing here is
estimated: a level missing from the file shows no rating.

The ratings are on the Elo scale of a Bradley-Terry model: a bot rated ``d`` points above
another is expected to score ``1 / (1 + 10 ** (-d / 400))`` against it, a draw counting half.
:func:`fit` fits a whole ladder (greedy fixed at 1000, as ``bench/bots.py`` does);
:func:`fit_against` places one more bot against levels whose ratings are held fixed (as
``lordsofwar match AGENT`` does). Both add one virtual draw to every pair played, so that a
perfect score stays finite, and both get 95% intervals from bootstrap resamples of the games.
"""

from __future__ import annotations

import functools
import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lordsofwar.bots import BOT_LEVELS
from lordsofwar.bots.play import percentile

ANCHOR = "greedy"
"""The level whose rating is fixed (when it plays)."""
ANCHOR_RATING = 1000.0
ELO = 400 / math.log(10)
"""Elo points per unit of the log of a Bradley-Terry strength."""

LADDER = Path(__file__).with_name("ladder.json")


@functools.cache
def load() -> dict[str, Any]:
    """The stored benchmark (empty when the file is missing or unreadable)."""
    try:
        doc = json.loads(LADDER.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def ratings() -> dict[str, int]:
    """Each measured level's rating (greedy fixed at 1000)."""
    return {row["name"]: int(row["rating"]) for row in load().get("levels", []) if "name" in row and "rating" in row}


def blurbs() -> dict[str, str]:
    """What each bot does, in a few words (English, :attr:`BotLevel.blurb`; translated where shown)."""
    return {level.name: level.blurb for level in BOT_LEVELS}


def expected(rating: float, opponent: float) -> float:
    """The score expected of a bot rated ``rating`` against one rated ``opponent``."""
    return 1 / (1 + 10 ** ((opponent - rating) / 400))


def anchor_of(levels: Sequence[str]) -> str:
    """The level fixed at :data:`ANCHOR_RATING`: greedy when it plays, else the first level."""
    return ANCHOR if ANCHOR in levels else levels[0]


def fit(levels: Sequence[str], pairs: Mapping[tuple[str, str], Sequence[float]]) -> dict[str, float]:
    """Bradley-Terry ratings (Elo scale) from each pair's scores for its first level, by Hunter's
    minorisation-maximisation, :func:`anchor_of` the levels fixed at :data:`ANCHOR_RATING`; one
    virtual draw per pair keeps a perfect score finite."""
    index = {name: i for i, name in enumerate(levels)}
    n = len(levels)
    wins = [0.0] * n
    games = [[0.0] * n for _ in range(n)]
    for (a, b), scores in pairs.items():
        i, j = index[a], index[b]
        w = sum(scores) + 0.5
        total = len(scores) + 1.0
        wins[i] += w
        wins[j] += total - w
        games[i][j] += total
        games[j][i] += total
    gamma = [1.0] * n
    for _ in range(2000):
        new = []
        for i in range(n):
            denom = sum(games[i][j] / (gamma[i] + gamma[j]) for j in range(n) if games[i][j])
            new.append(wins[i] / denom if denom else gamma[i])
        norm = math.exp(sum(math.log(g) for g in new) / n)
        new = [g / norm for g in new]
        done = max(abs(math.log(a / b)) for a, b in zip(new, gamma, strict=True)) < 1e-10
        gamma = new
        if done:
            break
    anchor = index[anchor_of(levels)]
    return {name: ANCHOR_RATING + ELO * (math.log(gamma[index[name]]) - math.log(gamma[anchor])) for name in levels}


def bootstrap(
    levels: Sequence[str], pairs: Mapping[tuple[str, str], Sequence[float]], samples: int, seed: int
) -> dict[str, tuple[float, float]]:
    """95% intervals of :func:`fit`, resampling each pair's games with replacement."""
    rng = random.Random(seed)
    drawn: dict[str, list[float]] = {name: [] for name in levels}
    for _ in range(samples):
        resampled = {k: [rng.choice(v) for _ in v] for k, v in pairs.items()}
        for name, r in fit(levels, resampled).items():
            drawn[name].append(r)
    return {name: (percentile(v, 2.5), percentile(v, 97.5)) for name, v in drawn.items()}


def fit_against(anchors: Mapping[str, float], scores: Mapping[str, Sequence[float]]) -> float:
    """The maximum-likelihood rating of a bot whose games against each level ``L`` scored
    ``scores[L]`` (1 win, 0.5 draw, 0 loss), the levels' ratings ``anchors[L]`` held fixed; one
    virtual draw per level played, as in :func:`fit`. The rating where the expected score over
    all the games equals the score made, found by bisection (the expected score grows with the
    rating); against a single level, scoring 50% gives that level's rating."""
    played = {name: s for name, s in scores.items() if s}
    if not played:
        raise ValueError("no games to fit a rating from")
    made = sum(sum(s) + 0.5 for s in played.values())

    def surplus(rating: float) -> float:
        return sum((len(s) + 1) * expected(rating, anchors[name]) for name, s in played.items()) - made

    lo = min(anchors[name] for name in played) - 4000
    hi = max(anchors[name] for name in played) + 4000
    for _ in range(200):
        mid = (lo + hi) / 2
        if surplus(mid) < 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    return (lo + hi) / 2


def bootstrap_against(
    anchors: Mapping[str, float], scores: Mapping[str, Sequence[float]], samples: int, seed: int
) -> tuple[float, float]:
    """The 95% interval of :func:`fit_against`, resampling the games against each level with
    replacement (the levels' own ratings stay fixed: their uncertainty is not in it). Each
    level's virtual draw is among the games resampled from, so that a level beaten in every game
    still leaves room for doubt (a resample of identical games would always fit the same)."""
    rng = random.Random(seed)
    pools = {name: [*s, 0.5] for name, s in scores.items() if s}
    drawn = [
        fit_against(anchors, {name: [rng.choice(pool) for _ in pool[1:]] for name, pool in pools.items()})
        for _ in range(samples)
    ]
    return percentile(drawn, 2.5), percentile(drawn, 97.5)


def scores_of(pair: Mapping[str, Any]) -> list[float]:
    """A stored pair's games as scores (their order matters neither to the fits nor to the
    bootstraps, which resample within a pair)."""
    return [1.0] * int(pair["wins"]) + [0.5] * int(pair["draws"]) + [0.0] * int(pair["losses"])


def stored_levels() -> list[dict[str, Any]]:
    """The stored levels' rows (name, rating, interval, decision times), weakest first."""
    rows = [row for row in load().get("levels", []) if isinstance(row, dict) and "name" in row and "rating" in row]
    return sorted(rows, key=lambda row: float(row["rating"]))


def stored_ratings() -> dict[str, float]:
    """The stored rating of each level this program can play, weakest first."""
    from lordsofwar.bots import BOTS

    return {row["name"]: float(row["rating"]) for row in stored_levels() if row["name"] in BOTS}


def nearest(estimate: float, ratings: Mapping[str, float]) -> list[str]:
    """The two levels of ``ratings`` around ``estimate``: the strongest rated at most that and the
    weakest rated above it; beyond an end of the ladder, the two levels nearest that end."""
    ordered = sorted(ratings, key=lambda name: ratings[name])
    above = next((i for i, name in enumerate(ordered) if ratings[name] > estimate), len(ordered))
    first = min(max(above - 1, 0), max(len(ordered) - 2, 0))
    return ordered[first : first + 2]


def place(
    agent: str,
    games: int,
    seed: int = 0,
    workers: int = 1,
    against: Sequence[str] | None = None,
    samples: int = 500,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Place the bot ``agent`` (any name :func:`lordsofwar.bots.make_bot` takes) on the stored
    ladder: ``games`` games against each level of ``against`` (stored levels), the agent playing
    player 1 in even games and player 2 in odd ones, game ``i`` of every pair from ``seed + i``
    (:func:`lordsofwar.bots.play.match_game`); then its rating by :func:`fit_against` with the
    stored ratings held fixed, and a 95% interval by :func:`bootstrap_against` over its games.

    Without ``against``, a first round of ``games`` games against greedy (the ladder's anchor, in
    its middle) gives an estimate, and the agent then plays the two stored levels around that
    estimate (:func:`nearest`; greedy's first games count): the levels it scores nearest 50%
    against, whose games say the most about its rating. A level never plays itself. Raises
    ``ValueError`` for a level without a stored rating or an empty ladder."""
    from lordsofwar.bots import agent_label
    from lordsofwar.bots.play import run_games, summarise

    ratings = stored_ratings()
    if against:
        if unknown := [name for name in against if name not in ratings]:
            raise ValueError(
                f"no stored rating for {', '.join(unknown)} (the ladder has {', '.join(ratings) or 'no levels'})"
            )
        opponents = list(dict.fromkeys(against))
    else:
        ratings = {name: r for name, r in ratings.items() if name != agent}
        if not ratings:
            raise ValueError("the stored ladder has no levels to place a bot against")
    if games < 1:
        raise ValueError(f"games: 1 or more, got {games}")
    started = time.perf_counter()
    played: list[dict[str, Any]] = []
    first: dict[str, Any] | None = None
    if not against:
        probe = ANCHOR if ANCHOR in ratings else sorted(ratings, key=lambda n: ratings[n])[len(ratings) // 2]
        played = run_games([(agent, probe, seed + i) for i in range(games)], workers, None, progress)
        estimate = fit_against(ratings, {probe: [g["score"] for g in played]})
        opponents = [probe, *(name for name in nearest(estimate, ratings) if name != probe)]
        first = {"against": probe, "games": games, "estimate": round(estimate)}
    rest = [
        (agent, name, seed + i) for name in opponents if not any(g["b"] == name for g in played) for i in range(games)
    ]
    played += run_games(rest, workers, None, progress)
    scores = {name: [g["score"] for g in played if g["b"] == name] for name in opponents}
    opponents = [name for name in sorted(opponents, key=lambda n: ratings[n]) if scores[name]]
    anchors = {name: ratings[name] for name in opponents}
    rating = fit_against(anchors, scores)
    lo, hi = bootstrap_against(anchors, scores, samples, seed)
    ms = [x for g in played for x in g["a_ms"]]
    doc = load()
    return {
        "agent": agent,
        "name": agent_label(agent),
        "rating": round(rating),
        "interval": [round(lo), round(hi)],
        "ms": {"p50": percentile(ms, 50), "p99": percentile(ms, 99), "decisions": len(ms)},
        "pairs": [
            {**summarise(agent, name, [g for g in played if g["b"] == name]), "rating": anchors[name]}
            for name in opponents
        ],
        "first_round": first,
        "games": len(played),
        "seed": seed,
        "seconds": round(time.perf_counter() - started, 1),
        "workers": workers,
        "ladder": {"date": doc.get("date"), "anchor": doc.get("anchor"), "ratings": anchors},
    }
