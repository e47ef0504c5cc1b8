"""Invariants of random games played on ``lordsofwar.core`` alone (Hypothesis), as
tests/test_properties.py holds them for the Python engine: conservation, one unit per square,
listed actions that parse back and apply, refusals that change nothing, independent clones,
JSON round trips, views that hide, and games that end."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import GameSetup, games, leaked_ids, max_turns

from lordsofwar import core
from lordsofwar.core import FrameError
from lordsofwar.rules.errors import IllegalActionError, InvalidActionError
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import parse_action, position_from_text

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
Step = Callable[[Any, str, Any, list[Event]], None]


def play(setup: GameSetup, rng: random.Random, on_step: Step | None = None) -> Any:
    """A whole random game on the core, choosing among the legal ids; ``on_step(before, action,
    after, events)`` after each action (``before`` is a clone)."""
    game = core.Game.deal(setup.decks, setup.seed, setup.variant)
    bound = max_turns(setup.variant)
    while not game.is_over:
        legal = game.legal()
        assert legal, f"no legal action in a running game: {json.dumps(game.to_json())}"
        action = rng.choice(sorted(legal))
        before = game.clone() if on_step else None
        events = game.apply(action)
        if on_step:
            on_step(before, action, game, events)
        assert game.turn <= bound, f"game still running at turn {game.turn} (bound {bound})"
    return game


def holdings(doc: dict[str, Any], player: int) -> Counter[str | None]:
    side = doc["players"][str(player)]
    on_board = [u["card"] for u in doc["board"] if u["owner"] == player]
    deck = side["deck"] if isinstance(side["deck"], list) else [None] * side["deck"]
    return Counter([*side["hand"], *deck, *on_board, *side["lost"]])


@SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_cards_are_conserved_and_no_two_units_share_a_square(setup: GameSetup, rng: random.Random) -> None:
    dealt = {p: Counter(setup.decks[p - 1]) for p in (1, 2)}

    def check(before: Any, action: str, after: Any, events: list[Event]) -> None:
        doc = after.to_json()
        for p in (1, 2):
            assert holdings(doc, p) == dealt[p], f"player {p}'s cards changed after {action}"
        squares = [u["square"] for u in doc["board"]]
        assert len(squares) == len(set(squares)), f"two units on one square after {action}"

    play(setup, rng, check)


@SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_listed_actions_are_unique_parse_back_and_have_ids(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Any, action: str, after: Any, events: list[Event]) -> None:
        if after.is_over:
            assert after.legal() == [] and after.legal_ids() == []
            return
        legal = after.legal()
        assert len(legal) == len(set(legal))
        for text in legal:
            assert str(parse_action(text, after)) == text
        try:
            ids = after.legal_ids()
        except FrameError:  # the units spread wider than the frame of integer actions
            assert not after.variant.bordered
            return
        assert ids == sorted(set(ids)) and all(0 <= i < after.num_actions for i in ids)
        assert sorted(after.action_text(i) for i in ids) == sorted(legal)

    play(setup, rng, check)


ILLEGAL = ["draw", "pass", "recall a1", "deploy orcs:01 a1", "shoot a1 a2", "move a1 a2", "advance a1 a2"]


@SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_illegal_actions_are_refused_and_change_nothing(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Any, action: str, after: Any, events: list[Event]) -> None:
        if after.is_over:
            return
        legal = set(after.legal())
        state = json.dumps(after.to_json(), sort_keys=True)
        for text in ILLEGAL:
            if text in legal:
                continue
            try:
                after.apply(text)
            except (IllegalActionError, InvalidActionError):
                pass
            else:
                raise AssertionError(f"{text} was accepted though not listed")
            assert json.dumps(after.to_json(), sort_keys=True) == state, f"refused {text} changed the game"
        try:
            legal_ids = set(after.legal_ids())
        except FrameError:  # the units spread wider than the frame of integer actions
            assert not after.variant.bordered
            return
        for i in (rng.randrange(after.num_actions) for _ in range(4)):
            if i in legal_ids:
                continue
            try:
                after.apply_id(i)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"action id {i} was accepted though not listed")
            assert json.dumps(after.to_json(), sort_keys=True) == state, f"refused id {i} changed the game"

    play(setup, rng, check)


@SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_clones_are_independent_and_json_round_trips(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Any, action: str, after: Any, events: list[Event]) -> None:
        # ``before`` is a clone taken before the action: applying it there gives the same game.
        state = json.dumps(before.to_json(), sort_keys=True)
        again = before.clone()
        assert again.apply(action) == events
        assert again.to_json() == after.to_json()
        assert json.dumps(before.to_json(), sort_keys=True) == state, "applying to a clone changed the original"
        text = json.dumps(after.to_json())
        read = core.Game.from_json(text, after.cards)
        assert read.to_json() == after.to_json()
        assert sorted(read.legal()) == sorted(after.legal())

    play(setup, rng, check)


@SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_views_never_show_a_hidden_card(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Any, action: str, after: Any, events: list[Event]) -> None:
        pos = after.to_position()
        for player in (1, 2):
            view = after.view(player)
            text = json.dumps(view.to_json())
            assert not leaked_ids(pos, player, text), f"player {player}'s view leaks a hidden card"
            planes, info = view.observation() if not view.is_over and view.decider == player else (None, None)
            if planes is not None:
                full_planes, full_info = after.observation()
                assert (planes == full_planes).all() and (info == full_info).all()

    play(setup, rng, check)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.integers(0, 2**63 - 1), st.sampled_from(["uniform", "greedy"]))
def test_playouts_end_within_the_bound_and_repeat_with_their_seed(setup: GameSetup, seed: int, policy: str) -> None:
    first = core.Game.deal(setup.decks, setup.seed, setup.variant)
    second = first.clone()
    result = first.playout(seed, policy)
    assert result is not None and first.is_over and first.turn <= max_turns(setup.variant)
    assert second.playout(seed, policy) == result and second.to_json() == first.to_json()
    position_from_text(json.dumps(first.to_json()))  # the reference reader takes the final position
