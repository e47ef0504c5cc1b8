"""Bots playing whole games: what a bot is told, the game loop, and matches with their figures.

A bot is told three things, all of them its own knowledge: its view (``notation.view``), the
hand cards its opponent showed (:func:`lordsofwar.rules.knowledge.known_hands` over the game's
public events) and its own deck list. The loop applies its answer to the real position.

Seeds: a match's game ``seed`` is dealt from ``derived_seed(seed, "deal")`` and each bot is
seeded with ``derived_seed(seed, "bot", seat)``: independent derivations through SHA-256, so a
bot's seed tells nothing of the deal's (the shuffle of both decks), and a match is reproduced
from its seeds alone.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lordsofwar.bots import Bot, decide, make_bot
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.errors import LordsOfWarError
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.state import Action, Event, Position, Result, Variant

MAX_ACTIONS = 5000
"""A game longer than this is a bug (the no-progress rule ends games long before)."""


def ask(bot: Bot, pos: Position, events: Sequence[Event], deck: Sequence[str] | None = None) -> Action:
    """The action of ``bot`` for the player who decides at ``pos``: it is shown that player's view,
    the hand cards the opponent showed in ``events`` (the game's public events so far, in order)
    and ``deck``, that player's own deck list. The answer is checked against the real position."""
    player = pos.decider
    view = notation.view(pos, player)
    action = decide(bot, view, known_hands(events, player), deck)
    if action not in pos.legal_actions():
        raise LordsOfWarError(f"the {bot.name} bot chose {str(action)!r}, which is not a legal action now")
    return action


@dataclass
class GameOutcome:
    """One game between two bots."""

    seed: int
    winner: int | None  # the seat, or None for a draw
    reason: str
    turns: int
    actions: list[str]
    decisions: dict[int, list[float]] = field(default_factory=lambda: {1: [], 2: []})
    """Per seat, the seconds each real decision took (one with more than one legal action)."""
    result: Result | None = None
    """The game's result (its termination code and facts; ``winner`` and ``reason`` repeat it)."""


def derived_seed(seed: int, label: str, *parts: int) -> int:
    """An independent seed for ``label`` (``deal``, ``bot``...) from a run's ``seed``: the first
    63 bits of SHA-256 of them. Seeds of different labels cannot be computed from one another."""
    text = " ".join(["lordsofwar", label, str(seed), *(str(p) for p in parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") & (2**63 - 1)


def deal_for(seed: int, variant: Variant | None = None, cards: CardSet = CORE) -> tuple[list[list[str]], Position]:
    """The decks (each a core army's standard deck, drawn from ``seed``) and the dealt position."""
    rng = random.Random(seed)
    decks = [cards.standard_deck(rng.choice(cards.armies)) for _ in (1, 2)]
    return decks, notation.deal(decks, seed, variant or Variant(), cards)


def play_game(
    bots: dict[int, Bot],
    seed: int,
    variant: Variant | None = None,
    cards: CardSet = CORE,
    on_action: Callable[[Position, str], None] | None = None,
) -> GameOutcome:
    """A whole game from the deal of ``seed`` (armies drawn from it), ``bots[1]`` against ``bots[2]``."""
    decks, pos = deal_for(seed, variant, cards)
    events: list[Event] = []
    out = GameOutcome(seed, None, "", 0, [])
    while pos.result is None:
        if len(out.actions) >= MAX_ACTIONS:
            raise LordsOfWarError(f"game {seed} did not end in {MAX_ACTIONS} actions")
        player = pos.decider
        start = time.perf_counter()
        action = ask(bots[player], pos, events, decks[player - 1])
        spent = time.perf_counter() - start
        if len(pos.legal_actions()) > 1:
            out.decisions[player].append(spent)
        text = str(action)
        out.actions.append(text)
        events.extend(pos.push(action))
        if on_action is not None:
            on_action(pos, text)
    out.winner, out.reason, out.turns, out.result = pos.result.winner, pos.result.reason, pos.turn, pos.result
    return out


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (draws count half), 95% by default."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def match_game(a: str, b: str, seed: int, variant: Variant | None = None) -> dict[str, Any]:
    """One game of a match: ``a`` plays seat 1 in even games and seat 2 in odd ones; the result
    from ``a``'s side (1 win, 0.5 draw, 0 loss) and both bots' decision times in milliseconds.
    The deal and the bots are seeded from independent derivations of ``seed`` (:func:`derived_seed`)."""
    a_seat = 1 if seed % 2 == 0 else 2
    bots = {
        a_seat: make_bot(a, derived_seed(seed, "bot", a_seat)),
        3 - a_seat: make_bot(b, derived_seed(seed, "bot", 3 - a_seat)),
    }
    outcome = play_game(bots, derived_seed(seed, "deal"), variant)
    score = 0.5 if outcome.winner is None else float(outcome.winner == a_seat)
    return {
        "seed": seed,
        "a": a,
        "b": b,
        "a_seat": a_seat,
        "score": score,
        "turns": outcome.turns,
        "reason": outcome.reason,
        "a_ms": [round(1000 * s, 3) for s in outcome.decisions[a_seat]],
        "b_ms": [round(1000 * s, 3) for s in outcome.decisions[3 - a_seat]],
    }


def _match_task(args: tuple[str, str, int, Variant | None]) -> dict[str, Any]:
    return match_game(*args)


def run_games(
    tasks: Sequence[tuple[str, str, int]],
    workers: int = 1,
    variant: Variant | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Play each ``(a, b, seed)`` game with :func:`match_game`, in ``workers`` processes (1: here),
    calling ``progress`` with each game as it ends; the games in the order of ``tasks``."""
    jobs = [(a, b, seed, variant) for a, b, seed in tasks]
    results: list[dict[str, Any]] = []
    if not jobs:
        return results
    workers = min(workers, len(jobs))
    if workers <= 1:
        for job in jobs:
            results.append(_match_task(job))
            if progress is not None:
                progress(results[-1])
        return results
    import concurrent.futures
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # no inherited threads or sockets of the caller
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        futures = {pool.submit(_match_task, job): i for i, job in enumerate(jobs)}
        done: dict[int, dict[str, Any]] = {}
        for future in concurrent.futures.as_completed(futures):
            done[futures[future]] = future.result()
            if progress is not None:
                progress(done[futures[future]])
    return [done[i] for i in range(len(jobs))]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; nan for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    k = (len(xs) - 1) * q / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summarise(a: str, b: str, games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Wins, draws and losses of ``a`` against ``b``, its score with a 95% Wilson interval, and
    both bots' milliseconds per decision (p50, p99)."""
    wins = sum(g["score"] == 1.0 for g in games)
    draws = sum(g["score"] == 0.5 for g in games)
    n = len(games)
    score = wins + 0.5 * draws
    lo, hi = wilson(score, n)
    a_ms = [x for g in games for x in g["a_ms"]]
    b_ms = [x for g in games for x in g["b_ms"]]
    return {
        "a": a,
        "b": b,
        "games": n,
        "wins": wins,
        "draws": draws,
        "losses": n - wins - draws,
        "score": score / n if n else float("nan"),
        "interval": [lo, hi],
        "ms": {
            "a": {"p50": percentile(a_ms, 50), "p99": percentile(a_ms, 99), "decisions": len(a_ms)},
            "b": {"p50": percentile(b_ms, 50), "p99": percentile(b_ms, 99), "decisions": len(b_ms)},
        },
    }
