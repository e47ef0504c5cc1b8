"""Rules engine benchmark: legal-action listings, actions applied, random full games.

Run ``python bench/engine.py`` for a table or ``python bench/engine.py --json`` for one JSON
object. Everything runs in this one process on one core: uniformly random games with the
intermediate rules and random core armies (each army drawn independently for each side).
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import add_platform, show  # noqa: E402
from lordsofwar.bots.play import derived_seed  # noqa: E402
from lordsofwar.rules.cards import CORE  # noqa: E402
from lordsofwar.rules.notation import deal  # noqa: E402
from lordsofwar.rules.state import Action, Position, Variant  # noqa: E402


def new_game(rng: random.Random) -> Position:
    armies = CORE.armies
    decks = [CORE.standard_deck(rng.choice(armies)), CORE.standard_deck(rng.choice(armies))]
    return deal(decks, rng.randrange(2**31), Variant(rules="intermediate"))


def random_games(seconds: float, min_games: int, seed: int) -> dict[str, float]:
    """Play uniformly random full games for about ``seconds``: the deals from one stream of
    ``seed``, the random choices from another (a player's seed never reveals the deal)."""
    rng = random.Random(derived_seed(seed, "deal"))
    choices = random.Random(derived_seed(seed, "bot"))
    games = actions = turns = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while True:
        pos = new_game(rng)
        while pos.result is None:
            pos.push(choices.choice(pos.legal_actions()))
            actions += 1
        games += 1
        turns += pos.turn
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and games >= min_games:
            break
    cpu = time.process_time() - cpu_start
    return {
        "games": games,
        "seconds": elapsed,
        "random_games_per_s": games / elapsed,
        "random_games_per_cpu_s": games / cpu,
        "actions_per_game": actions / games,
        "turns_per_game": turns / games,
    }


def sample_decision_points(n: int, seed: int) -> list[tuple[Position, Action]]:
    """``n`` positions met in random games, each with the action then chosen (caches empty)."""
    rng, choices = random.Random(derived_seed(seed, "deal")), random.Random(derived_seed(seed, "bot"))
    out: list[tuple[Position, Action]] = []
    while len(out) < n:
        pos = new_game(rng)
        while pos.result is None and len(out) < n:
            fresh = pos.copy()
            action = choices.choice(pos.legal_actions())
            out.append((fresh, action))
            pos.push(action)
    return out


def listing_times(points: list[tuple[Position, Action]]) -> dict[str, float]:
    """Time one ``legal_actions()`` call on fresh copies (no cached results)."""
    copies = [p.copy() for p, _ in points]
    times = []
    count = 0
    clock = time.perf_counter_ns
    for pos in copies:
        t0 = clock()
        legal = pos.legal_actions()
        times.append(clock() - t0)
        count += len(legal)
    total = sum(times) / 1e9
    times.sort()
    return {
        "legal_listings": len(times),
        "legal_listings_per_s": len(times) / total,
        "legal_listing_median_us": statistics.median(times) / 1e3,
        "legal_listing_p90_us": times[int(len(times) * 0.9)] / 1e3,
        "legal_actions_per_listing": count / len(times),
    }


def apply_times(points: list[tuple[Position, Action]]) -> dict[str, float]:
    """Time ``push`` of the chosen action on fresh copies (legality check included)."""
    copies = [(p.copy(), a) for p, a in points]
    clock = time.perf_counter_ns
    times = []
    for pos, action in copies:
        pos.legal_actions()  # listing is measured above; here only the application
        t0 = clock()
        pos.push(action)
        times.append(clock() - t0)
    total = sum(times) / 1e9
    return {
        "actions_applied": len(times),
        "actions_per_s": len(times) / total,
        "apply_median_us": statistics.median(times) / 1e3,
    }


def memory(seed: int) -> dict[str, float]:
    """Python heap peak while playing one game, and the size of one position copy."""
    rng, choices = random.Random(derived_seed(seed, "deal")), random.Random(derived_seed(seed, "bot"))
    tracemalloc.start()
    pos = new_game(rng)
    while pos.result is None:
        pos.push(choices.choice(pos.legal_actions()))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    copies = [pos.copy() for _ in range(1000)]
    per_copy = (tracemalloc.get_traced_memory()[0] - before) / len(copies)
    tracemalloc.stop()
    return {"game_heap_peak_kb": peak / 1024, "position_copy_bytes": per_copy}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seconds", type=float, default=10.0, help="time for the random-games figure")
    parser.add_argument("--samples", type=int, default=20000, help="decision points for listing/apply figures")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    figures: dict[str, float | str] = {}
    figures.update(random_games(args.seconds, 20, args.seed + 1))
    # The process peak so far: the interpreter, the engine and the games (ru_maxrss only grows).
    figures["peak_memory_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    points = sample_decision_points(args.samples, args.seed)
    figures.update(listing_times(points))
    figures.update(apply_times(points))
    del points
    figures.update(memory(args.seed + 2))
    figures["peak_memory_with_samples_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    add_platform(figures)
    show(figures, "lordsofwar rules engine (one core)", args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
