"""Native core benchmark: random full games, legal listings, applications and batched steps.

Run ``python bench/core.py`` for a table or ``python bench/core.py --json`` for one JSON object.
Everything runs in this one process on one core: uniformly random games with the intermediate
rules on the bordered mat, 20/4, each side's core army drawn at random, both on the compiled
core and (for the ratio) on the Python engine, measured in the same run.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lordsofwar.core as core  # noqa: E402
from bench.engine import random_games as python_random_games  # noqa: E402
from bench.report import add_platform, show  # noqa: E402
from lordsofwar.rules.cards import CORE  # noqa: E402
from lordsofwar.rules.state import Variant  # noqa: E402

VARIANT = Variant(rules="intermediate")


def native_setup() -> tuple[object, list[list[int]], object]:
    from lordsofwar.core._native import core_variant, table

    tab = table(CORE)
    decks = [[tab.index[c] for c in CORE.standard_deck(a)] for a in CORE.armies]
    return tab.core, decks, core_variant(VARIANT)


def native_random_games(seconds: float, seed: int) -> dict[str, float]:
    """Uniformly random full games on the core for about ``seconds`` (deal included)."""
    from lordsofwar.core import _core

    cards, decks, variant = native_setup()
    cpu = time.process_time()
    games, actions, turns, elapsed = _core.random_games(cards, decks, variant, 20, seconds, seed)
    cpu = time.process_time() - cpu
    return {
        "games": games,
        "random_games_per_s": games / elapsed,
        "random_games_per_cpu_s": games / cpu,
        "actions_per_s": actions / elapsed,
        "actions_per_game": actions / games,
        "turns_per_game": turns / games,
    }


def native_listing(samples: int, seed: int) -> dict[str, float]:
    """One legal listing and one application timed at ``samples`` decision points."""
    from lordsofwar.core import _core

    cards, decks, variant = native_setup()
    listing, applying, listed, game_bytes = _core.time_actions(cards, decks, variant, samples, seed)
    listing.sort()
    return {
        "legal_listing_median_ns": statistics.median(listing),
        "legal_listing_p90_ns": listing[int(len(listing) * 0.9)],
        "legal_actions_per_listing": listed / len(listing),
        "apply_median_ns": statistics.median(applying),
        "game_object_bytes": game_bytes,
    }


def batch_steps(size: int, seconds: float, seed: int) -> dict[str, float]:
    """Step ``size`` games at once with a random legal id each, observations and masks written."""
    from lordsofwar.core._batch import Batch

    batch = Batch(size, seed=seed, variant=VARIANT)
    in_step = 0.0
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = batch.sample()
        t0 = time.perf_counter()
        batch.step(actions)
        in_step += time.perf_counter() - t0
        steps += size
    total = time.perf_counter() - start
    return {
        "batch_size": size,
        "batch_steps_per_s": steps / in_step,
        "batch_steps_per_s_with_sampling": steps / total,
        "batch_episodes": batch.episodes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=5.0, help="time for each of the speed figures")
    parser.add_argument("--samples", type=int, default=50_000, help="decision points for the listing figures")
    parser.add_argument("--batch", type=int, default=256, help="games in the batch")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    if core.IMPLEMENTATION != "native":
        print("error: the compiled core is not built; lordsofwar.core runs on the Python engine", file=sys.stderr)
        return 2
    figures: dict[str, float | str] = {}
    figures.update(native_random_games(args.seconds, args.seed))
    python = python_random_games(args.seconds, 5, args.seed + 1)
    figures["python_random_games_per_s"] = python["random_games_per_s"]
    figures["speedup"] = float(figures["random_games_per_s"]) / python["random_games_per_s"]
    figures.update(native_listing(args.samples, args.seed + 2))
    figures.update(batch_steps(args.batch, args.seconds, args.seed + 3))
    figures["peak_memory_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    add_platform(figures)
    show(figures, "lordsofwar native core (one core)", args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
