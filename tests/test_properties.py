"""Invariants of random games (Hypothesis): conservation, legality, replay, hiding, termination."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import GameSetup, games, holdings, leaked_ids, max_turns, play

from lordsofwar.rules import mat
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.errors import IllegalActionError, InvalidActionError
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import (
    dumps,
    parse_action,
    parse_position,
    position_to_json,
    replay,
    view,
    view_json,
)
from lordsofwar.rules.state import Action, Position

# Tuned so the whole file runs in well under a minute on two cores: the checks that list or apply
# many actions per step play fewer games than the cheap ones.
GAME_SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHEAP_SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
Events = list[Event]


def pos_json(pos: Position) -> str:
    return json.dumps(position_to_json(pos), sort_keys=True)


# --- cards and squares ---------------------------------------------------------------------------


@CHEAP_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_cards_are_conserved_and_units_keep_their_owner(setup: GameSetup, rng: random.Random) -> None:
    dealt = {p: Counter(setup.decks[p - 1]) for p in (1, 2)}

    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        for p in (1, 2):
            assert holdings(after, p) == dealt[p], f"player {p}'s cards changed after {action}"
        # Follow the board through the action and its events: nothing else may change.
        board = {sq: (u.id, u.owner) for sq, u in before.board.items()}
        if action.kind == "deploy":
            assert action.to is not None and action.card is not None
            board[action.to] = (action.card, before.to_move)
        for e in events:
            if e["type"] == "eliminated":
                sq = mat.parse(e["square"], False)
                assert board.pop(sq) == (e["card"], e["owner"])
            elif e["type"] in ("advance", "move"):
                unit = board.pop(mat.parse(e["from"], False))
                assert mat.parse(e["to"], False) not in board
                board[mat.parse(e["to"], False)] = unit
            elif e["type"] == "recall":
                assert board.pop(mat.parse(e["square"], False))[1] == before.to_move
        assert board == {sq: (u.id, u.owner) for sq, u in after.board.items()}, str(action)

    play(setup, rng, check)


@CHEAP_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_no_two_units_share_a_square(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        squares = [e["square"] for e in position_to_json(after)["board"]]
        assert len(squares) == len(set(squares)), str(action)
        if after.variant.bordered:
            assert all(sq in mat.ON_MAT for sq in after.board)

    play(setup, rng, check)


# --- legal and illegal actions -----------------------------------------------------------------


@GAME_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_listed_actions_are_unique_parse_back_and_apply(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        listed = after.legal_actions()
        texts = [str(a) for a in listed]
        assert len(set(texts)) == len(texts), "duplicate legal actions"
        assert sorted(set(texts)) == sorted(texts)
        for a in listed:
            assert parse_action(str(a), after) == a
        if after.is_over:
            assert listed == []
            return
        assert listed, "a running game must offer an action"
        before_text = pos_json(after)
        for a in rng.sample(listed, min(3, len(listed))):
            new, _ = after.apply(a)
            assert pos_json(new) != before_text, f"{a} changed nothing"
        assert pos_json(after) == before_text, "apply changed the original"

    play(setup, rng, check)


def illegal_candidates(pos: Position, rng: random.Random) -> list[Action]:
    """Random well-formed actions, most of them illegal now."""
    squares = sorted(mat.ON_MAT)
    if pos.board:
        squares += list(pos.board)
    if not pos.variant.bordered:
        squares += [mat.square(-1, 2), mat.square(7, 7)]
    hand = {c for c in pos.hands[pos.to_move] if c is not None}
    cards = [c for c in CORE if c not in hand]
    enemy = [sq for sq, u in pos.board.items() if u.owner != pos.to_move]
    out = [
        Action("draw"),
        Action("pass"),
        Action("deploy", rng.choice(cards), None, rng.choice(squares)),  # a card not in hand
        Action("recall", None, rng.choice(squares)),
        Action("shoot", None, rng.choice(squares), rng.choice(squares)),
        Action("advance", None, rng.choice(squares), rng.choice(squares)),
        Action("move", None, rng.choice(squares), rng.choice(squares)),
    ]
    if hand:
        out.append(Action("deploy", rng.choice(sorted(hand)), None, rng.choice(squares)))
    if enemy:
        out.append(Action("recall", None, rng.choice(enemy)))  # recall of an enemy unit
    return out


BAD_TEXTS = ["deploy orcs:07", "fly", "draw now", "recall", "deploy orcs:99 d4", "shoot d2  d5", "recall z9"]


@GAME_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_illegal_actions_are_refused_and_change_nothing(setup: GameSetup, rng: random.Random) -> None:
    refused = Counter[str]()

    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        legal = set(after.legal_actions())
        text = pos_json(after)
        for candidate in illegal_candidates(after, rng):
            if candidate in legal:
                continue
            try:
                after.push(candidate)
            except IllegalActionError as exc:
                assert str(candidate) in str(exc)
            else:
                raise AssertionError(f"{candidate} was accepted but is not listed as legal")
            assert pos_json(after) == text, f"refusing {candidate} changed the position"
            refused[candidate.kind] += 1
        bad = rng.choice(BAD_TEXTS)
        try:
            after.push(bad)
        except InvalidActionError:
            pass
        else:
            raise AssertionError(f"{bad!r} was accepted")
        assert pos_json(after) == text

    play(setup, rng, check)
    assert refused["deploy"] > 0 and refused["recall"] > 0


@CHEAP_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_draw_before_the_deployment_is_refused(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        if after.is_over or after.phase != "pre" or not any(a.kind == "deploy" for a in after.legal_actions()):
            return
        text = pos_json(after)
        for a in ("draw", "pass"):
            try:
                after.push(a)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"{a} accepted before the deployment")
            assert pos_json(after) == text

    play(setup, rng, check)


# --- apply, records, JSON ------------------------------------------------------------------------


@GAME_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_apply_leaves_the_original_unchanged_and_matches_push(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        text = pos_json(before)
        new, new_events = before.apply(action)
        assert pos_json(before) == text
        assert pos_json(new) == pos_json(after)
        assert new_events == events

    play(setup, rng, check)


@CHEAP_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_record_replays_to_the_same_positions(setup: GameSetup, rng: random.Random) -> None:
    docs = [pos_json(setup.deal())]
    final, actions = play(setup, rng, lambda _b, _a, after, _e: docs.append(pos_json(after)))
    record = setup.record(actions)
    record.result = final.result
    positions = replay(record)
    assert [pos_json(p) for p in positions] == docs


@GAME_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_json_round_trip_preserves_legal_actions(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        doc = position_to_json(after)
        again = parse_position(json.loads(dumps(doc)))
        assert position_to_json(again) == doc
        assert sorted(map(str, again.legal_actions())) == sorted(map(str, after.legal_actions()))
        assert again.decider == after.decider
        if "turn_state" in doc:
            assert doc["turn_state"]["decider"] == after.decider

    play(setup, rng, check)


# --- hidden information --------------------------------------------------------------------------


@GAME_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_views_never_show_a_hidden_card_or_the_deck_order(setup: GameSetup, rng: random.Random) -> None:
    def check(before: Position, action: Action, after: Position, events: Events) -> None:
        for viewer in (1, 2):
            doc = view_json(after, viewer)
            assert isinstance(doc["players"]["1"]["deck"], int)
            assert isinstance(doc["players"]["2"]["deck"], int)
            assert doc["players"]["1"]["deck"] == len(after.decks[1])
            opponent_hand = doc["players"][str(3 - viewer)]["hand"]
            assert len(opponent_hand) == len(after.hands[3 - viewer])
            if after.variant.hands == "hidden" and after.result is None:
                assert all(c is None for c in opponent_hand)
            assert doc["players"][str(viewer)]["hand"] == after.hands[viewer]
            assert not leaked_ids(after, viewer, dumps(doc))
        # The decider's view is enough to list the decider's legal actions.
        seen = view(after, after.decider)
        assert sorted(map(str, seen.legal_actions())) == sorted(map(str, after.legal_actions()))

    play(setup, rng, check)


# --- termination ---------------------------------------------------------------------------------


@CHEAP_SETTINGS
@given(games(), st.randoms(use_true_random=False))
def test_the_game_ends_within_a_bound(setup: GameSetup, rng: random.Random) -> None:
    final, actions = play(setup, rng)  # play() asserts the turn and per-turn bounds as it goes
    assert final.result is not None
    assert final.turn <= max_turns(setup.variant)
    assert final.result.winner in (None, 1, 2)
    assert final.legal_actions() == []
    assert len(actions) >= 4
