"""The search levels as opponents inside the compiled batch (src/core/batch.cpp, ``SEARCH_OPPONENT``):
what the opponent searches from is what the search bot would be given, it knows no more, and it
plays as the search plays."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
from helpers import make_position

from lordsofwar import core
from lordsofwar.bots.search import sampling_spec
from lordsofwar.core import _python
from lordsofwar.core.batching import OPPONENTS, SEARCH_OPPONENTS
from lordsofwar.rules import notation
from lordsofwar.rules.actions import parse_action
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.position import Variant

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the compiled core is not built")


def test_every_search_level_is_an_opponent_of_the_batch() -> None:
    from lordsofwar.bots.search import LEVELS

    assert set(SEARCH_OPPONENTS) == set(LEVELS)
    assert set(SEARCH_OPPONENTS) <= set(OPPONENTS)


def test_search_opponents_refuse_what_they_cannot_play() -> None:
    with pytest.raises(ValueError, match="compiled core only"):
        _python.Batch(2, opponent="recruit")
    deck = list(CORE.standard_deck(CORE.armies[0]))
    # A custom deck: one card of the first army for one of the same rank from the second.
    rank = CORE.card(deck[-1]).rank
    other = next(c for c in CORE.standard_deck(CORE.armies[1]) if CORE.card(c).rank == rank)
    custom = [*deck[:-1], other]
    CORE.validate_deck(custom)
    with pytest.raises(ValueError, match="standard army decks only"):
        core.Batch(2, opponent="recruit", decks=[deck, custom])
    with pytest.raises(ValueError, match="only a search opponent"):
        core.Batch(2, opponent="greedy").opponent_view(0)
    with pytest.raises(ValueError, match="only a search opponent"):
        _python.Batch(2, opponent="greedy").opponent_view(0)
    with pytest.raises(IndexError):
        core.Batch(2, opponent="recruit").opponent_view(2)
    with pytest.raises(ValueError, match="opponent 'grandmaster'"):
        core.Batch(2, opponent="grandmaster")


def test_a_forced_deployment_shows_the_whole_hand_to_the_opponent() -> None:
    """``note_shown`` against ``known_hands`` at a forced deployment (3.4: the hand, the placed
    card included, is revealed; the placed card then leaves it) and at the same position with a
    card already known."""
    from lordsofwar.core._native import _KIND_INDEX

    pos = make_position(board={"a1": ("dwarves:06", 2)}, hands={1: ["orcs:09", "orcs:01", "orcs:09"]})
    game: Any = core.Game.from_position(pos)
    index = game._t.index
    ids = game._t.ids
    for before in ([], ["orcs:01"]):
        for text in game.legal():
            events = game.clone().apply(text)
            assert events[0]["type"] == "reveal"  # a forced deployment
            earlier: list[Any] = [{"type": "recall", "player": 1, "card": c} for c in before]  # a card shown before
            expected = known_hands([*earlier, *events], 2)[1]
            action = parse_action(text, game)
            got = game._s.shown_after(
                _KIND_INDEX[action.kind],
                index[action.card],
                action.frm or 0,
                action.to or 0,
                [index[c] for c in before],
            )
            assert sorted(ids[c] for c in got) == expected


def _learner_events(batch: Any, b: int, action_id: int) -> list[dict[str, Any]]:
    """The public events of the learner's action ``action_id`` in game ``b`` (applied to a copy)."""
    game = batch.game(b)
    return list(game.apply(game.action_text(action_id)))


def _hands(pos: Any) -> list[list[str | None]]:
    return [list(pos.hands[1]), list(pos.hands[2])]


@pytest.mark.parametrize("variant", [Variant(), Variant(mat="unbordered")], ids=["bordered", "unbordered"])
def test_the_opponent_searches_from_what_the_search_bot_is_given(variant: Variant) -> None:
    """At every learner decision of 8 games (1,040 in all, recalls among them): the hand cards the opponent has seen are those of ``known_hands`` over the
    learner's public events, and its view and pools are those of ``sampling_spec`` (the search
    bot's) for that view and knowledge, as multisets."""
    size = 8
    batch: Any = core.Batch(size, seed=11, variant=variant, frame=(9, 9), opponent="recruit")
    events: list[list[Any]] = [[] for _ in range(size)]
    checked = shown_checked = forced = recalled = 0
    for _ in range(130):
        for b in range(size):
            learner = int(batch.seats[b])
            opponent = 3 - learner
            game = batch.game(b)
            assert game.decider == learner
            view, pool1, pool2, shown = batch.opponent_view(b)
            expected = known_hands(events[b], opponent).get(learner, [])
            assert sorted(shown) == expected
            shown_checked += bool(shown)
            pos = game.to_position()
            want, pools = sampling_spec(notation.view(pos, opponent), {learner: expected}, None, random.Random(0))
            got = view.to_position()
            assert [Counter(h) for h in _hands(got)] == [Counter(h) for h in _hands(want)]
            assert got.hands[opponent] == want.hands[opponent] == pos.hands[opponent]  # its own hand, in order
            assert all(c is None for p in (1, 2) for c in got.decks[p])  # no deck order, its own neither
            assert [len(got.decks[p]) for p in (1, 2)] == [len(pos.decks[p]) for p in (1, 2)]
            assert got.board == pos.board and got.lost == pos.lost
            assert Counter(pool1) == Counter(pools[1]) and Counter(pool2) == Counter(pools[2])
            # Nothing of the learner's hand beyond what was shown (and its general, which the deal
            # puts in every opening hand) reaches the opponent's view.
            extra = Counter(c for c in got.hands[learner] if c is not None) - Counter(expected)
            assert all(CORE.card(c).rank == "general" for c in extra.elements())
            checked += 1
        ids = batch.sample().copy()
        for b in range(size):
            learner_events = _learner_events(batch, b, int(ids[b]))
            kinds = [e["type"] for e in learner_events]
            forced += "reveal" in kinds
            recalled += "recall" in kinds
            events[b].extend(learner_events)
        batch.step(ids)
        for ended in np.flatnonzero(batch.done):
            events[int(ended)] = []
    assert checked == 130 * size
    # Recalls are common in random play, forced deployments rare (the test above holds those).
    assert recalled and shown_checked, (forced, recalled, shown_checked)


def test_a_search_opponent_beats_a_random_learner() -> None:
    batch = core.Batch(16, seed=3, opponent="recruit")
    learner_won = finished = 0
    while finished < 24:
        batch.step(batch.sample())
        for b in np.flatnonzero(batch.done):
            finished += 1
            learner_won += int(batch.rewards[b, int(batch.seats[b]) - 1] > 0)
    assert learner_won <= 2, (learner_won, finished)


def test_a_batch_with_a_search_opponent_repeats_from_its_seed() -> None:
    def run() -> list[bytes]:
        batch = core.Batch(4, seed=9, opponent="recruit")
        rng = np.random.default_rng(1)
        out = []
        for _ in range(40):
            legal = [rng.choice(np.flatnonzero(m)) for m in batch.mask]
            batch.step(np.asarray(legal, np.int32))
            out.append(batch.planes.tobytes() + batch.mask.tobytes() + batch.rewards.tobytes())
        return out

    assert run() == run()


def test_the_vector_environment_plays_a_search_level() -> None:
    from lordsofwar.rl.vector import LordsOfWarVectorEnv

    env = LordsOfWarVectorEnv(4, opponent="recruit")
    obs, infos = env.reset(seed=2)
    rewards = []
    for _ in range(200):
        actions = np.asarray([np.random.default_rng(0).choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, reward, term, trunc, infos = env.step(actions)
        rewards.extend(reward[term].tolist())
    assert rewards and sum(r > 0 for r in rewards) <= len(rewards) // 4
