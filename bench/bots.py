"""The bots' ladder: a round-robin of the levels, an Elo table with 95% intervals, decision times.

``python bench/bots.py`` plays every pair of levels (``--levels``, weakest first; default all of
``lordsofwar.bots.BOTS``; any bot ``make_bot`` makes may be one: ``policy:FILE``, a trained
policy shown by its file name, or ``python:MODULE:FACTORY``, a bot written in Python, rebuilt
by name in every worker): ``--games`` games for each pair of neighbours on the ladder (default
400), ``--cross-games`` for every other pair (default 100; 0 plays neighbours only), and at least
``--anchor-games`` of the top level against greedy (default 200: its headline win rate). Games
run in ``--workers`` processes on this machine, or as tasks on a Ray cluster with ``--ray
ADDRESS`` (``--ray local`` starts one here; Ray is the optional extra ``lordsofwar[ray]``).

It prints, for each pair, the score with its 95% Wilson interval, and for each level an Elo-like
rating (Bradley-Terry by maximum likelihood, one virtual draw per pair played as a prior, greedy
fixed at 1000) with a 95% bootstrap interval (games resampled within each pair), and its
milliseconds per decision (p50, p99; decisions with a single legal action are not counted).
``--json`` prints one object; ``--write FILE`` also stores the ratings for the lobby
(``lordsofwar/bots/ladder.json``). ``--combine OLD.json NEW.json --changed LEVELS`` plays
nothing: it joins stored runs into one ladder (the old pairs of the changed levels are dropped,
a pair played again adds its games) and fits the ratings again, so a change to one level is
measured by re-running its pairs only, and a pair gets more games by playing it again.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import add_platform  # noqa: E402
from lordsofwar.bots import BOTS, agent_label, make_bot  # noqa: E402
from lordsofwar.bots.ladder import ANCHOR, ANCHOR_RATING, anchor_of, bootstrap, fit, scores_of  # noqa: E402
from lordsofwar.bots.play import match_game, percentile, run_games, summarise, wilson  # noqa: E402

__all__ = ["ANCHOR", "ANCHOR_RATING", "added", "combine", "fit", "main", "schedule"]


def schedule(
    levels: Sequence[str], games: int, cross: int, seed: int, anchor_games: int = 0
) -> list[tuple[str, str, int]]:
    """(stronger, weaker, seed) for every game: neighbours ``games`` each, other pairs ``cross``,
    and the top level against the anchor at least ``anchor_games``."""
    tasks = []
    for i, a in enumerate(levels):
        for j in range(i):
            n = games if i - j == 1 else cross
            if (a, levels[j]) == (levels[-1], ANCHOR):
                n = max(n, anchor_games)
            tasks.extend((a, levels[j], seed + k) for k in range(n))
    return tasks


def run_on_ray(
    address: str, tasks: Sequence[tuple[str, str, int]], progress: Callable[[dict[str, Any]], None]
) -> list[dict[str, Any]]:
    """The games as Ray tasks (``address`` 'local': a Ray started here for this run)."""
    try:
        import ray
    except ImportError:
        raise SystemExit("--ray needs Ray: pip install 'lordsofwar[ray]'") from None
    if address == "local":
        ray.init(num_cpus=os.cpu_count() or 1, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)
    try:
        remote = ray.remote(match_game)
        refs = {remote.remote(a, b, s): i for i, (a, b, s) in enumerate(tasks)}
        out: dict[int, dict[str, Any]] = {}
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                out[refs[ref]] = ray.get(ref)
                progress(out[refs[ref]])
        return [out[i] for i in range(len(tasks))]
    finally:
        ray.shutdown()


def added(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Two runs of the same pair as one: their games added up, the score and its interval again,
    the decision times of the newer run."""
    wins, draws, games = old["wins"] + new["wins"], old["draws"] + new["draws"], old["games"] + new["games"]
    lo, hi = wilson(wins + 0.5 * draws, games)
    return {
        **new,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": games - wins - draws,
        "score": (wins + 0.5 * draws) / games,
        "interval": [lo, hi],
    }


def combine(docs: Sequence[dict[str, Any]], changed: Sequence[str], samples: int, seed: int) -> dict[str, Any]:
    """Stored runs (``--write`` files or ``--json`` output), oldest first, as one ladder. The
    pairs of a ``changed`` level (whose settings changed after the first run) from the runs
    before the first later run it plays in are dropped, so every figure of a level comes from games with its present settings; a pair
    played in more than one run adds up its games (the decision times of its latest run); each
    level's decision times come from the latest run it played in; ratings and intervals are
    fitted again over all the pairs."""
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    origin: dict[tuple[str, str], set[int]] = {}
    rows: dict[str, dict[str, Any]] = {}
    renewed: set[str] = set()
    for i, doc in enumerate(docs):
        # a changed level's first run after the change: its pairs from before it go
        now = {row["name"] for row in doc["levels"]} & set(changed) - renewed if i else set()
        pairs = {k: v for k, v in pairs.items() if not set(k) & now}
        renewed |= now
        for pair in doc["pairs"]:
            key = (pair["a"], pair["b"])
            if key in pairs:
                pair = added(pairs[key], pair)
            else:
                origin[key] = set()
            pairs[key] = pair
            origin[key].add(i)
        for row in doc["levels"]:
            rows[row["name"]] = row
    levels = ordered({name for k in pairs for name in k}, [row["name"] for doc in docs for row in doc["levels"]])
    scores = {k: scores_of(v) for k, v in pairs.items()}
    ratings = fit(levels, scores)
    intervals = bootstrap(levels, scores, samples, seed)
    latest = docs[-1]
    return {
        "date": latest["date"],
        "levels": [
            {
                **{k: rows[name][k] for k in ("ms_p50", "ms_p99", "decisions")},
                "name": name,
                "rating": round(ratings[name]),
                "interval": [round(intervals[name][0]), round(intervals[name][1])],
            }
            for name in levels
        ],
        "pairs": list(pairs.values()),
        "games": sum(p["games"] for p in pairs.values()),
        "runs": [  # what each run gives to this ladder
            {
                "date": d["date"],
                "games": sum(
                    p["games"] for p in d["pairs"] if (p["a"], p["b"]) in pairs and i in origin[(p["a"], p["b"])]
                ),
                "pairs": [f"{a} v {b}" for a, b in pairs if i in origin[(a, b)]],
                "machine": d.get("machine"),
            }
            for i, d in enumerate(docs)
        ],
        "anchor": {anchor_of(levels): ANCHOR_RATING},
        "python": latest.get("python"),
        "machine": latest.get("machine"),
    }


def ordered(names: set[str], seen: Sequence[str]) -> list[str]:
    """``names`` weakest first: the built-in levels in their order, then any other bot in the
    order first ``seen``."""
    rest = [name for name in dict.fromkeys(seen) if name in names and name not in BOTS]
    return [name for name in BOTS if name in names] + rest


def check_agents(names: Sequence[str]) -> str | None:
    """Why one of ``names`` cannot be played (each made once, as ``make_bot`` will make it in
    every worker), or None."""
    for name in names:
        try:
            make_bot(name, 0)
        except (ValueError, RuntimeError) as exc:
            return str(exc)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--levels",
        default=",".join(BOTS),
        help="comma-separated, weakest first: built-in levels, policy:FILE, python:MODULE:FACTORY",
    )
    parser.add_argument("--games", type=int, default=400, help="games for each pair of neighbours")
    parser.add_argument("--cross-games", type=int, default=100, help="games for every other pair (0: none)")
    parser.add_argument(
        "--anchor-games",
        type=int,
        default=200,
        help="games of the top level against greedy, at least (its headline win rate)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes on this machine")
    parser.add_argument("--ray", default=None, metavar="ADDRESS", help="run on a Ray cluster ('local': start one here)")
    parser.add_argument("--bootstrap", type=int, default=500, help="bootstrap samples for the intervals")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--write", default=None, metavar="FILE", help="store the ratings (lordsofwar/bots/ladder.json)")
    parser.add_argument(
        "--combine",
        nargs="+",
        default=None,
        metavar="FILE",
        help="play nothing: combine stored runs (oldest first) into one ladder",
    )
    parser.add_argument(
        "--changed",
        default="",
        metavar="LEVELS",
        help="with --combine: levels changed since the earlier runs (their earlier pairs are dropped)",
    )
    args = parser.parse_args(argv)
    if args.combine:
        changed = [x.strip() for x in args.changed.split(",") if x.strip()]
        docs = [json.loads(Path(f).read_text()) for f in args.combine]
        stored = {row["name"] for doc in docs for row in doc["levels"]}
        if unknown := [x for x in changed if x not in BOTS and x not in stored]:
            parser.error(f"--changed: unknown levels {', '.join(unknown)}")
        return report(combine(docs, changed, args.bootstrap, args.seed), args)

    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    if len(set(levels)) < 2 or len(set(levels)) < len(levels):
        parser.error(f"--levels: at least two different bots, weakest first (built-in: {', '.join(BOTS)})")
    if problem := check_agents(levels):
        parser.error(f"--levels: {problem}")
    tasks = schedule(levels, args.games, args.cross_games, args.seed, args.anchor_games)
    started = time.perf_counter()

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=args.json and not console.is_terminal,
    ) as bar:
        task = bar.add_task("games", total=len(tasks))

        def progress(game: dict[str, Any]) -> None:
            bar.update(task, advance=1, description=f"{agent_label(game['a'])} v {agent_label(game['b'])}")

        results = run_on_ray(args.ray, tasks, progress) if args.ray else run_games(tasks, args.workers, None, progress)
    elapsed = time.perf_counter() - started

    by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for game in results:
        by_pair.setdefault((game["a"], game["b"]), []).append(game)
    scores = {k: [g["score"] for g in v] for k, v in by_pair.items()}
    ratings = fit(levels, scores)
    intervals = bootstrap(levels, scores, args.bootstrap, args.seed)
    ms: dict[str, list[float]] = {name: [] for name in levels}
    for game in results:
        ms[game["a"]].extend(game["a_ms"])
        ms[game["b"]].extend(game["b_ms"])
    figures: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "levels": [
            {
                "name": name,
                "rating": round(ratings[name]),
                "interval": [round(intervals[name][0]), round(intervals[name][1])],
                "ms_p50": round(percentile(ms[name], 50), 2),
                "ms_p99": round(percentile(ms[name], 99), 2),
                "decisions": len(ms[name]),
            }
            for name in levels
        ],
        "pairs": [summarise(a, b, games) for (a, b), games in by_pair.items()],
        "games": len(results),
        "seconds": round(elapsed, 1),
        "workers": args.workers if not args.ray else f"ray {args.ray}",
        "anchor": {anchor_of(levels): ANCHOR_RATING},
    }
    add_platform(figures)
    return report(figures, args)


def report(figures: dict[str, Any], args: argparse.Namespace) -> int:
    """Store (``--write``) and print the figures."""
    if args.write:
        keys = ("date", "levels", "pairs", "games", "runs", "anchor", "python", "machine")
        keep = {k: figures[k] for k in keys if k in figures}
        Path(args.write).write_text(json.dumps(keep, indent=1) + "\n")
    if args.json:
        print(json.dumps(figures))
        return 0
    show_tables(figures)
    return 0


def show_tables(figures: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    ((anchor, fixed),) = figures["anchor"].items()
    table = Table(title=f"Bots: ratings ({anchor} = {fixed:.0f}), 95% intervals, ms a decision")
    for column in ("level", "rating", "95% interval", "ms p50", "ms p99", "decisions"):
        table.add_column(column, justify="left" if column == "level" else "right")
    for row in figures["levels"]:
        lo, hi = row["interval"]
        table.add_row(
            agent_label(row["name"]),
            str(row["rating"]),
            f"{lo} to {hi}",
            f"{row['ms_p50']:.1f}",
            f"{row['ms_p99']:.1f}",
            f"{row['decisions']:,}",
        )
    console.print(table)
    pairs = Table(title="Pairs: the first level's score")
    for column in ("pair", "games", "won", "drawn", "lost", "score", "95% interval"):
        pairs.add_column(column, justify="left" if column == "pair" else "right")
    for p in figures["pairs"]:
        lo, hi = p["interval"]
        pairs.add_row(
            f"{agent_label(p['a'])} v {agent_label(p['b'])}",
            str(p["games"]),
            str(p["wins"]),
            str(p["draws"]),
            str(p["losses"]),
            f"{100 * p['score']:.1f}%",
            f"{100 * lo:.1f}% to {100 * hi:.1f}%",
        )
    console.print(pairs)
    if "seconds" in figures:
        console.print(f"{figures['games']} games in {figures['seconds']} s ({figures['workers']} workers)")
    for run in figures.get("runs", []):
        console.print(f"from the run of {run['date']}: {run['games']} games ({', '.join(run['pairs'])})")


if __name__ == "__main__":
    raise SystemExit(main())
