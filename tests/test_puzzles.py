"""The shipped puzzles and their generator (lordsofwar/learn/puzzles.py, generate.py; docs/learn.md).

Fast: every shipped puzzle parses, shows no hidden card, has its solution among the legal actions
of its position and valid fields; the themes are what the code derives; the loader refuses bad
files. Slow: a small generation run keeps only puzzles that pass the same checks, and the second
search (flat Monte Carlo) and the world check confirm a sample of the shipped puzzles again.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lordsofwar.cli import cli
from lordsofwar.learn import generate, puzzles
from lordsofwar.learn.puzzles import Puzzle, PuzzleError
from lordsofwar.rules import notation

SHIPPED = puzzles.load()


def _sample(n: int, seed: int = 0, **where: Any) -> list[Puzzle]:
    pool = [p for p in SHIPPED if all(getattr(p, k) == v for k, v in where.items())]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def _edited(p: Puzzle, **changes: Any) -> Puzzle:
    return dataclasses.replace(p, **changes)


# --- the shipped puzzles -----------------------------------------------------------------------------


def test_at_least_500_puzzles_ship_in_a_small_file() -> None:
    path = Path(puzzles.__file__).parent / "data" / puzzles.DATA
    assert len(SHIPPED) >= 500
    assert path.stat().st_size < 400_000
    assert len({p.id for p in SHIPPED}) == len(SHIPPED)
    assert puzzles.by_id(SHIPPED[0].id) is SHIPPED[0]
    assert puzzles.by_id("000000") is None


def test_every_shipped_puzzle_passes_every_check() -> None:
    for p in SHIPPED:
        pos = puzzles.check(p)
        assert p.margin >= generate.Settings().margin
        assert p.worlds >= generate.Settings().world_share
        assert p.confirm >= generate.Settings().confirm
        assert pos.decider == p.player


def test_no_shipped_view_holds_a_hidden_card_or_a_seed() -> None:
    for p in SHIPPED:
        opponent = p.view["players"][str(3 - p.player)]
        assert p.view["variant"]["hands"] == "hidden"
        assert all(c is None for c in opponent["hand"]), p.id
        assert all(isinstance(p.view["players"][s]["deck"], int) for s in ("1", "2")), p.id
        assert "seed" not in json.dumps(p.to_json()), p.id
        assert "events" not in p.view


def test_a_view_is_the_solvers_view_of_its_own_position() -> None:
    for p in _sample(50):
        assert notation.view_json(p.position(), p.player) == p.view


def test_the_themes_are_those_the_code_derives_in_any_redrawn_world() -> None:
    rng = random.Random(3)
    for p in _sample(40, 1):
        view = p.position()
        world = next(generate.worlds_of(view, {3 - p.player: p.known}, p.deck, 1, rng))
        assert generate.themes_of(world, notation.parse_action(p.solution, view)) == p.themes, p.id


def test_the_themes_and_ratings_are_spread() -> None:
    themes = Counter(t for p in SHIPPED for t in p.themes)
    assert {"command-kill", "ranged", "deployment", "reinforcement"} <= set(themes)
    ratings = [p.rating for p in SHIPPED]
    assert max(ratings) - min(ratings) >= 600


# --- what check refuses --------------------------------------------------------------------------------


def test_check_refuses_a_shown_opponent_hand_or_a_listed_deck() -> None:
    p = next(p for p in SHIPPED if p.view["players"][str(3 - p.player)]["hand"])
    view = json.loads(json.dumps(p.view))
    view["players"][str(3 - p.player)]["hand"][0] = p.deck[0]
    with pytest.raises(PuzzleError, match="hidden cards"):
        puzzles.check(_edited(p, view=view, id=puzzles.puzzle_id(view, p.solution)))
    view = json.loads(json.dumps(p.view))
    view["players"][str(p.player)]["deck"] = p.deck[: view["players"][str(p.player)]["deck"]]
    with pytest.raises(PuzzleError, match="deck is listed"):
        puzzles.check(_edited(p, view=view, id=puzzles.puzzle_id(view, p.solution)))


def test_check_refuses_an_illegal_solution_a_wrong_id_and_bad_fields() -> None:
    p = SHIPPED[0]
    bad = "pass" if p.solution != "pass" and "pass" not in [str(a) for a in p.position().legal_actions()] else "draw"
    with pytest.raises(PuzzleError, match="not a legal action"):
        puzzles.check(_edited(p, solution=bad, id=puzzles.puzzle_id(p.view, bad)))
    with pytest.raises(PuzzleError, match="hash"):
        puzzles.check(_edited(p, id="aaaaaa" if p.id != "aaaaaa" else "bbbbbb"))
    for changes, words in (
        ({"rating": 5000}, "rating"),
        ({"margin": 0.0}, "probabilities"),
        ({"themes": ["checkmate"]}, "themes"),
        ({"themes": []}, "themes"),
        ({"deck": p.deck[:-1]}, "deck"),
        ({"player": 3 - p.player}, "hidden cards"),
        ({"legal": p.legal + 1}, "legal actions"),
        ({"alternative": p.solution}, "alternative"),
    ):
        with pytest.raises(PuzzleError, match=words):
            puzzles.check(_edited(p, **changes))


def test_the_reader_refuses_bad_lines_and_names_them(tmp_path: Path) -> None:
    good = json.dumps(SHIPPED[0].to_json())
    for line, words in (
        ("{not json", "line 2"),
        ("[1, 2]", "JSON object"),
        (json.dumps({**SHIPPED[0].to_json(), "seed": 1}), "unknown field"),
        (json.dumps({k: v for k, v in SHIPPED[0].to_json().items() if k != "solution"}), "missing"),
        (json.dumps({**SHIPPED[0].to_json(), "rating": "hard"}), "type int"),
        (json.dumps({**SHIPPED[0].to_json(), "player": True}), "type int"),
    ):
        path = tmp_path / "p.jsonl.gz"
        path.write_bytes(gzip.compress(f"{good}\n{line}\n".encode()))
        with pytest.raises(PuzzleError, match=words):
            puzzles.read(path)


def test_write_and_read_round_trip(tmp_path: Path) -> None:
    sample = _sample(5, 2)
    for name in ("p.jsonl", "p.jsonl.gz"):
        puzzles.write(tmp_path / name, sample)
        assert puzzles.read(tmp_path / name) == sorted(sample, key=lambda p: p.id)
    assert gzip.decompress((tmp_path / "p.jsonl.gz").read_bytes()) == (tmp_path / "p.jsonl").read_bytes()


# --- the generator's parts -------------------------------------------------------------------------------


def test_ratings_grow_with_the_choice_and_with_what_the_bots_miss() -> None:
    r = generate.rating_of
    assert r(4, 0.3, True, True) < r(40, 0.3, True, True) < r(400, 0.3, True, True)
    assert r(20, 0.3, True, True) < r(20, 0.3, False, True) < r(20, 0.3, False, False)
    assert r(20, 0.8, False, False) < r(20, 0.3, False, False)
    assert puzzles.RATING_RANGE[0] <= r(2, 1.0, True, True) and r(400, 0.25, False, False) <= puzzles.RATING_RANGE[1]


def test_a_gap_counts_the_actions_the_search_weighed_enough() -> None:
    from lordsofwar.bots.search import Analysis

    p = next(p for p in SHIPPED if p.legal >= 3)
    view = p.position()
    level = generate.Settings().level()
    a, b, c = view.legal_actions()[:3]
    found = Analysis(a, 0.9, [(a, 900, 0.9), (b, 80, 0.6), (c, 5, 0.89)])
    choice, win, margin, other = generate.gap(view, p.player, found, level, 30)
    assert (choice, other) == (str(a), str(b))  # c was tried too seldom to count
    assert margin > 0.1 and 0 < win < 1
    found = Analysis(a, 0.9, [(a, 990, 0.9), (c, 6, 0.2), (b, 4, 0.89)])
    assert generate.gap(view, p.player, found, level, 30)[3] == str(c)  # none counts: the most tried
    found = Analysis(a, 0.5, [(a, 990, 0.5), (b, 40, 0.7)])
    assert generate.gap(view, p.player, found, level, 30)[2] < 0


def test_margin_histogram_counts_every_margin_once() -> None:
    bins = generate.margin_histogram([0.25, 0.26, 0.31, 0.99, 1.0])
    assert bins[0][:2] == pytest.approx((0.25, 0.30)) and bins[0][2] == 2
    assert bins[-1][2] == 2 and sum(n for _, _, n in bins) == 5
    assert generate.margin_histogram([]) == []


def test_redrawn_worlds_keep_what_the_solver_knows() -> None:
    p = next(p for p in SHIPPED if p.known)
    view = p.position()
    rng = random.Random(5)
    worlds = list(generate.worlds_of(view, {3 - p.player: p.known}, p.deck, 6, rng))
    for world in worlds:
        assert notation.view_json(world, p.player) == p.view
        assert None not in world.decks[p.player] and None not in world.hands[3 - p.player]
        hand = Counter(c for c in world.hands[3 - p.player] if c is not None)
        assert not Counter(p.known) - hand
        assert not Counter(c for c in world.decks[p.player] if c is not None) - Counter(p.deck)
    assert len({json.dumps(notation.position_to_json(w)) for w in worlds}) > 1


# --- generation and the second look (slow) ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_small_generation_run_keeps_only_puzzles_that_pass_every_check(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl.gz"
    args = ["puzzles", "generate", "--tiny", "--seed", "7", "--count", "1", "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "per core-hour" in result.output and "margin distribution" in result.output
    found = puzzles.read(out)
    assert found
    for p in found:
        puzzles.check(p)
        assert p.margin >= generate.Settings().margin
    # the same run again finds the same puzzles (every search ends at its iteration cap)
    again, tally = generate.generate(7, count=1, settings=generate.Settings().tiny())
    assert again == found
    assert tally.decisions >= tally.screened >= tally.deep >= tally.confirmed >= tally.judged >= tally.kept >= 1


def test_the_command_refuses_bad_options(tmp_path: Path) -> None:
    for args, words in (
        (["--processes", "0"], "processes"),
        (["--count", "0"], "count"),
        (["--seed", "-1"], "seed"),
        (["--seconds", "0"], "seconds"),
    ):
        result = CliRunner().invoke(cli, ["puzzles", "generate", *args, "--out", str(tmp_path / "x.jsonl")])
        assert result.exit_code == 2 and words in result.output, result.output
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.slow
def test_the_second_search_confirms_a_sample_of_the_shipped_puzzles() -> None:
    """Flat Monte Carlo over worlds drawn afresh (not those of the generator) puts the solution
    first for nine in ten of a sample (it is noisy: greedy playouts of a few turns)."""
    settings = generate.Settings()
    rng = random.Random(11)
    sample = _sample(10, 4)
    first = 0
    for p in sample:
        view = p.position()
        worlds = list(generate.worlds_of(view, {3 - p.player: p.known}, p.deck, settings.flat_worlds, rng))
        ranked = generate.flat_monte_carlo(worlds, p.player, settings.flat_turns, rng.getrandbits(63))
        assert len(ranked) == p.legal
        first += ranked[0][0] == p.solution
    assert first >= 0.9 * len(sample)


@pytest.mark.slow
def test_a_shipped_puzzle_judged_again_keeps_its_solution() -> None:
    """Every check but the screen (the deep search, the second search, the world check), run
    again from what a puzzle stores with new seeds, finds the same puzzle in most cases."""
    sample = _sample(4, 5)
    again = [generate.recheck(p, seed=3) for p in sample]
    found = [(a.id, a.solution) for a in again if a is not None]
    assert len(found) >= 3
    assert set(found) <= {(p.id, p.solution) for p in sample}
