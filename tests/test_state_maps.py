"""The maps a position keeps with its board (engagement, adjacency, ranged units) always equal
what a fresh computation from the board gives, through whole random games of every variant."""

from __future__ import annotations

import random

import pytest

from lordsofwar.rules import mat
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.notation import deal, parse_position, position_to_json
from lordsofwar.rules.state import Position, Variant


def rebuilt(pos: Position) -> Position:
    """A position with the same units placed one by one on an empty board."""
    fresh = Position(pos.cards, pos.variant)
    for sq, kind in pos.board.items():
        fresh.place(sq, kind)
    return fresh


def expected_attackers(pos: Position) -> dict[int, set[tuple[int, int]]]:
    """2.2 from first principles: every enemy arrow that points at a unit."""
    out: dict[int, set[tuple[int, int]]] = {}
    for s, u in pos.board.items():
        for d, v in u.attacks:
            w = pos.board.get(s + d)
            if w is not None and w.owner != u.owner:
                out.setdefault(s + d, set()).add((s, v))
    return out


def expected_near(pos: Position, player: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for s, u in pos.board.items():
        if u.owner != player:
            continue
        for i, d in enumerate(mat.NEIGHBOUR_DELTAS):
            t = s - d  # from t, direction d points at s
            if pos.variant.bordered and t not in mat.ON_MAT:
                continue
            out[t] = out.get(t, 0) | (1 << i)
    return out


def assert_maps_agree(pos: Position) -> None:
    assert {t: set(a) for t, a in pos.attackers.items()} == expected_attackers(pos)
    for p in (1, 2):
        assert pos.near[p] == expected_near(pos, p)
        assert pos.ranged[p] == {s for s, u in pos.board.items() if u.owner == p and u.targets}
    again = rebuilt(pos)
    assert {t: set(a) for t, a in again.attackers.items()} == expected_attackers(pos)


@pytest.mark.parametrize(
    "variant",
    [
        Variant(),
        Variant(rules="basic"),
        Variant(mat="unbordered"),
        Variant(hands="visible", units_to_win=15, commands_to_win=3),
    ],
    ids=["intermediate", "basic", "unbordered", "visible-15-3"],
)
def test_board_maps_stay_exact_through_random_games(variant: Variant) -> None:
    rng = random.Random(hash(variant.mat + variant.rules) & 0xFFFF)
    for _ in range(8):
        decks = [CORE.standard_deck(rng.choice(CORE.armies)) for _ in range(2)]
        pos = deal(decks, rng.randrange(2**31), variant)
        while pos.result is None:
            before = pos.copy()
            pos.push(rng.choice(pos.legal_actions()))
            assert_maps_agree(pos)
            assert_maps_agree(before)  # the copy was not changed by the push
        assert_maps_agree(parse_position(position_to_json(pos)))
