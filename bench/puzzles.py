"""The puzzle generator's yield, and the figures of a puzzle file (docs/learn.md, "The puzzle generator").

``python bench/puzzles.py --games 20`` mines that many bot games (``--processes`` at once,
``--seed`` the run's seed, ``--tiny`` the small budgets of the tests) with the generator's
settings and prints what each check let through, the CPU time by stage, the yield (puzzles kept
per hour of CPU time on one core) and the margin distribution.

``python bench/puzzles.py --file lordsofwar/learn/data/puzzles.jsonl.gz`` plays nothing: it
describes a puzzle file (how many, its size, the margins, the themes, the ratings, the legal
actions a puzzle offers), as docs/learn.md quotes it for the shipped puzzles.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import add_platform, show  # noqa: E402
from lordsofwar.bots.play import percentile  # noqa: E402
from lordsofwar.learn import generate, puzzles  # noqa: E402


def describe(path: Path) -> dict[str, Any]:
    """The figures of the puzzle file at ``path``."""
    found = puzzles.read(path)
    figures: dict[str, Any] = {"puzzles": len(found), "bytes": path.stat().st_size}
    margins = [p.margin for p in found]
    for q in (10, 50, 90):
        figures[f"margin p{q}"] = percentile(margins, q)
    for lo, hi, n in generate.margin_histogram(margins, 0.1):
        figures[f"margin {lo:.1f}-{hi:.1f}"] = n
    for q in (10, 50, 90):
        figures[f"rating p{q}"] = percentile([float(p.rating) for p in found], q)
        figures[f"legal actions p{q}"] = percentile([float(p.legal) for p in found], q)
    figures["worlds (share passed) p10"] = percentile([p.worlds for p in found], 10)
    figures["with known hand cards"] = sum(bool(p.known) for p in found)
    themes = Counter(t for p in found for t in p.themes)
    for theme in puzzles.THEMES:
        figures[f"theme {theme}"] = themes.get(theme, 0)
    kinds = Counter(p.solution.split(" ")[0] for p in found)
    for kind, n in sorted(kinds.items()):
        figures[f"solution {kind}"] = n
    return figures


def mine(seed: int, games: int, processes: int, tiny: bool) -> dict[str, Any]:
    """Mine ``games`` games and return the generator's figures."""
    settings = generate.Settings().tiny() if tiny else generate.Settings()
    start = time.perf_counter()
    tally = generate.Tally()
    done = 0
    while done < games:  # one batch of `processes` games at a time, none beyond `games`
        batch = min(processes, games - done)
        _, t = generate.generate(seed, processes=batch, settings=settings, first_game=done)
        tally.add(t)
        done += batch
    wall = time.perf_counter() - start
    figures: dict[str, Any] = {
        "games": tally.games,
        "decisions with a choice": tally.decisions,
        "candidates (screen)": tally.screened,
        "past the deep search": tally.deep,
        "confirmed by the second search": tally.confirmed,
        "past the world check": tally.judged,
        "kept (judged again alike)": tally.kept,
        "CPU seconds": tally.cpu,
        "wall seconds": wall,
        "puzzles per core-hour": tally.per_hour(),
    }
    for stage, spent in tally.stages.items():
        figures[f"CPU share {stage} %"] = 100 * spent / tally.cpu if tally.cpu else 0.0
    for lo, hi, n in generate.margin_histogram(tally.margins):
        figures[f"margin {lo:.2f}-{hi:.2f}"] = n
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, help="Describe this puzzle file instead of mining games.")
    parser.add_argument("--games", type=int, default=12, help="Games to mine (default 12).")
    parser.add_argument("--seed", type=int, default=1, help="The run's seed (default 1).")
    parser.add_argument("--processes", type=int, default=1, help="Games mined at once (default 1).")
    parser.add_argument("--tiny", action="store_true", help="The tests' small budgets.")
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    args = parser.parse_args(argv)
    if args.file is not None:
        figures = describe(args.file)
        title = f"puzzles in {args.file}"
    else:
        figures = mine(args.seed, args.games, args.processes, args.tiny)
        title = f"puzzle generator: {args.games} games, seed {args.seed}"
    add_platform(figures)
    show(figures, title, args.json)


if __name__ == "__main__":
    main()
