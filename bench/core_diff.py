"""Differential play at scale: ``lordsofwar.core`` against the rules engine, game after game.

Plays the games of world seeds ``--seed``, ``--seed + 1``, ... (the worlds of
``tests/core_worlds.py``: dealt games in every variant, crowded positions of the middle game, some
mid-turn, games with a pack of moving units) by uniformly random legal actions, comparing the
core with the rules engine after every action as ``tests/core_diff.py`` does, on ``--workers``
processes. Prints the games, the actions compared, the disagreements (with the reproduction
report of the first ones) and the games per second; the exit status is 1 on any disagreement.
The default seed plays the games of ``tests/test_core_diff.py`` first.

    python bench/core_diff.py --games 20000 --workers 2
    python bench/core_diff.py --world 20261187        # replay one world, report in full
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import core_diff  # noqa: E402 - tests/core_diff.py
import core_worlds  # noqa: E402 - tests/core_worlds.py

SEED = 2026_11_23
"""The first world seed of tests/test_core_diff.py."""

CHUNK = 25
"""Games handed to a worker at a time."""


@dataclass
class Tally:
    """What a batch of games found."""

    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    kinds: Counter[str] = field(default_factory=Counter)
    seen: Counter[str] = field(default_factory=Counter)
    disagreements: list[tuple[int, str]] = field(default_factory=list)
    """(world seed, reproduction report)"""
    errors: list[tuple[int, str]] = field(default_factory=list)
    """(world seed, traceback) of anything else that went wrong, the rules engine included."""

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.actions += other.actions
        self.seconds += other.seconds
        self.kinds.update(other.kinds)
        self.seen.update(other.seen)
        self.disagreements += other.disagreements
        self.errors += other.errors


def implementation(name: str) -> ModuleType:
    """``core``: ``lordsofwar.core`` as built (native, or the Python fallback); ``python``:
    ``lordsofwar.core._python``, to check the harness against the engine itself."""
    if name == "python":
        from lordsofwar.core import _python

        return _python
    from lordsofwar import core

    return core


def play(seeds: list[int], impl_name: str, check_every: int) -> Tally:
    """Compare the games of ``seeds`` (one worker's batch)."""
    impl = implementation(impl_name)
    tally = Tally()
    start = time.perf_counter()
    for seed in seeds:
        rng = random.Random(seed)
        world = core_worlds.start(rng)
        tally.kinds[world.kind] += 1
        context = f"world seed {seed}; rerun: python bench/core_diff.py --world {seed}"
        try:
            tally.actions += core_diff.compare_game(
                world.pos, world.cards, rng, impl, context=context, check_every=check_every, seen=tally.seen
            )
        except core_diff.Disagreement as exc:
            tally.actions += len(exc.actions)
            tally.disagreements.append((seed, exc.report()))
        except Exception:  # noqa: BLE001 - reported with its seed, the run goes on
            tally.errors.append((seed, traceback.format_exc()))
        tally.games += 1
    tally.seconds = time.perf_counter() - start
    return tally


def _play_chunk(job: tuple[list[int], str, int]) -> Tally:
    return play(*job)


def chunks(first: int, games: int) -> Iterator[list[int]]:
    for i in range(0, games, CHUNK):
        yield list(range(first + i, first + min(games, i + CHUNK)))


def run(args: argparse.Namespace) -> tuple[Tally, float]:
    """Every game, spread over the workers; the tally and the wall-clock seconds."""
    total = Tally()
    start = time.perf_counter()
    jobs = [(seeds, args.impl, args.check_every) for seeds in chunks(args.seed, args.games)]
    if args.workers <= 1:
        for job in jobs:
            total.add(_play_chunk(job))
    else:
        with multiprocessing.Pool(args.workers) as pool:
            for tally in pool.imap_unordered(_play_chunk, jobs):
                total.add(tally)
    return total, time.perf_counter() - start


def figures(args: argparse.Namespace, total: Tally, wall: float) -> dict[str, Any]:
    impl = implementation(args.impl)
    return {
        "implementation": "python (lordsofwar.core._python)" if args.impl == "python" else impl.IMPLEMENTATION,
        "games": total.games,
        "actions_compared": total.actions,
        "disagreements": len(total.disagreements),
        "errors": len(total.errors),
        "seconds": wall,
        "games_per_s": total.games / wall if wall else 0.0,
        "actions_per_s": total.actions / wall if wall else 0.0,
        "workers": args.workers,
        "first_seed": args.seed,
        "worlds": dict(sorted(total.kinds.items())),
        "actions_by_kind": {k: v for k, v in sorted(total.seen.items()) if not k.startswith("event:")},
        "python": platform.python_version(),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--games", type=int, default=2000, help="games to compare (default 2000)")
    p.add_argument("--seed", type=int, default=SEED, help=f"first world seed (default {SEED}, the test's)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--world", type=int, default=None, help="play only this world seed and print its report in full")
    p.add_argument(
        "--impl", choices=("core", "python"), default="core", help="what to compare (default: lordsofwar.core)"
    )
    p.add_argument(
        "--check-every",
        type=int,
        default=core_diff.CHECK_EVERY,
        help=f"integer actions, refusals and clones at every N-th decision point (default {core_diff.CHECK_EVERY})",
    )
    p.add_argument("--show", type=int, default=3, help="reproduction reports printed in full (default 3)")
    args = p.parse_args(argv)
    if args.world is not None:
        args.seed, args.games, args.workers = args.world, 1, 1
    if args.games < 0 or args.workers < 1 or args.check_every < 1:
        p.error("--games must be at least 0, --workers and --check-every at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    total, wall = run(args)
    found = sorted(total.disagreements)
    errors = sorted(total.errors)
    out = figures(args, total, wall)
    if args.json:
        out["reports"] = [{"seed": s, "report": r} for s, r in found[: args.show]]
        out["error_reports"] = [{"seed": s, "traceback": t} for s, t in errors[: args.show]]
        print(json.dumps(out))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title="lordsofwar.core against the rules engine")
        table.add_column("figure")
        table.add_column("value", justify="right")
        for key, value in out.items():
            if isinstance(value, dict):
                value = ", ".join(f"{k} {v:,}" for k, v in value.items())
            if isinstance(value, float):
                value = f"{value:,.1f}"
            elif isinstance(value, int) and key != "first_seed":
                value = f"{value:,}"
            table.add_row(key, str(value))
        Console().print(table)
        for seed, report in found[: args.show]:
            print(f"\n--- disagreement, world seed {seed} ---\n{report}")
        for seed, trace in errors[: args.show]:
            print(f"\n--- error, world seed {seed} ---\n{trace}")
        if len(found) > args.show:
            print(
                f"\n... and {len(found) - args.show} more disagreements (seeds {', '.join(str(s) for s, _ in found[args.show :][:20])})"
            )
    return 1 if found or errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
