"""The network evaluator and the search it guides (`marshal`): microseconds per evaluation and
search iterations per second beside `general`'s.

Run ``python bench/network.py`` (the network `marshal` searches with, lordsofwar/bots/data/scout.npz,
with `marshal`'s settings; ``--network FILE`` another, a version 4 file's action head included:
its evaluation then counts the greedy bot's judgement of every legal action it reads) or
``python bench/network.py --random`` (a randomly initialised network of the first network's
shape: 1860 -> 512 -> 256 -> 1724, value 256 -> 64 -> 1); ``--json`` for one JSON object.
Everything runs in this one process on one core, over the decisions of greedy-against-greedy
games; times are CPU seconds of this process (a busy machine stretches the wall clock, not them).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench.report import add_platform, show  # noqa: E402
from lordsofwar import core  # noqa: E402
from lordsofwar.bots import make_bot  # noqa: E402
from lordsofwar.bots.play import deal_for  # noqa: E402
from lordsofwar.bots.policy import save_network  # noqa: E402
from lordsofwar.bots.search import DATA, LEVELS, SearchBot, load_network  # noqa: E402
from lordsofwar.core._native import greedy_handle  # noqa: E402
from lordsofwar.rl.config import Config  # noqa: E402
from lordsofwar.rules import notation  # noqa: E402
from lordsofwar.rules.state import Position  # noqa: E402


def random_file(path: Path) -> Path:
    config = Config.of()
    rng = np.random.default_rng(0)
    sizes = [config.observation_size, 512, 256, config.num_actions]
    policy = [
        (rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32), np.zeros(b, np.float32))
        for a, b in zip(sizes, sizes[1:], strict=False)
    ]
    value = [
        (rng.normal(0, np.sqrt(2 / 256), (256, 64)).astype(np.float32), np.zeros(64, np.float32)),
        (rng.normal(0, np.sqrt(1 / 64), (64, 1)).astype(np.float32), np.zeros(1, np.float32)),
    ]
    meta = {
        "mat": "bordered",
        "frame": [7, 6],
        "observation_size": config.observation_size,
        "num_actions": config.num_actions,
        "value_from": 1,
    }
    save_network(path, policy, value, meta)
    return path


def positions(games: int, every: int) -> list[Position]:
    """Every ``every``-th decision of greedy-against-greedy games (with three or more choices)."""
    out = []
    for seed in range(games):
        _decks, pos = deal_for(1000 + seed)
        bots = {1: make_bot("greedy", 1), 2: make_bot("greedy", 2)}
        n = 0
        while pos.result is None:
            if n % every == 0 and len(pos.legal_actions()) >= 3:
                out.append(pos.copy())
            pos.push(bots[pos.decider].choose(pos))
            n += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", action="store_true", help="a random network of the first network's shape")
    parser.add_argument(
        "--network",
        type=Path,
        default=DATA / str(LEVELS["marshal"].network),
        help="the network file (default: the one `marshal` searches with)",
    )
    parser.add_argument("--games", type=int, default=3, help="greedy games the positions come from")
    parser.add_argument("--every", type=int, default=8, help="take every n-th decision")
    parser.add_argument("--seconds", type=float, default=1.0, help="the search's budget per position")
    parser.add_argument("--mix", type=float, default=None, help="marshal's mix (default: the level's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = random_file(Path(tmp) / "random.npz") if args.random else args.network
        network = load_network(path)
        found = positions(args.games, args.every)
        evals = []
        for pos in found:
            game = core.Game.from_position(pos)
            repeat = 200
            cpu = time.process_time()
            network.net.evaluate(game._s, repeat, greedy_handle(game.cards, game.variant))
            evals.append((time.process_time() - cpu) / repeat * 1e6)
        rates: dict[str, list[float]] = {"general": [], "marshal": []}
        for i, pos in enumerate(found[:: max(1, len(found) // 12)]):
            view = notation.view(pos, pos.decider)
            for name in rates:
                level = LEVELS[name]
                if name == "marshal":
                    level = replace(
                        level, network=str(Path(path).resolve()), mix=level.mix if args.mix is None else args.mix
                    )
                cpu = time.process_time()
                result = SearchBot(level, i).analyse(view, seconds=args.seconds, iterations=10**9)
                rates[name].append(result.iterations / max(time.process_time() - cpu, 1e-9))
    out = {
        "network": "random" if args.random else str(path.name),
        "positions": len(found),
        "eval_us_median": statistics.median(evals),
        "eval_us_p90": float(np.percentile(evals, 90)),
        "searched_positions": len(rates["general"]),
        "general_iterations_per_cpu_s": statistics.median(rates["general"]),
        "marshal_iterations_per_cpu_s": statistics.median(rates["marshal"]),
    }
    add_platform(out)
    show(out, "Network evaluator and marshal search", args.json)


if __name__ == "__main__":
    main()
