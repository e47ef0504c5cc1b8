"""What a player may know of the cards left in a deck (Yucata's deck hover).

A deck is a pile of face-down cards: its order is secret from everyone, and so is its content,
except for what follows from what a player has seen. A player knows the list of the deck they
play with; the opponent of a player with a *standard army deck* knows that army's standard list
(the army shown beside the name says so); of a custom or mercenary deck the opponent knows only
the number of cards. Subtracting the cards that are out in the open (units on the mat, the lost
pile, a hand the viewer can see) leaves the cards that can only be in the deck, or, when the
owner's hand is hidden from the viewer, in the deck or the hand.

:func:`deck_cards` depends on the hidden cards only through what the viewer sees of them: any
other deal consistent with the viewer's view gives the same answer (tests/test_knowledge.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from lordsofwar.rules.cards import DECK_SIZE
from lordsofwar.rules.events import Event
from lordsofwar.rules.notation import hand_visible
from lordsofwar.rules.state import Position


def _minus(base: Iterable[str], seen: Iterable[str | None]) -> list[str]:
    left = Counter(base)
    for card in seen:
        if card is not None and left[card] > 0:
            left[card] -= 1
    return sorted(left.elements())


def _public_list(pos: Position, player: int, dealt: Sequence[str]) -> list[str]:
    """The standard list of ``player``'s army (the army shown beside their name)."""
    army = pos.armies[player]
    if army not in pos.cards.armies or len(pos.cards.army(army)) != DECK_SIZE:
        army = pos.cards.standard_army_of(dealt) or ""
    return pos.cards.standard_deck(army) if army else []


def side_cards(
    pos: Position, viewer: int | None, player: int, dealt: Sequence[str], standard: bool
) -> dict[str, Any] | None:
    """What ``viewer`` may know of the cards left in ``player``'s deck, unordered (sorted by id):
    ``{"cards": [...], "includes_hand": bool}``, or None when the viewer knows only the count.

    ``includes_hand`` True: the owner's hand is hidden from the viewer, so the cards listed are
    in the deck or in that hand."""
    on_mat = [kind.id for kind in pos.board.values() if kind.owner == player]
    seen: list[str | None] = [*on_mat, *pos.lost[player]]
    if viewer == player:
        base: list[str] = list(dealt)
    elif standard:
        base = _public_list(pos, player, dealt)
    else:
        return None
    visible = hand_visible(pos, viewer, player)
    if visible:
        seen.extend(pos.hands[player])
    return {"cards": _minus(base, seen), "includes_hand": not visible}


def deck_cards(
    pos: Position,
    viewer: int | None,
    decks: Sequence[Sequence[str]],
    standard: Sequence[bool] | None = None,
) -> dict[str, dict[str, Any] | None]:
    """For each player ("1", "2"): :func:`side_cards` for ``viewer`` (None: a spectator).

    ``decks`` are the two dealt deck lists (player 1's first); ``standard`` says whether each is
    a standard army deck (default: worked out from the lists)."""
    if standard is None:
        standard = [pos.cards.standard_army_of(deck) is not None for deck in decks]
    return {str(p): side_cards(pos, viewer, p, decks[p - 1], bool(standard[p - 1])) for p in (1, 2)}


def known_hands(events: Iterable[Event], viewer: int | None = None) -> dict[int, list[str]]:
    """The hand cards of each player that are in the open, from a game's public events in order
    (the ``events`` of its log entries): a forced deployment reveals the whole hand (3.4), a
    recalled unit goes back to the hand face up (7.3); a deployment takes its card out, a draw
    adds a card nobody else sees. What is returned is a multiset each player's hand is known to
    contain (sorted), for every player but ``viewer``, whose own hand needs no such reasoning."""
    known: dict[int, Counter[str]] = {1: Counter(), 2: Counter()}
    for e in events:
        if e["type"] == "reveal":
            known[e["player"]] = Counter(c for c in e["hand"] if c is not None)
        elif e["type"] == "deploy":
            hand = known[e["player"]]
            if hand[e["card"]] > 0:
                hand[e["card"]] -= 1
        elif e["type"] == "recall":
            known[e["player"]][e["card"]] += 1
    return {p: sorted(k.elements()) for p, k in known.items() if p != viewer}
