"""A small builder so rule tests read like the rules.

``make_position(board={"d3": ("orcs:07", 1)}, hands={1: ["orcs:09"]}, turn=9, to_move=1)`` builds
the notation document of a start-of-turn position (notation.md section 3) and reads it with
``notation.parse_position``, so every test also goes through the public reader.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lordsofwar.rules import mat
from lordsofwar.rules.cards import CORE, CardSet, parse_card_file
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import parse_position, position_to_json
from lordsofwar.rules.state import Position

# Filler decks so that a player can always draw unless a test says otherwise.
DEFAULT_DECKS: dict[int, list[str]] = {1: ["orcs:30", "orcs:33"], 2: ["dwarves:35", "dwarves:23"]}
DEFAULT_ARMIES: dict[int, str] = {1: "orcs", 2: "dwarves"}


def position_doc(
    board: Mapping[str, tuple[str, int]] | None = None,
    hands: Mapping[int, Sequence[str | None]] | None = None,
    decks: Mapping[int, Sequence[str | None] | int] | None = None,
    lost: Mapping[int, Sequence[str]] | None = None,
    variant: Mapping[str, Any] | None = None,
    turn: int = 9,
    to_move: int = 1,
    quiet_turns: int = 0,
    armies: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """The position document (notation.md section 3) of the arguments.

    ``board`` maps a square (``"d3"`` or ``"x,y"``) to ``(card, owner)``. Hands default to empty,
    decks to two filler cards each, lost piles to empty.
    """
    hands = hands or {}
    decks = DEFAULT_DECKS if decks is None else {**DEFAULT_DECKS, **decks}
    lost = lost or {}
    players: dict[str, Any] = {}
    for p in (1, 2):
        hand = list(hands.get(p, []))
        deck = decks.get(p, [])
        army = (
            (armies or {}).get(p) or _army_of([*hand, *(deck if isinstance(deck, list) else [])]) or DEFAULT_ARMIES[p]
        )
        players[str(p)] = {
            "army": army,
            "hand": hand,
            "deck": deck if isinstance(deck, int) else list(deck),
            "lost": list(lost.get(p, [])),
        }
    return {
        "format": "lordsofwar-position",
        "version": 1,
        "variant": dict(variant or {}),
        "turn": turn,
        "to_move": to_move,
        "quiet_turns": quiet_turns,
        "board": [{"square": sq, "card": card, "owner": owner} for sq, (card, owner) in (board or {}).items()],
        "players": players,
        "result": None,
    }


def _army_of(cards: Iterable[str | None]) -> str | None:
    for c in cards:
        if c is not None:
            return c.split(":")[0]
    return None


def make_position(
    board: Mapping[str, tuple[str, int]] | None = None,
    hands: Mapping[int, Sequence[str | None]] | None = None,
    decks: Mapping[int, Sequence[str | None] | int] | None = None,
    lost: Mapping[int, Sequence[str]] | None = None,
    variant: Mapping[str, Any] | None = None,
    turn: int = 9,
    to_move: int = 1,
    quiet_turns: int = 0,
    cards: CardSet = CORE,
    armies: Mapping[int, str] | None = None,
) -> Position:
    """A start-of-turn :class:`Position` read through ``notation.parse_position``."""
    doc = position_doc(board, hands, decks, lost, variant, turn, to_move, quiet_turns, armies)
    return parse_position(doc, cards)


def play(pos: Position, *actions: str) -> list[Event]:
    """Push the actions in order; return all their events."""
    events: list[Event] = []
    for a in actions:
        events.extend(pos.push(a))
    return events


def legal(pos: Position) -> set[str]:
    """The legal actions of the decider, as notation strings."""
    return {str(a) for a in pos.legal_actions()}


def board_of(pos: Position) -> dict[str, tuple[str, int]]:
    """The board as ``{square name: (card, owner)}``."""
    return {mat.name(sq): (u.id, u.owner) for sq, u in pos.board.items()}


def lost_of(pos: Position, player: int) -> Counter[str]:
    """A player's lost pile as a multiset."""
    return Counter(pos.lost[player])


def hand_of(pos: Position, player: int) -> Counter[str | None]:
    """A player's hand as a multiset."""
    return Counter(pos.hands[player])


def events_of(events: Iterable[Event], kind: str) -> list[Event]:
    """The events of one ``type``."""
    return [e for e in events if e.get("type") == kind]


def eliminated_squares(events: Iterable[Event]) -> set[str]:
    return {e["square"] for e in events if e["type"] == "eliminated"}


def turn_state(pos: Position) -> dict[str, Any]:
    """The ``turn_state`` object of the position's JSON (empty at the start of a turn)."""
    return position_to_json(pos).get("turn_state", {})


def deploys(pos: Position, card: str) -> set[str]:
    """The squares on which ``card`` may be deployed now."""
    return {a.split()[2] for a in legal(pos) if a.startswith(f"deploy {card} ")}


STRIDER: dict[str, Any] = {
    "id": "test:01",
    "name": "Test Strider",
    "rank": "regular",
    "class": "infantry",
    "defence": 3,
    "attacks": "F2 L1",
    "moves": "F FR R BR B BL L FL",
}
"""A pack card (card file schema) that moves in every direction: the core cards have no mover."""


def card_set_with(*cards: Mapping[str, Any], base: CardSet = CORE, title: str = "test pack") -> CardSet:
    """``base`` plus cards written in the card file schema (lordsofwar/rules/data/orcs.json)."""
    text = json.dumps({"format": "lordsofwar-cards", "version": 1, "title": title, "cards": list(cards)})
    return base.with_cards(parse_card_file(text, title), title)


def all_squares() -> list[str]:
    """The 42 printed squares, ``a1`` .. ``g6``."""
    return [f"{c}{r}" for c in "abcdefg" for r in range(1, 7)]


def neighbours(square: str) -> set[str]:
    """The on-mat squares adjacent to ``square``."""
    x, y = mat.coords(mat.parse(square))
    out = set()
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if (dx or dy) and 0 <= x + dx < 7 and 0 <= y + dy < 6:
                out.add(mat.name(mat.square(x + dx, y + dy)))
    return out


def berserker_choice_game() -> tuple[list[list[str]], int, list[str]]:
    """Decks, seed and actions of a game where player 1 must choose where a berserker advances
    (found by seeded random play with the engine)."""
    import random

    from lordsofwar.rules import notation

    decks = [CORE.standard_deck("orcs"), CORE.standard_deck("templars")]
    pos = notation.deal(decks, 15)
    rng = random.Random(15)
    actions: list[str] = []
    while not (pos.decider == 1 and any(a.kind == "advance" for a in pos.legal_actions())):
        assert pos.result is None and len(actions) < 300, "no berserker choice on this path"
        action = rng.choice(sorted(pos.legal_actions(), key=str))
        actions.append(str(action))
        pos.push(action)
    return decks, 15, actions
