"""The compiled greedy bot (src/core/greedy.cpp, ``Game.greedy_action``) and the batch's
opponents (docs/core.md, "The greedy bot"): the same decision rule as lordsofwar/bots/greedy.py,
held to it over thousands of decision points, reading nothing its decider may not know."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from lordsofwar import core
from lordsofwar.bots.greedy import GreedyBot
from lordsofwar.core import _python
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, DECK_SIZE
from lordsofwar.rules.position import Variant

NATIVE = core.IMPLEMENTATION == "native"
needs_native = pytest.mark.skipif(not NATIVE, reason="the compiled core is not built")
ARMIES = [a for a in CORE.armies if len(CORE.army(a)) == DECK_SIZE]
EPS = 1e-6


def decision_points(games: int, seed: int, variant: Variant | None = None) -> list[core.GameProtocol]:
    """Copies of every decision point with more than one legal action in ``games`` games
    between a uniformly random player and the compiled greedy bot (seats alternating)."""
    rng = random.Random(seed)
    points = []
    for i in range(games):
        decks = [CORE.standard_deck(rng.choice(ARMIES)) for _ in range(2)]
        game = core.Game.deal(decks, rng.randrange(2**31), variant)
        greedy_seat = 1 + i % 2
        while not game.is_over:
            legal = game.legal()
            if len(legal) > 1:
                points.append(game.clone())
            if game.decider == greedy_seat:
                game.apply(game.greedy_action(rng.randrange(2**32)))
            else:
                game.apply(rng.choice(legal))
    return points


def best_of_python(game: core.GameProtocol) -> set[str]:
    """The actions the Python greedy bot rates best (equal scores and tie-breaks), from the
    decider's view: any of them is a choice it may make."""
    view = notation.view(game.to_position(), game.decider)
    bot = GreedyBot(0)
    ranked = {str(a): bot.evaluate(view, a, view.decider) for a in view.legal_actions()}
    best = max(score for score, _ in ranked.values())
    top = {a: tie for a, (score, tie) in ranked.items() if score >= best - EPS}
    pref, exposure = max(top.values())
    return {a for a, tie in top.items() if tie[0] == pref and tie[1] >= exposure - EPS}


@pytest.mark.slow  # about 2,050 decision points, each rated by the Python bot: 2 s of CPU time
@needs_native
def test_the_compiled_greedy_bot_chooses_what_the_python_bot_rates_best() -> None:
    points = decision_points(28, seed=5)
    points += decision_points(2, seed=6, variant=Variant(mat="unbordered"))
    points += decision_points(2, seed=7, variant=Variant(rules="basic", hands="visible", units_to_win=10))
    assert len(points) >= 2000
    rng = random.Random(1)
    for game in points:
        choice = game.greedy_action(rng.randrange(2**32))
        assert choice in best_of_python(game), (game.to_json(), choice)


@needs_native
def test_the_compiled_greedy_bot_reads_no_hidden_card() -> None:
    """Its choice with a seed is the same in every world its decider cannot tell apart, and on
    the view itself (the hidden cards unknown)."""
    points = decision_points(6, seed=8)[::3]
    assert len(points) > 50
    for n, game in enumerate(points):
        view = game.view(game.decider)
        want = game.greedy_action(n)
        assert view.greedy_action(n) == want
        for k in range(3):
            assert view.determinize(100 * n + k).greedy_action(n) == want


@needs_native
def test_the_reused_bot_chooses_as_a_fresh_one_in_every_thread() -> None:
    """The core keeps one greedy bot per settings and thread and reuses it: the choices of four
    threads over the same points in shuffled orders, three variants mixed in between, are those
    of one thread, decision for decision."""
    from concurrent.futures import ThreadPoolExecutor

    from lordsofwar.core._native import greedy_handle

    points = decision_points(3, seed=21) + decision_points(2, seed=22, variant=Variant(mat="unbordered"))
    points += decision_points(2, seed=23, variant=Variant(rules="basic", hands="visible"))
    want = [(p.greedy_action(n), p.greedy_scores()) for n, p in enumerate(points)]
    order = list(range(len(points)))

    def run(shuffle: int) -> list[tuple[int, tuple[str, list[tuple[str, float, float, float]]]]]:
        mine = order[:]
        random.Random(shuffle).shuffle(mine)
        return [(n, (points[n].greedy_action(n), points[n].greedy_scores())) for n in mine]

    with ThreadPoolExecutor(4) as pool:
        for done in pool.map(run, range(8)):
            for n, got in done:
                assert got == want[n], n
    # one settings object per card set and variant, made once
    assert greedy_handle(CORE, Variant()) is greedy_handle(CORE, Variant())
    assert greedy_handle(CORE, Variant()) is not greedy_handle(CORE, Variant(mat="unbordered"))


@needs_native
def test_the_actions_judged_without_being_played_are_judged_as_playing_them_judges_them() -> None:
    """The compiled bot judges most deployments without playing them (quiet ones, those that
    lose their unit, those that take a line another deployment played: docs/core.md, "The greedy
    bot"). With the shortcuts off it plays every one: every score, preference and exposure of
    every legal action is the same to the last bit, in both rule sets."""
    from lordsofwar.core import _core
    from lordsofwar.core._native import greedy_params

    points = decision_points(16, seed=31) + decision_points(4, seed=32, variant=Variant(rules="basic"))
    assert len(points) > 1000
    handles = {}
    for game in points:
        key = (id(game.cards), game.variant)
        if key not in handles:
            values, fresh_arrow, enemy_weight, pushes = greedy_params(game.cards, game.variant)
            handles[key] = (
                _core.GreedyParams(values, fresh_arrow, enemy_weight, pushes),
                _core.GreedyParams(values, fresh_arrow, enemy_weight, pushes, shortcuts=False),
            )
        fast, played = handles[key]
        state: Any = game._s  # type: ignore[attr-defined]  # the compiled game's state
        assert state.greedy_scores(fast) == state.greedy_scores(played), game.to_json()


def test_the_python_engine_plays_the_greedy_bot_of_lordsofwar_bots() -> None:
    game = _python.Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 2)
    for _ in range(12):
        pos = game.to_position()
        want = GreedyBot(7).choose(notation.view(pos, pos.decider))
        assert game.greedy_action(7) == str(want)
        game.apply(str(want))
    native = core.Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 2)
    while not native.is_over:
        native.apply(native.greedy_action(0))
    with pytest.raises(ValueError, match="the game is over"):
        native.greedy_action(0)


@pytest.mark.parametrize("batch_class", [core.Batch, _python.Batch], ids=["core", "python"])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_a_batch_opponent_plays_every_seat_but_the_learners(batch_class: type, opponent: str) -> None:
    """Every row is a decision of the learner's seat (alternating by game); finished games give
    the learner's result and are dealt again, the opponent moving first where it holds seat 1."""
    native = batch_class is core.Batch and NATIVE
    size, steps = (8, 400) if native else (2, 8 if opponent == "greedy" else 60)
    batch = batch_class(size, seed=3, opponent=opponent)
    assert batch.opponent == opponent and list(batch.seats) == [1 + i % 2 for i in range(size)]
    assert np.array_equal(batch.to_play, batch.seats)
    learner = np.zeros(2)
    ended = 0
    for _ in range(steps):
        batch.step(batch.sample())
        assert np.array_equal(batch.to_play, batch.seats)
        for b in np.flatnonzero(batch.done):
            ended += 1
            result = batch.finished(int(b)).result
            assert result is not None
            mine = int(batch.rewards[b, batch.seats[b] - 1])
            assert mine == (0 if result.winner is None else (1 if result.winner == batch.seats[b] else -1))
            learner[int(mine > 0)] += 1
    for g in range(size):  # the opponent played its seat
        game = batch.game(g)
        assert any(k.owner != batch.seats[g] for k in game.to_position().board.values()) or game.turn <= 2
    if native:
        assert ended >= 20
        if opponent == "greedy":
            assert learner[1] < 0.1 * ended  # a random learner against the greedy bot: nearly always lost


def test_a_batch_refuses_an_unknown_opponent_or_seat() -> None:
    with pytest.raises(ValueError, match="opponent 'scout'"):  # a bot, but not one the batch plays
        core.Batch(2, opponent="scout")
    with pytest.raises(ValueError, match="seats: one learner's seat"):
        core.Batch(2, opponent="random", seats=[1, 3])
    with pytest.raises(ValueError, match="seats: one learner's seat"):
        core.Batch(2, opponent="random", seats=[1])


@pytest.mark.parametrize("batch_class", [core.Batch, _python.Batch], ids=["core", "python"])
def test_a_batch_gives_the_greedy_numbers_of_every_game_from_its_deciders_view(batch_class: type) -> None:
    """``Batch.greedy_scores`` is ``features.raw_scores`` of each game's decider's view: the ids of
    its mask, ascending, and the same numbers (nothing hidden from the decider changes them)."""
    from lordsofwar.bots.features import raw_scores

    batch = batch_class(6, seed=8, opponent="greedy")
    for _ in range(12 if batch_class is _python.Batch else 40):
        ids, raw, ptr = batch.greedy_scores()
        assert ptr.shape == (batch.size + 1,) and ptr[-1] == len(ids) == len(raw)
        for b in range(batch.size):
            game = batch.game(b)
            want_ids, want = raw_scores(game.view(game.decider))
            got = slice(int(ptr[b]), int(ptr[b + 1]))
            assert np.array_equal(ids[got], want_ids) and np.array_equal(want_ids, np.flatnonzero(batch.mask[b]))
            np.testing.assert_allclose(raw[got], want, rtol=1e-6)
        batch.step(batch.sample())
