"""Shared Hypothesis strategies and helpers: random decks, variants and games played by random legal actions."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from lordsofwar.rules.cards import CORE, RANKS
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import GameRecord, deal, position_to_json
from lordsofwar.rules.state import LENGTHS, Action, Position, Variant

CARDS_BY_RANK: dict[str, list[str]] = {r: sorted(c for c in CORE if CORE[c].rank == r) for r in RANKS}


def variants() -> st.SearchStrategy[Variant]:
    """Any variant: basic or intermediate, hidden or visible, bordered or unbordered, 15/3 20/4 25/5."""
    return st.builds(
        lambda rules, hands, mat, length, quiet: Variant(rules, hands, mat, *LENGTHS[length], quiet),
        st.sampled_from(["intermediate", "basic"]),
        st.sampled_from(["hidden", "visible"]),
        st.sampled_from(["bordered", "unbordered"]),
        st.sampled_from(sorted(LENGTHS)),
        st.sampled_from([40, 40, 40, 12, 3]),  # mostly the default, so most games run to a threshold
    )


@st.composite
def decks(draw: st.DrawFn) -> list[str]:
    """A standard core deck, or a mercenary deck made from one by same-rank swaps (8.4)."""
    deck = CORE.standard_deck(draw(st.sampled_from(CORE.armies)))
    if draw(st.booleans()):
        for i in draw(st.lists(st.integers(0, 35), max_size=12)):
            deck[i] = draw(st.sampled_from(CARDS_BY_RANK[CORE[deck[i]].rank]))
    return deck


@dataclass(frozen=True)
class GameSetup:
    decks: tuple[list[str], list[str]]
    seed: int
    variant: Variant

    def deal(self) -> Position:
        return deal(self.decks, self.seed, self.variant)

    def record(self, actions: Sequence[str] = ()) -> GameRecord:
        return GameRecord(
            [list(self.decks[0]), list(self.decks[1])], self.seed, self.variant, ["p1", "p2"], list(actions)
        )


def games() -> st.SearchStrategy[GameSetup]:
    """Two decks (random armies, sometimes mercenary), a seed and a variant."""
    return st.builds(
        lambda d1, d2, seed, variant: GameSetup((d1, d2), seed, variant),
        decks(),
        decks(),
        st.integers(0, 2**32 - 1),
        variants(),
    )


StepCheck = Callable[[Position, Action, Position, list[Event]], None]


def max_turns(variant: Variant) -> int:
    """An upper bound on the turns of any game (8.2, 8.3).

    Before the last turn neither player has reached the unit threshold, so at most
    ``2 * (units_to_win - 1)`` earlier turns eliminated something; between two of them at most
    ``no_progress_turns`` quiet turns pass.
    """
    return (2 * variant.units_to_win + 1) * (variant.no_progress_turns + 1)


MAX_ACTIONS_PER_TURN = 2 * 72 + 4
"""Shots (one per ranged unit) + one deployment + advances (one per elimination) + reinforcement."""


def play(
    setup: GameSetup,
    rng: random.Random,
    on_step: StepCheck | None = None,
    max_actions: int | None = None,
) -> tuple[Position, list[str]]:
    """Play random legal actions until the game ends; ``on_step(before, action, after, events)``.

    Returns the final position and the actions played (notation text).
    """
    pos = setup.deal()
    played: list[str] = []
    turn_bound = max_turns(setup.variant)
    per_turn = 0
    turn_key = (pos.turn, pos.to_move)
    while not pos.is_over:
        if max_actions is not None and len(played) >= max_actions:
            break
        actions = pos.legal_actions()
        assert actions, f"no legal action in a running game: {json.dumps(position_to_json(pos))}"
        action = rng.choice(actions)
        before = pos.copy() if on_step is not None else pos
        events = pos.push(action)
        played.append(str(action))
        if on_step is not None:
            on_step(before, action, pos, events)
        per_turn = per_turn + 1 if (pos.turn, pos.to_move) == turn_key else 0
        turn_key = (pos.turn, pos.to_move)
        assert per_turn <= MAX_ACTIONS_PER_TURN, f"turn {pos.turn} goes on for {per_turn} actions"
        assert pos.turn <= turn_bound, f"game still running at turn {pos.turn} (bound {turn_bound})"
    return pos, played


# --- invariants shared by example and property tests ------------------------------------------


def holdings(pos: Position, player: int) -> Counter[str | None]:
    """Every card of ``player``: hand + deck + own units on the board + lost."""
    on_board = [u.id for u in pos.board.values() if u.owner == player]
    return Counter([*pos.hands[player], *pos.decks[player], *on_board, *pos.lost[player]])


_ID_RE = re.compile(r'"([a-z][a-z0-9_-]*:[0-9]{2,3})"')


def leaked_ids(pos: Position, viewer: int, view_text: str) -> set[str]:
    """Card ids the viewer may not know of (9.2) that appear in the view's JSON text.

    Hidden: any deck, and the opponent's hand in the hidden-hands variant of a running game.
    An id is not a leak when it is also visible elsewhere (board, lost piles, own hand).
    """
    opponent = 3 - viewer
    hidden: set[str | None] = set(pos.decks[1]) | set(pos.decks[2])
    visible: set[str | None] = {u.id for u in pos.board.values()}
    visible |= set(pos.lost[1]) | set(pos.lost[2]) | set(pos.hands[viewer])
    if pos.variant.hands == "hidden" and pos.result is None:
        hidden |= set(pos.hands[opponent])
    else:
        visible |= set(pos.hands[opponent])
    secret = {c for c in hidden - visible if c is not None}
    return secret & set(_ID_RE.findall(view_text))
