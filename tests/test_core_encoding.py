"""The integer action encoding (docs/core.md) and the ``Game`` face of ``lordsofwar.core`` (the
Python fallback, and the native core when it is built), held to the rules engine: ids are unique,
decode to the actions they encode, read from the decider's side; views, filled worlds and
playouts agree with ``notation``."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from helpers import STRIDER, berserker_choice_game, card_set_with, make_position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import GameSetup, StepCheck, games, holdings, leaked_ids, play

from lordsofwar import core
from lordsofwar.core import _python, encoding
from lordsofwar.core.encoding import FrameError
from lordsofwar.rules import mat, notation
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.errors import (
    HiddenInformationError,
    IllegalActionError,
    InvalidActionError,
    NotationError,
)
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import parse_position, position_to_json
from lordsofwar.rules.state import Action, Position, Variant

GAMES: list[Any] = [pytest.param(_python.Game, id="python")]
if core.IMPLEMENTATION == "native":
    from lordsofwar.core import _native

    GAMES.append(pytest.param(_native.Game, id="native"))


@pytest.fixture(scope="module", params=GAMES)
def Game(request: pytest.FixtureRequest) -> Any:
    """``lordsofwar.core.Game`` of each available implementation (the Python fallback always)."""
    return request.param


GAME_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

MOVER = STRIDER
LONGBOW = {
    "id": "test:02",
    "name": "Test Longbow",
    "rank": "regular",
    "class": "ranged",
    "defence": 2,
    "attacks": "F1",
    "moves": "F B",
    "ranged": {"damage": 3, "grid": ["#...", "....", "...#", ".U.."]},
}
PACK = card_set_with(MOVER, LONGBOW)
"""The core cards plus a unit that moves in every direction and a moving archer whose target
grid adds offsets (-1, 3) and (2, 1) to the core set's 18."""


def pack_decks(rng: random.Random) -> list[list[str]]:
    """Two standard decks with some regulars swapped for the pack's movers and archers."""
    decks = []
    for _ in range(2):
        deck = CORE.standard_deck(rng.choice(CORE.armies))
        regulars = [i for i, c in enumerate(deck) if CORE[c].rank == "regular"]
        for i in rng.sample(regulars, 4):
            deck[i] = rng.choice(["test:01", "test:02"])
        decks.append(deck)
    return decks


def squares_of(action: Action) -> list[int]:
    """The squares an action's id is read from."""
    sq = action.to if action.kind == "deploy" else action.frm
    return [] if sq is None else [sq]


def check_encoding(pos: Position, Game: Any) -> None:
    """Every legal action has a unique id in range that decodes back to it; ``legal_ids`` lists
    exactly those ids, ascending; the Game face agrees."""
    actions = pos.legal_actions()
    frame = encoding.frame_of(pos)
    try:
        ids = [encoding.action_id(pos, a) for a in actions]
    except FrameError:
        assert not pos.variant.bordered
        outside = [a for a in actions for sq in squares_of(a) if not _inside(frame, sq)]
        assert outside, "FrameError with every action inside the frame"
        with pytest.raises(FrameError):
            encoding.legal_ids(pos)
        return
    n = encoding.num_actions(pos)
    assert len(set(ids)) == len(ids)
    assert all(0 <= i < n for i in ids)
    assert [encoding.action_from_id(pos, i) for i in ids] == actions
    assert encoding.legal_ids(pos) == sorted(ids)
    game = Game.from_position(pos)
    assert game.legal_ids() == sorted(ids)
    assert game.num_actions == n
    assert [game.action_text(i) for i in ids] == [str(a) for a in actions]
    assert [game.action_id(str(a)) for a in actions] == ids


def _inside(frame: encoding.Frame, sq: int) -> bool:
    x, y = mat.coords(sq)
    return frame.ox <= x < frame.ox + frame.width and frame.oy <= y < frame.oy + frame.height


def sampled(rng: random.Random, rate: float, check: Callable[[Position, Action, Position], None]) -> StepCheck:
    """An ``on_step`` for ``play`` that runs ``check(before, action, after)`` at about ``rate``
    of the steps."""

    def on_step(before: Position, action: Action, after: Position, events: list[Event]) -> None:
        if rng.random() < rate:
            check(before, action, after)

    return on_step


# --- the id space ----------------------------------------------------------------------------


def test_bordered_core_mat_has_1724_action_ids(Game: Any) -> None:
    game = Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 1)
    assert len(encoding.shot_offsets(CORE)) == 18
    assert game.num_actions == 1724 == 6 * 42 + 42 * 18 + 17 * 42 + 2


def test_unbordered_id_space_is_the_frame_times_the_action_kinds(Game: Any) -> None:
    game = Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 1, Variant(mat="unbordered"))
    n = 21 * 21
    assert game.num_actions == 6 * n + n * 18 + 17 * n + 2


def test_shot_offsets_are_the_sorted_union_of_the_target_grids() -> None:
    offsets = encoding.shot_offsets(PACK)
    assert list(offsets) == sorted(set(encoding.shot_offsets(CORE)) | {(-1, 3), (2, 1)})
    assert encoding.shot_offsets(PACK) is offsets  # cached


def test_player_2_reads_the_frame_turned_by_half_a_turn() -> None:
    pos = make_position(board={"d3": ("orcs:01", 1), "d4": ("elves:01", 2)})
    frame1 = encoding.frame_of(pos)
    pos.to_move = 2
    frame2 = encoding.frame_of(pos)
    assert (frame1.decider, frame2.decider) == (1, 2)
    for name, k1, k2 in (("a1", 0, 41), ("g1", 6, 35), ("a2", 7, 34), ("g6", 41, 0), ("a6", 35, 6)):
        sq = mat.parse(name)
        assert (frame1.index(sq), frame2.index(sq)) == (k1, k2)
        assert frame1.square(k1) == sq == frame2.square(k2)
    up = mat.delta(0, 1)
    assert frame1.direction(up) == 0 and frame2.direction(up) == 4  # F for player 1, B for player 2
    assert frame1.direction(mat.delta(1, 1)) == 1 and frame2.direction(mat.delta(-1, -1)) == 1
    for d in range(8):
        assert frame1.direction(frame1.delta(d)) == d == frame2.direction(frame2.delta(d))
        assert frame2.delta(d) == -frame1.delta(d)


def test_opening_deployments_of_both_players_have_the_same_ids(Game: Any) -> None:
    """c3 for player 1 and e4 for player 2 are the same square of their frames (1.3)."""
    game = Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 7)
    first = game.legal_ids()
    assert first == [slot * 42 + 2 * 7 + 2 for slot in range(6)]
    game.apply_id(first[0])
    game.apply("draw")
    assert game.decider == 2
    assert game.legal_ids() == first


def mirrored(pos: Position) -> Position:
    """The start-of-turn position seen from the other seat: the board turned by 180 degrees, the
    owners, hands, decks and lost piles swapped."""
    doc = position_to_json(pos)
    assert "turn_state" not in doc
    doc["to_move"] = 3 - doc["to_move"]
    turned = []
    for e in doc["board"]:
        x, y = mat.coords(mat.parse(e["square"]))
        turned.append({"square": mat.name(mat.square(6 - x, 5 - y)), "card": e["card"], "owner": 3 - e["owner"]})
    doc["board"] = turned
    doc["players"] = {"1": doc["players"]["2"], "2": doc["players"]["1"]}
    return parse_position(doc, pos.cards)


@GAME_SETTINGS
@given(setup=games(), seed=st.integers(0, 2**32 - 1))
def test_legal_ids_agree_with_the_engine_in_random_games(Game: Any, setup: GameSetup, seed: int) -> None:
    rng = random.Random(seed)

    def check(before: Position, action: Action, after: Position) -> None:
        check_encoding(before, Game)
        game = Game.from_position(before)
        game.apply_id(encoding.action_id(before, action))
        assert game.to_json() == position_to_json(after)
        if before.variant.bordered and not before.in_turn and before.turn > 2 and before.result is None:
            assert encoding.legal_ids(mirrored(before)) == encoding.legal_ids(before)

    play(setup, rng, sampled(rng, 0.2, check))


def test_moves_advances_and_pack_shots_round_trip_in_random_games(Game: Any) -> None:
    """Seeded games with a card pack whose units move in every direction and shoot at offsets
    the core cards lack, on both mats."""
    seen: Counter[str] = Counter()
    for seed in range(16):
        rng = random.Random(seed)
        variant = Variant(mat="bordered" if seed % 2 else "unbordered", rules="intermediate")
        pos = notation.deal(pack_decks(rng), seed, variant, PACK)
        while pos.result is None:
            actions = pos.legal_actions()
            if rng.random() < 0.3:
                check_encoding(pos, Game)
            action = rng.choice(actions)
            seen[action.kind] += 1
            pos.push(action)
    assert {"deploy", "shoot", "move", "recall", "draw"} <= set(seen)


def test_berserker_advance_ids_round_trip(Game: Any) -> None:
    decks, seed, actions = berserker_choice_game()
    pos = notation.deal(decks, seed)
    for action in actions:
        pos.push(action)
    advances = [a for a in pos.legal_actions() if a.kind == "advance"]
    assert advances and pos.phase == "advance"
    check_encoding(pos, Game)
    frame = encoding.frame_of(pos)
    for a in advances:
        assert frame.advance_base <= encoding.action_id(pos, a) < frame.move_base


def test_move_ids_name_the_direction_as_the_decider_faces() -> None:
    pos = make_position(
        board={"d3": ("test:01", 1), "d5": ("test:01", 2), "a1": ("orcs:09", 1)},
        cards=PACK,
        turn=9,
        to_move=2,
    )
    frame = encoding.frame_of(pos)
    moves = {str(a): a for a in pos.legal_actions() if a.kind == "move"}
    # Player 2 faces -y: its "forward" step goes from d5 to d4, its "right" from d5 to c5.
    forward = encoding.action_id(pos, moves["move d5 d4"])
    right = encoding.action_id(pos, moves["move d5 c5"])
    k = frame.index(mat.parse("d5"))
    assert k == (5 - 4) * 7 + (6 - 3)
    assert forward == frame.move_base + k * 8 + 0
    assert right == frame.move_base + k * 8 + 2


# --- the frame on the unbordered mat -------------------------------------------------------------


def test_unbordered_frame_is_centred_on_the_units(Game: Any) -> None:
    pos = make_position(
        board={"40,40": ("orcs:01", 1), "44,46": ("elves:01", 2), "41,41": ("orcs:09", 1)},
        variant={"mat": "unbordered"},
    )
    frame = encoding.frame_of(pos)
    assert (frame.ox, frame.oy, frame.width, frame.height) == (42 - 10, 43 - 10, 21, 21)
    assert frame.index(mat.square(42, 43)) == 10 * 21 + 10
    small = encoding.frame_of(pos, (5, 7))
    assert (small.ox, small.oy) == (42 - 2, 43 - 3)
    check_encoding(pos, Game)


def test_unbordered_frame_of_an_empty_mat_is_centred_on_the_printed_mat(Game: Any) -> None:
    pos = make_position(variant={"mat": "unbordered"}, hands={1: ["orcs:09"]}, turn=5)
    frame = encoding.frame_of(pos)
    assert (frame.ox, frame.oy) == (3 - 10, 2 - 10)
    check_encoding(pos, Game)  # the special free deployment on the 42 printed squares


def test_frame_centre_rounds_down_for_negative_coordinates() -> None:
    pos = make_position(board={"-3,-4": ("orcs:01", 1), "0,0": ("elves:01", 2)}, variant={"mat": "unbordered"})
    frame = encoding.frame_of(pos)
    assert (frame.ox, frame.oy) == (-2 - 10, -2 - 10)


def test_units_spread_wider_than_the_frame_raise_frame_error(Game: Any) -> None:
    pos = make_position(
        board={"0,0": ("orcs:01", 1), "30,0": ("elves:01", 2)},
        hands={1: ["orcs:09"]},
        variant={"mat": "unbordered"},
    )
    game = Game.from_position(pos)
    with pytest.raises(FrameError, match="outside the 21x21 frame"):
        game.legal_ids()
    assert game.legal()  # string actions always work
    with pytest.raises(FrameError):
        game.action_id("deploy orcs:09 1,0")

    class WideGame(Game):
        FRAME = (41, 41)

    wide = WideGame.from_position(pos)
    assert len(wide.legal_ids()) == len(game.legal())


# --- ids that name no legal action -------------------------------------------------------------


def test_apply_id_refuses_an_illegal_id_and_changes_nothing(Game: Any) -> None:
    game = Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 3)
    for _ in range(5):
        game.apply(random.Random(game.turn).choice(sorted(game.legal())))
    before = json.dumps(game.to_json())
    legal = set(game.legal_ids())
    rng = random.Random(0)
    for i in rng.sample(range(game.num_actions), 60) + [-1, game.num_actions]:
        if i in legal:
            continue
        with pytest.raises(IllegalActionError, match=f"action id {i}"):
            game.apply_id(i)
        assert json.dumps(game.to_json()) == before


def test_apply_id_message_names_the_decoded_action_and_the_rule(Game: Any) -> None:
    game = Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 3)
    with pytest.raises(IllegalActionError) as info:
        game.apply_id(0)  # deploy the first card on a1, on turn 1
    card = game.to_position().hands[1][0]
    assert str(info.value) == (
        f"action id 0: deploy {card} a1: turn 1 deploys only on the square marked 1, c3 (clarifications 1.3)"
    )


def test_a_deployment_id_names_the_first_slot_holding_the_card(Game: Any) -> None:
    pos = make_position(board={"d3": ("orcs:01", 1), "d4": ("elves:01", 2)}, hands={1: ["orcs:09", "orcs:09"]})
    game = Game.from_position(pos)
    first = game.action_id("deploy orcs:09 e3")
    assert first in game.legal_ids()
    second = first + 42
    with pytest.raises(InvalidActionError, match="hand slot 1 holds the same card as slot 0"):
        game.action_text(second)
    with pytest.raises(IllegalActionError, match=f"action id {second}: hand slot 1 holds the same card as slot 0"):
        game.apply_id(second)
    game.apply_id(first)
    assert game.to_position().hands[1] == ["orcs:09"]


def test_ids_that_decode_to_nothing_are_invalid() -> None:
    pos = make_position(board={"d3": ("orcs:01", 1)}, hands={1: ["orcs:09"]})
    n = encoding.num_actions(pos)
    for i in (-1, n, n + 100):
        with pytest.raises(InvalidActionError, match=f"action id {i}: out of range"):
            encoding.action_from_id(pos, i)
    with pytest.raises(InvalidActionError, match="action id 42: hand slot 1 is empty"):
        encoding.action_from_id(pos, 42)
    with pytest.raises(InvalidActionError, match="expected a whole number"):
        encoding.action_from_id(pos, True)
    assert encoding.action_from_id(pos, n - 1) == Action("pass")
    assert encoding.action_from_id(pos, n - 2) == Action("draw")


def test_actions_the_encoding_cannot_name_are_refused(Game: Any) -> None:
    pos = make_position(board={"d3": ("orcs:01", 1)}, hands={1: ["orcs:09"]})
    game = Game.from_position(pos)
    with pytest.raises(IllegalActionError, match="not in player 1's hand"):
        game.action_id("deploy orcs:02 c4")
    with pytest.raises(IllegalActionError, match="not a step to an adjacent square"):
        game.action_id("move d3 d5")
    with pytest.raises(IllegalActionError, match="targets"):
        game.action_id("shoot d3 d3")
    with pytest.raises(InvalidActionError):
        game.action_id("fly d3")


# --- the Game face ------------------------------------------------------------------------------


def test_game_deals_reads_and_writes_as_notation(Game: Any) -> None:
    decks = [CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")]
    variant = Variant(hands="visible")
    game = Game.deal(decks, 11, variant)
    assert game.to_json() == position_to_json(notation.deal(decks, 11, variant))
    game.apply(game.legal()[0])
    game.apply("draw")
    text = json.dumps(game.to_json())
    again = Game.from_json(text)
    assert again.to_json() == game.to_json()
    assert position_to_json(again.to_position()) == game.to_json()
    assert (again.turn, again.to_move, again.decider, again.phase, again.is_over, again.result) == (
        2,
        2,
        2,
        "pre",
        False,
        None,
    )
    if Game is _python.Game:
        assert repr(again) == "<Game python turn 2, player 2 to act, phase pre>"
    else:
        assert repr(again) == "<core.Game native turn=2 decider=2 phase=pre>"


def test_apply_returns_the_engine_events_and_refuses_as_the_engine(Game: Any) -> None:
    decks = [CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")]
    game = Game.deal(decks, 11)
    pos = notation.deal(decks, 11)
    action = game.legal()[0]
    assert game.apply(action) == pos.push(action)
    before = game.to_json()
    with pytest.raises(InvalidActionError):
        game.apply("deploy")
    with pytest.raises(IllegalActionError, match="already been made"):
        game.apply(action)
    assert game.to_json() == before


def test_clone_and_from_position_are_independent(Game: Any) -> None:
    pos = notation.deal([CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")], 2)
    game = Game.from_position(pos)
    copy = game.clone()
    copy.apply(copy.legal()[0])
    assert game.to_json() == position_to_json(pos)
    assert copy.to_json() != game.to_json()
    copy.to_position().hands[1].clear()
    assert copy.to_position().hands[1]


# --- views, hidden cards, worlds and playouts --------------------------------------------------


def true_hidden(pos: Position, view: Position) -> dict[int, dict[str, list[str]]]:
    """The cards of ``pos`` behind the unknown entries of its view ``view``, in order."""
    out: dict[int, dict[str, list[str]]] = {}
    for p in (1, 2):
        out[p] = {
            "hand": [c for c, v in zip(pos.hands[p], view.hands[p], strict=True) if v is None and c is not None],
            "deck": [c for c, v in zip(pos.decks[p], view.decks[p], strict=True) if v is None and c is not None],
        }
    return out


def check_worlds(Game: Any, pos: Position, viewer: int, seed: int) -> None:
    """The view hides what notation hides; filling it with the true cards gives the position
    back; a sampled world is full, agrees with the view, and keeps each army's cards."""
    game = Game.from_position(pos)
    view = game.view(viewer)
    doc = view.to_json()
    assert doc == position_to_json(notation.view(pos, viewer))
    assert not leaked_ids(pos, viewer, json.dumps(doc))
    truth = true_hidden(pos, view.to_position())
    assert view.hidden() == {p: {k: len(v) for k, v in places.items()} for p, places in truth.items()}
    assert view.fill(truth).to_json() == position_to_json(pos)
    pools = {p: truth[p]["hand"] + truth[p]["deck"] for p in (1, 2) if encoding.standard_pool(pos, p) is None}
    world = view.determinize(seed, pools)
    assert view.to_json() == doc  # the view is unchanged
    assert world.hidden() == {1: {"hand": 0, "deck": 0}, 2: {"hand": 0, "deck": 0}}
    wpos, vpos = world.to_position(), view.to_position()
    assert wpos.board == vpos.board and wpos.lost == vpos.lost
    for p in (1, 2):
        assert [len(wpos.hands[p]), len(wpos.decks[p])] == [len(vpos.hands[p]), len(vpos.decks[p])]
        assert all(v is None or w == v for w, v in zip(wpos.hands[p], vpos.hands[p], strict=True))
        if p not in pools:
            assert holdings(wpos, p) == Counter(CORE.standard_deck(pos.armies[p]))
        else:
            assert holdings(wpos, p) == holdings(pos, p)
    assert view.determinize(seed, pools).to_json() == world.to_json()


@GAME_SETTINGS
@given(setup=games(), seed=st.integers(0, 2**32 - 1))
def test_views_and_sampled_worlds_in_random_games(Game: Any, setup: GameSetup, seed: int) -> None:
    rng = random.Random(seed)

    def check(before: Position, action: Action, after: Position) -> None:
        check_worlds(Game, after, rng.choice((1, 2)), rng.randrange(1000))

    play(setup, rng, sampled(rng, 0.05, check))


def test_fill_refuses_missing_extra_and_unknown_cards(Game: Any) -> None:
    game = Game.deal([CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")], 2)
    view = game.view(1)
    assert view.hidden() == {1: {"hand": 0, "deck": 30}, 2: {"hand": 6, "deck": 30}}
    hand2 = CORE.standard_deck("dwarves")[:6]
    deck2 = CORE.standard_deck("dwarves")[6:]
    deck1 = CORE.standard_deck("orcs")[6:]
    before = view.to_json()
    cases: list[tuple[Any, str]] = [
        ({2: {"hand": hand2, "deck": deck2}}, "player 1's deck has 30 unknown cards, 0 given"),
        ({1: {"deck": deck1}, 2: {"hand": hand2[:5], "deck": deck2}}, "player 2's hand has 6 unknown cards, 5 given"),
        ({1: {"deck": deck1, "hand": ["orcs:01"]}, 2: {"hand": hand2, "deck": deck2}}, "player 1's hand has 0"),
        ({1: {"deck": deck1[:-1] + ["orcs:99"]}, 2: {"hand": hand2, "deck": deck2}}, r"deck\[29\]: unknown card"),
        ({1: {"deck": deck1}, 2: {"hand": hand2, "deck": deck2}, 3: {}}, "players are 1 and 2"),
        ({1: {"deck": deck1, "lost": []}, 2: {"hand": hand2, "deck": deck2}}, "unknown place 'lost'"),
        ({1: {"deck": "orcs:01"}, 2: {"hand": hand2, "deck": deck2}}, "expected a list of card ids"),
    ]
    for given_cards, message in cases:
        with pytest.raises(NotationError, match=message):
            view.fill(given_cards)
    assert view.to_json() == before
    world = view.fill({1: {"deck": deck1}, 2: {"hand": hand2, "deck": deck2}})
    assert world.to_position().hands[2] == hand2


def test_determinize_needs_a_pool_for_a_custom_deck(Game: Any) -> None:
    decks = [CORE.standard_deck("orcs"), CORE.standard_deck("dwarves")]
    i = next(i for i, c in enumerate(decks[1]) if CORE[c].rank == "recruit")
    decks[1][i] = next(c for c in CORE.standard_deck("elves") if CORE[c].rank == "recruit")
    game = Game.deal(decks, 2)
    assert game.to_position().armies[2] == "mercenary"
    view = game.view(1)
    with pytest.raises(NotationError, match="a pool is needed for player 2"):
        view.determinize(1)
    with pytest.raises(NotationError, match="player 2's pool holds 3 cards, 36 are unknown"):
        view.determinize(1, {2: decks[1][:3]})
    world = view.determinize(1, {2: decks[1]})
    assert world.hidden()[2] == {"hand": 0, "deck": 0}


def test_playout_is_reproducible_and_ends_with_a_result(Game: Any) -> None:
    world = Game.deal([CORE.standard_deck("elves"), CORE.standard_deck("undead")], 5).view(2).determinize(9)
    for policy in ("uniform", "greedy"):
        first, second = world.clone(), world.clone()
        result = first.playout(42, policy)
        assert result is not None and result == first.result and first.is_over
        assert second.playout(42, policy) == result
        assert second.to_json() == first.to_json()
    assert world.turn == 1  # playouts ran on clones


def test_playout_stops_after_max_turns(Game: Any) -> None:
    game = Game.deal([CORE.standard_deck("elves"), CORE.standard_deck("undead")], 5)
    assert game.playout(1, max_turns=0) is None and game.turn == 1
    assert game.playout(1, max_turns=4) is None
    assert game.turn == 5 and game.legal()


def test_greedy_playout_prefers_an_eliminating_deployment(Game: Any) -> None:
    # Deployed on c4, the Goblin Shanker (F4) or the Orc Butcher (F4) eliminates the Dwarf
    # Slugger on c5 (defence 3); the Shanker on d4 (FL1) would only engage it.
    pos = make_position(board={"d3": ("orcs:01", 1), "c5": ("dwarves:23", 2)}, hands={1: ["orcs:09", "orcs:08"]})
    for seed in range(10):
        game = Game.from_position(pos)
        game.playout(seed, "greedy", max_turns=1)
        assert game.to_position().lost[2] == ["dwarves:23"]


def test_playout_refuses_a_view_and_an_unknown_policy(Game: Any) -> None:
    game = Game.deal([CORE.standard_deck("elves"), CORE.standard_deck("undead")], 5)
    with pytest.raises(HiddenInformationError):
        game.view(1).playout(1)
    with pytest.raises(ValueError, match="unknown policy"):
        game.playout(1, "clever")
