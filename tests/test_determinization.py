"""Determinization keeps what is public (docs/rl.md, "Determinization"): every sampled world of a
view (the core's ``Game.determinize``, the search bots' sampling, OpenSpiel's
``resample_from_infostate``) keeps each hand card in the open (a recalled unit, a forced
deployment's reveal) in its owner's hand, puts a general not in the open in its owner's hand
and never a general in a deck (the deal puts it in the opening hand; nothing goes back to a deck).

The decision points come from random and greedy games played on the core, thousands of them."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from lordsofwar import core
from lordsofwar.bots.search import sampling_spec
from lordsofwar.core import encoding
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.rules.position import Variant
from lordsofwar.rules.state import Position

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="thousands of decisions need the core")

ARMIES = [a for a in CORE.armies if len(CORE.army(a)) == 36]


def decision_points(games: int, seed: int) -> Iterator[tuple[Any, list[Any], str]]:
    """(game, public events so far, kind) at every decision of ``games`` games, half random, half
    greedy (a greedy player eliminates, so units are lost and recalled)."""
    rng = random.Random(seed)
    for g in range(games):
        decks = [CORE.standard_deck(rng.choice(ARMIES)) for _ in (1, 2)]
        variant = Variant(units_to_win=rng.choice((15, 20)), commands_to_win=rng.choice((3, 4)))
        game = core.Game.deal(decks, rng.randrange(2**31), variant)
        events: list[Any] = []
        greedy = g % 2 == 1
        while game.result is None:
            yield game, events, "greedy" if greedy else "random"
            legal = sorted(game.legal())
            action = rng.choice(legal)
            if greedy:  # the eliminating actions first, as the core's greedy playout chooses
                eliminating = [a for a in legal if _eliminates(game, a)]
                action = rng.choice(eliminating or legal)
            events.extend(game.apply(action))


def _eliminates(game: Any, action: str) -> bool:
    if not action.startswith(("shoot", "deploy")):
        return False
    trial = game.clone()
    return any(e["type"] == "eliminated" and e["owner"] != game.decider for e in trial.apply(action))


def generals(pos: Position, player: int) -> dict[str, int]:
    """Where ``player``'s general-rank cards are in a full position: {place: count}."""
    out: Counter[str] = Counter()
    rank = {c: CORE.card(c).rank for c in CORE}
    out["hand"] = sum(rank[c] == "general" for c in pos.hands[player] if c is not None)
    out["deck"] = sum(rank[c] == "general" for c in pos.decks[player] if c is not None)
    out["board"] = sum(rank[k.id] == "general" for k in pos.board.values() if k.owner == player)
    out["lost"] = sum(rank[c] == "general" for c in pos.lost[player])
    return dict(out)


def check_world(world: Position, truth: Position, viewer: int, known: dict[int, list[str]]) -> None:
    them = 3 - viewer
    assert not Counter(known.get(them, ())) - Counter(c for c in world.hands[them] if c is not None), (known, world.hands[them])
    for p in (1, 2):
        where = generals(world, p)
        assert where["deck"] == 0, f"a general in player {p}'s deck"
        assert sum(where.values()) == 1
        assert where == generals(truth, p)  # the general's place is public: hand, mat or lost pile
        assert world.board == truth.board and world.lost[p] == truth.lost[p]
        assert len(world.hands[p]) == len(truth.hands[p]) and len(world.decks[p]) == len(truth.decks[p])


def test_every_determinization_keeps_revealed_cards_and_generals_in_hand() -> None:
    points = recalls = 0
    sampler = random.Random(7)
    for game, events, _kind in decision_points(36, seed=11):
        points += 1
        truth = game.to_position()
        viewer = sampler.choice((1, 2))
        known = known_hands(events, viewer)
        recalls += bool(known[3 - viewer])
        # the core's
        world = game.view(viewer).determinize(sampler.randrange(2**31), known={3 - viewer: known[3 - viewer]})
        check_world(world.to_position(), truth, viewer, known)
        # the search's: the position and pools it samples from; the core fills the unknown hand
        # slots, then the deck, from a fresh shuffle of each pool at every iteration
        me = game.decider
        view = notation.view(truth, me)
        spec_pos, pools = sampling_spec(view, known_hands(events, me), None, sampler)
        fills = {}
        for p, pool in pools.items():
            assert all(CORE.card(c).rank != "general" for c in pool)
            sampler.shuffle(pool)
            in_hand = spec_pos.hands[p].count(None)
            fills[p] = {"hand": pool[:in_hand], "deck": pool[in_hand : in_hand + spec_pos.decks[p].count(None)]}
        spec_pos = encoding.fill_position(spec_pos, fills)
        check_world(spec_pos, truth, me, known_hands(events, me))
    assert points > 3000
    assert recalls > 1000  # many decision points follow a recall or a reveal


def test_openspiel_resampling_keeps_revealed_cards_and_generals_in_hand() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import lordsofwar.rl.spiel  # noqa: F401 - registers the game

    game = pyspiel.load_game("lords_of_war")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = np.random.default_rng(2)
    points = with_known = 0
    for _ in range(4):
        state = game.new_initial_state()
        while state.is_chance_node():  # the deal
            state.apply_action(int(rng.choice([o for o, _ in state.chance_outcomes()])))
        events: list[Any] = []  # the public events, from a copy of the game
        while not state.is_terminal():
            player = state.current_player()
            truth = state.core_game.to_position()
            known = known_hands(events, player + 1)
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == state.information_state_string(player)
            check_world(world.core_game.to_position(), truth, player + 1, known)
            points += 1
            with_known += bool(known[2 - player])
            action = int(rng.choice(state.legal_actions()))
            events.extend(state.core_game.clone().apply(state.core_game.action_text(action)))
            state.apply_action(action)
    assert points > 400 and with_known > 200
