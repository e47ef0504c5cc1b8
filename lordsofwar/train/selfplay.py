"""Training data from the search playing itself (expert iteration's first generation).

Two search bots (the ``elite`` level's settings with an iteration cap of their own, so a run
repeats) play whole games (or, with ``opponent="greedy"``, one search bot plays the greedy bot,
taking seat 1 in even games and seat 2 in odd ones, and only its decisions are recorded), each
from its own view: its view, the hand cards its opponent showed
and its own deck, exactly what :func:`lordsofwar.bots.play.ask` tells a bot. At every decision
with more than one legal action the decider's search is recorded:

- the observation the network reads: the core's ``planes`` (uint8) and ``info`` (float32) of the
  decider's view, from the decider's side (docs/rl.md, "Observations");
- the legal ids (the mask, 1,724 bits packed);
- the search's visits per root action, each action mapped to its integer id in the decider's
  frame (``Game.action_id`` on the same view: docs/rl.md, "Actions");
- the search's root value (its win estimate of the action it prefers, as -1 to +1);
- the greedy bot's score, tie-break preference and exposure of every legal action
  (:func:`lordsofwar.bots.features.raw_scores`, in the order of the legal ids), which the
  ``scout`` network reads beside the position;
- at the game's end, the result for that decider (+1 won, -1 lost, 0 drawn).

The move played is drawn in proportion to the visits for the first ``sample_moves`` decisions
of a game (different openings), then it is the most visited. Game ``g`` of a run with seed
``S`` is dealt from ``derived_seed(S + g, "deal")`` and its bots are seeded from
``derived_seed(S + g, "selfplay", seat)``; so a game is reproduced from the run's seed and its
index alone, and the shards a run writes (``shard-NNNNN.npz``, every ``shard_games`` games,
written whole or not at all) let a stopped run continue where it stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lordsofwar.bots.play import MAX_ACTIONS, deal_for, derived_seed
from lordsofwar.bots.policy import Policy
from lordsofwar.bots.search import LEVELS, Analysis, SearchBot, SearchLevel
from lordsofwar.rules import notation
from lordsofwar.rules.errors import LordsOfWarError
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.state import Event, Position

SHARD_FORMAT = "lordsofwar-selfplay"
SHARD_VERSION = 2
"""Version 2 adds the greedy bot's numbers per legal action (``greedy``) and the ``opponent`` setting."""
OPPONENTS = ("self", "greedy")
DEFAULT_ITERATIONS = 1200
"""The teacher's iteration cap: ``elite``'s settings (3,500 iterations) made 18 decisions a second
on the loaded 2-core machine; 1,200 make about 40, enough for 100,000 decisions an hour."""


def teacher(iterations: int = DEFAULT_ITERATIONS) -> SearchLevel:
    """The search that makes the data: the ``elite`` level's settings with ``iterations`` as its
    cap and a time budget far above it (the cap, not the clock, ends every search: a run repeats)."""
    if iterations < 1:
        raise ValueError(f"iterations: at least 1, got {iterations}")
    return dataclasses.replace(LEVELS["elite"], name=f"teacher-{iterations}", iterations=iterations, seconds=60.0)


@dataclass
class Decision:
    """One recorded decision (see the module text)."""

    planes: np.ndarray
    info: np.ndarray
    legal: np.ndarray
    """The legal ids, ascending."""
    ids: np.ndarray
    """The ids of the root actions the search visited."""
    visits: np.ndarray
    """Their visits, in the order of ``ids``."""
    value: float
    player: int
    greedy: np.ndarray
    """The greedy bot's (score, preference, exposure) of each legal id, in the order of ``legal``."""
    result: float = 0.0


@dataclass
class GameRecord:
    """One self-play game's decisions."""

    index: int
    winner: int | None
    turns: int
    decisions: list[Decision] = field(default_factory=list)


def search_targets(
    view: Position, analysis: Analysis
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the network learns from one search of ``view``: the decider's observation
    (``planes``, ``info``), its legal ids, and the ids and visits of the root actions the search
    weighed, each action's id read in the decider's frame, and the greedy bot's numbers of each
    legal id. An action of the search that is not a legal id of the view is an error (the two
    encodings disagree)."""
    from lordsofwar import core
    from lordsofwar.bots.features import raw_scores

    game = core.Game.from_position(view)
    planes, info = game.observation()
    legal = np.asarray(game.legal_ids(), np.int32)
    ids: list[int] = []
    visits: list[int] = []
    for action, n, _mean in analysis.actions:
        if n <= 0:
            continue
        ids.append(game.action_id(action))
        visits.append(n)
    id_array = np.asarray(ids, np.int32)
    if not np.isin(id_array, legal).all():
        raise LordsOfWarError("the search weighed an action whose id is not legal in the decider's view")
    if len(set(ids)) != len(ids):
        raise LordsOfWarError("two root actions of the search have the same id")
    greedy_ids, greedy = raw_scores(game)
    if not np.array_equal(greedy_ids, legal):
        raise LordsOfWarError("the greedy bot's legal actions are not the legal ids of the decider's view")
    return planes, info, legal, id_array, np.asarray(visits, np.int32), greedy


def play_selfplay_game(
    index: int,
    seed: int,
    level: SearchLevel,
    sample_moves: int,
    opponent: str = "self",
    learner: Policy | None = None,
    teacher_share: float = 1.0,
) -> GameRecord:
    """Game ``index`` of a run seeded ``seed`` between two bots searching with ``level``, or
    (``opponent="greedy"``) between one and the greedy bot. With a ``learner`` network, after the
    first ``sample_moves`` decisions a recorded side plays the search's choice with probability
    ``teacher_share`` and the learner's (its most likely action) otherwise; every decision is
    still labelled by the search (imitation on the learner's own games: DAgger)."""
    from lordsofwar.bots.greedy import GreedyBot
    from lordsofwar.bots.policy import PolicyBot

    if opponent not in OPPONENTS:
        raise ValueError(f"opponent: one of {', '.join(OPPONENTS)}, got {opponent!r}")
    game_seed = seed + index
    decks, pos = deal_for(derived_seed(game_seed, "deal"))
    bots = {seat: SearchBot(level, derived_seed(game_seed, "selfplay", seat)) for seat in (1, 2)}
    teacher_seat = 1 + index % 2
    greedy = GreedyBot(derived_seed(game_seed, "selfplay", 3 - teacher_seat)) if opponent == "greedy" else None
    rng = random.Random(derived_seed(game_seed, "sample"))
    student = PolicyBot(learner, 0, temperature=0) if learner is not None else None
    events: list[Event] = []
    record = GameRecord(index, None, 0)
    actions = 0
    while pos.result is None:
        if actions >= MAX_ACTIONS:
            raise LordsOfWarError(f"self-play game {index} did not end in {MAX_ACTIONS} actions")
        player = pos.decider
        view = notation.view(pos, player)
        if greedy is not None and player != teacher_seat:
            events.extend(pos.push(greedy.choose(view)))
            actions += 1
            continue
        analysis = bots[player].analyse(view, known_hands(events, player), decks[player - 1])
        action = analysis.choice
        if len(analysis.actions) > 1:
            planes, info, legal, ids, visits, scores = search_targets(view, analysis)
            value = 2.0 * analysis.value - 1.0 if analysis.value == analysis.value else 0.0
            record.decisions.append(Decision(planes, info, legal, ids, visits, value, player, scores))
            if len(record.decisions) <= sample_moves:
                tried = [(a, n) for a, n, _ in analysis.actions if n > 0]
                action = rng.choices([a for a, _ in tried], weights=[n for _, n in tried])[0]
            elif student is not None and rng.random() >= teacher_share:
                action = student.choose(view)
        events.extend(pos.push(action))
        actions += 1
    record.winner, record.turns = pos.result.winner, pos.turn
    for d in record.decisions:
        d.result = 0.0 if record.winner is None else (1.0 if record.winner == d.player else -1.0)
    return record


def pack(records: list[GameRecord], meta: dict[str, Any]) -> dict[str, np.ndarray]:
    """The arrays of a shard: one row per decision; the legal ids and the visits as ragged lists
    (``*_ptr`` gives each row's span, as in a CSR matrix)."""
    rows = [d for r in records for d in r.decisions]
    game = np.asarray([r.index for r in records for _ in r.decisions], np.int32)
    legal_ptr = np.cumsum([0] + [len(d.legal) for d in rows]).astype(np.int64)
    visit_ptr = np.cumsum([0] + [len(d.ids) for d in rows]).astype(np.int64)
    empty_i = np.zeros(0, np.int32)
    header = {"format": SHARD_FORMAT, "version": SHARD_VERSION, **meta}
    return {
        "planes": np.stack([d.planes for d in rows]) if rows else np.zeros((0, 38, 6, 7), np.uint8),
        "info": np.stack([d.info for d in rows]) if rows else np.zeros((0, 264), np.float32),
        "legal_ptr": legal_ptr,
        "legal_ids": np.concatenate([d.legal for d in rows]).astype(np.int16) if rows else empty_i.astype(np.int16),
        "visit_ptr": visit_ptr,
        "visit_ids": np.concatenate([d.ids for d in rows]).astype(np.int16) if rows else empty_i.astype(np.int16),
        "visits": np.concatenate([d.visits for d in rows]).astype(np.int32) if rows else empty_i,
        "greedy": np.concatenate([d.greedy for d in rows]).astype(np.float32) if rows else np.zeros((0, 3), np.float32),
        "value": np.asarray([d.value for d in rows], np.float32),
        "result": np.asarray([d.result for d in rows], np.float32),
        "player": np.asarray([d.player for d in rows], np.int8),
        "game": game,
        "games": np.asarray([r.index for r in records], np.int32),
        "meta": np.frombuffer(json.dumps(header).encode(), np.uint8),
    }


def shard_paths(directory: Path) -> list[Path]:
    """The finished shards of a run, in order."""
    return sorted(directory.glob("shard-*.npz"))


def read_meta(path: Path) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as data:
        meta: dict[str, Any] = json.loads(bytes(data["meta"]).decode())
    if meta.get("format") != SHARD_FORMAT:
        raise ValueError(f"{path} is not a {SHARD_FORMAT} shard")
    return meta


def generate(
    directory: str | Path,
    games: int,
    seed: int = 0,
    iterations: int = DEFAULT_ITERATIONS,
    shard_games: int = 10,
    sample_moves: int = 12,
    progress: Callable[[str], None] | None = None,
    opponent: str = "self",
    learner: str | Path | None = None,
    teacher_share: float = 0.5,
) -> int:
    """Play self-play games ``0 .. games - 1`` of the run seeded ``seed`` into ``directory``,
    ``shard_games`` games a shard, continuing after the shards already there (a run stopped or
    finished earlier with the same settings; other settings are refused). Returns the number of
    decisions written by this call."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    level = teacher(iterations)
    if opponent not in OPPONENTS:
        raise ValueError(f"opponent: one of {', '.join(OPPONENTS)}, got {opponent!r}")
    policy = None
    learner_hash = ""
    if learner is not None:
        if not 0 <= teacher_share < 1:
            raise ValueError(f"teacher share: from 0 to below 1 with a learner, got {teacher_share!r}")
        policy = Policy(learner)
        learner_hash = hashlib.sha256(Path(learner).read_bytes()).hexdigest()[:16]
    settings = {
        "seed": seed,
        "iterations": iterations,
        "sample_moves": sample_moves,
        "shard_games": shard_games,
        "opponent": opponent,
        "version": SHARD_VERSION,
    }
    # The learner's weights (by their hash) and its share are settings too (None without a learner).
    settings.update(learner=learner_hash if policy else None, teacher_share=teacher_share if policy else None)
    done = 0
    existing = shard_paths(out)
    for path in existing:
        meta = read_meta(path)
        theirs = {k: meta.get(k) for k in settings}
        if theirs != settings:
            raise ValueError(f"{path} was generated with {theirs}, not {settings}: use another directory")
        done = max(done, int(meta["last_game"]) + 1)
    written = 0
    index = len(existing)  # shards are numbered in the order they were written
    for first in range(done, games, shard_games):
        start = time.perf_counter()
        records = [
            play_selfplay_game(g, seed, level, sample_moves, opponent, policy, teacher_share)
            for g in range(first, min(first + shard_games, games))
        ]
        meta = {
            **settings,
            "teacher": dataclasses.asdict(level),
            "first_game": first,
            "last_game": records[-1].index,
            "seconds": round(time.perf_counter() - start, 3),
            "variant": "default (intermediate, hidden hands, bordered, 20/4)",
        }
        arrays = pack(records, meta)
        path = out / f"shard-{index:05d}.npz"
        index += 1
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
        n = len(arrays["value"])
        written += n
        if progress is not None:
            progress(f"{path.name}: games {first}-{records[-1].index}, {n} decisions, {meta['seconds']:.0f} s")
    return written


def iter_shards(directory: str | Path) -> Iterator[dict[str, np.ndarray]]:
    """The arrays of each finished shard of ``directory``."""
    for path in shard_paths(Path(directory)):
        with np.load(path, allow_pickle=False) as data:
            yield {k: data[k] for k in data.files}
