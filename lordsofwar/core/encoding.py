"""The fixed integer action encoding (docs/core.md, "Integer actions"), over a rules position.

Ids are read from the decider's side of the mat: a *frame* of ``W x H`` squares (the printed
mat when bordered; ``FRAME`` centred on the units otherwise) whose square at column ``i`` (0 =
the decider's left) and row ``j`` (0 = the decider's near edge) has index ``k = j * W + i``.
Player 2's frame is player 1's turned by 180 degrees, so one policy can play both seats. With
``N = W * H``, ``T`` the sorted shot offsets of the card set (:func:`shot_offsets`), ``s`` the
first hand slot holding the card, ``t`` the index of the shot's offset in ``T`` and ``dir`` the
step's direction (0-7: F, FR, R, BR, B, BL, L, FL as the decider faces):

- ``deploy <card> <sq>``: ``s * N + k(sq)``
- ``shoot <from> <to>``: ``6N + k(from) * len(T) + t``
- ``advance <from> <to>``: ``6N + N*len(T) + k(from) * 8 + dir``
- ``move <from> <to>``: ``6N + N*len(T) + 8N + k(from) * 8 + dir``
- ``recall <sq>``: ``6N + N*len(T) + 16N + k(sq)``
- ``draw``: ``6N + N*len(T) + 17N``; ``pass``: one more.

This module is the pure-Python statement of the encoding; the native core implements the same
numbers and the tests hold both to it. It also fills a view's unknown cards
(:func:`fill_position`, :func:`determinize_position`), which both implementations share.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lordsofwar.rules import mat
from lordsofwar.rules.actions import DRAW, PASS, Action
from lordsofwar.rules.cards import DECK_SIZE, CardSet
from lordsofwar.rules.errors import (
    IllegalActionError,
    InvalidActionError,
    LordsOfWarError,
    NotationError,
    UnknownCardError,
)
from lordsofwar.rules.position import HAND_LIMIT
from lordsofwar.rules.state import Position

FRAME: tuple[int, int] = (21, 21)
"""The default ``(W, H)`` of the frame on the unbordered mat."""

HAND_SLOTS = HAND_LIMIT
"""Hand slots a deployment id can name (a hand holds at most six cards)."""

_PRINTED_BOX = (0, mat.WIDTH - 1, 0, mat.HEIGHT - 1)
"""``(minx, maxx, miny, maxy)`` of the printed mat: the frame's centre when no unit stands."""

_WORLD_DIR: dict[int, int] = {d: i for i, d in enumerate(mat.NEIGHBOUR_DELTAS)}


class FrameError(LordsOfWarError):
    """An action whose square falls outside the frame of integer actions (unbordered mat)."""


_SHOT_OFFSETS: dict[int, tuple[CardSet, tuple[tuple[int, int], ...], dict[tuple[int, int], int]]] = {}


def _shot_table(cards: CardSet) -> tuple[tuple[tuple[int, int], ...], dict[tuple[int, int], int]]:
    key = id(cards)
    entry = _SHOT_OFFSETS.get(key)
    if entry is None or entry[0] is not cards:
        offsets = tuple(sorted({t for card in cards.values() if card.ranged for t in card.ranged.targets}))
        entry = _SHOT_OFFSETS[key] = (cards, offsets, {t: i for i, t in enumerate(offsets)})
    return entry[1], entry[2]


def shot_offsets(cards: CardSet) -> tuple[tuple[int, int], ...]:
    """``T``: the sorted union of every ranged card's ``(right, forward)`` target offsets, in
    the card's own frame (18 for the core set; cached per card set)."""
    return _shot_table(cards)[0]


class Frame:
    """The rectangle of squares that integer actions are read in, from the decider's side.

    ``ox``, ``oy`` are the world coordinates of the frame's corner nearest ``(-inf, -inf)``;
    ``decider`` (1 or 2) is the player whose side the indices and directions are read from.
    ``offsets`` is the card set's ``T``. The id space starts at the ``*_base`` attributes.
    """

    __slots__ = (
        "ox",
        "oy",
        "width",
        "height",
        "decider",
        "offsets",
        "n",
        "shoot_base",
        "advance_base",
        "move_base",
        "recall_base",
        "draw_id",
        "pass_id",
        "num_actions",
        "_offset_index",
    )

    def __init__(self, ox: int, oy: int, width: int, height: int, decider: int, cards: CardSet):
        self.ox = ox
        self.oy = oy
        self.width = width
        self.height = height
        self.decider = decider
        self.offsets, self._offset_index = _shot_table(cards)
        n = self.n = width * height
        self.shoot_base = HAND_SLOTS * n
        self.advance_base = self.shoot_base + n * len(self.offsets)
        self.move_base = self.advance_base + 8 * n
        self.recall_base = self.move_base + 8 * n
        self.draw_id = self.recall_base + n
        self.pass_id = self.draw_id + 1
        self.num_actions = self.pass_id + 1

    def __repr__(self) -> str:
        return f"Frame(ox={self.ox}, oy={self.oy}, width={self.width}, height={self.height}, decider={self.decider})"

    def index(self, sq: int) -> int:
        """``k`` of an integer square; :class:`FrameError` when it lies outside the frame."""
        x, y = mat.coords(sq)
        i, j = x - self.ox, y - self.oy
        if not (0 <= i < self.width and 0 <= j < self.height):
            raise FrameError(
                f"{mat.name(sq)} is outside the {self.width}x{self.height} frame of integer actions "
                f"(x {self.ox} to {self.ox + self.width - 1}, y {self.oy} to {self.oy + self.height - 1})"
            )
        if self.decider == 2:
            i, j = self.width - 1 - i, self.height - 1 - j
        return j * self.width + i

    def square(self, k: int) -> int:
        """The integer square at index ``k`` (``0 <= k < N``) of the frame."""
        if not 0 <= k < self.n:
            raise FrameError(f"square index {k} is outside the frame (0 to {self.n - 1})")
        j, i = divmod(k, self.width)
        if self.decider == 2:
            i, j = self.width - 1 - i, self.height - 1 - j
        return mat.square(self.ox + i, self.oy + j)

    def direction(self, delta: int) -> int:
        """``dir`` 0-7 (F, FR, R, BR, B, BL, L, FL as the decider faces) of the world square
        delta to a neighbour; :class:`IllegalActionError` for any other delta."""
        world = _WORLD_DIR.get(delta)
        if world is None:
            raise IllegalActionError(f"a square delta of {delta} is not a step to an adjacent square")
        return world if self.decider == 1 else (world + 4) % 8

    def delta(self, direction: int) -> int:
        """The world square delta of ``dir`` 0-7 as the decider faces (inverse of :meth:`direction`)."""
        world = direction if self.decider == 1 else (direction + 4) % 8
        return mat.NEIGHBOUR_DELTAS[world]

    def offset_index(self, frm: int, to: int) -> int:
        """``t``: the index in ``T`` of the shot from ``frm`` at ``to``, the offset read in the
        shooter's (the decider's) frame; :class:`IllegalActionError` when ``T`` lacks it."""
        fx, fy = mat.coords(frm)
        tx, ty = mat.coords(to)
        right, forward = (tx - fx, ty - fy) if self.decider == 1 else (fx - tx, fy - ty)
        t = self._offset_index.get((right, forward))
        if t is None:
            raise IllegalActionError(f"no ranged card of this card set targets ({right}, {forward})")
        return t


def frame_of(pos: Position, size: tuple[int, int] = FRAME) -> Frame:
    """The frame of ``pos`` at this decision point: the 7x6 printed mat when bordered, else
    ``size`` centred on the middle of the units' bounding box (the printed mat's when empty)."""
    decider = pos.decider
    if pos.variant.bordered:
        return Frame(0, 0, mat.WIDTH, mat.HEIGHT, decider, pos.cards)
    if pos.board:
        xs: list[int] = []
        ys: list[int] = []
        for sq in pos.board:
            x, y = mat.coords(sq)
            xs.append(x)
            ys.append(y)
        minx, maxx, miny, maxy = min(xs), max(xs), min(ys), max(ys)
    else:
        minx, maxx, miny, maxy = _PRINTED_BOX
    width, height = size
    return Frame((minx + maxx) // 2 - width // 2, (miny + maxy) // 2 - height // 2, width, height, decider, pos.cards)


def num_actions(pos: Position, size: tuple[int, int] = FRAME) -> int:
    """The size of the id space of ``pos``: ``6N + N*len(T) + 17N + 2`` (1,724 on the bordered
    mat with the core cards)."""
    return frame_of(pos, size).num_actions


def encode(pos: Position, frame: Frame, action: Action) -> int:
    """The id of ``action`` in ``frame`` (see :func:`action_id`)."""
    kind = action.kind
    try:
        if kind == "deploy":
            hand = pos.hands[frame.decider]
            if action.card not in hand:
                raise IllegalActionError(f"{action.card} is not in player {frame.decider}'s hand")
            return hand.index(action.card) * frame.n + frame.index(_square(action.to))
        if kind == "shoot":
            frm, to = _square(action.frm), _square(action.to)
            return frame.shoot_base + frame.index(frm) * len(frame.offsets) + frame.offset_index(frm, to)
        if kind in ("advance", "move"):
            frm, to = _square(action.frm), _square(action.to)
            base = frame.advance_base if kind == "advance" else frame.move_base
            return base + frame.index(frm) * 8 + frame.direction(to - frm)
        if kind == "recall":
            return frame.recall_base + frame.index(_square(action.frm))
        if kind == "draw":
            return frame.draw_id
        if kind == "pass":
            return frame.pass_id
    except FrameError as exc:
        raise FrameError(f"{action}: {exc}") from None
    except IllegalActionError as exc:
        raise IllegalActionError(f"{action}: no action id: {exc}") from None
    raise InvalidActionError(f"{action!r}: unknown action kind {kind!r}")


def _square(sq: int | None) -> int:
    if sq is None:
        raise IllegalActionError("a square is missing")
    return sq


def decode(pos: Position, frame: Frame, i: int) -> Action:
    """The action that id ``i`` names in ``frame`` (see :func:`action_from_id`)."""
    if isinstance(i, bool) or not isinstance(i, int):
        raise InvalidActionError(f"action id {i!r}: expected a whole number")
    if not 0 <= i < frame.num_actions:
        raise InvalidActionError(f"action id {i}: out of range (0 to {frame.num_actions - 1})")
    n = frame.n
    if i < frame.shoot_base:
        slot, k = divmod(i, n)
        hand = pos.hands[frame.decider]
        if slot >= len(hand):
            raise InvalidActionError(
                f"action id {i}: hand slot {slot} is empty (player {frame.decider} holds {len(hand)} cards)"
            )
        card = hand[slot]
        if card is None:
            raise InvalidActionError(
                f"action id {i}: hand slot {slot} of player {frame.decider} is hidden in this view"
            )
        first = hand.index(card)
        if first != slot:
            raise InvalidActionError(
                f"action id {i}: hand slot {slot} holds the same card as slot {first}; "
                "a deployment names the first slot that holds its card"
            )
        return Action("deploy", card, None, frame.square(k))
    if i < frame.advance_base:
        k, t = divmod(i - frame.shoot_base, len(frame.offsets))
        frm = frame.square(k)
        return Action("shoot", None, frm, frm + mat.turned(*frame.offsets[t], frame.decider))
    if i < frame.recall_base:
        kind = "advance" if i < frame.move_base else "move"
        k, direction = divmod(i - (frame.advance_base if kind == "advance" else frame.move_base), 8)
        frm = frame.square(k)
        return Action(kind, None, frm, frm + frame.delta(direction))
    if i < frame.draw_id:
        return Action("recall", None, frame.square(i - frame.recall_base))
    return DRAW if i == frame.draw_id else PASS


def action_id(pos: Position, action: Action, size: tuple[int, int] = FRAME) -> int:
    """The id of ``action`` at this decision point, legal or not.

    :class:`FrameError` when a square it is read from falls outside the frame;
    :class:`IllegalActionError` when the encoding has no id for it (a card not in the decider's
    hand, a step to a square that is not adjacent, a shot offset no card of the set has).
    """
    return encode(pos, frame_of(pos, size), action)


def action_from_id(pos: Position, i: int, size: tuple[int, int] = FRAME) -> Action:
    """The action that id ``i`` names at this decision point; whether it is legal is the
    engine's question. :class:`InvalidActionError` naming the id when it is out of range or names
    an empty (or, in a view, hidden) hand slot."""
    return decode(pos, frame_of(pos, size), i)


def legal_ids(pos: Position, size: tuple[int, int] = FRAME) -> list[int]:
    """The ids of the legal actions, ascending; :class:`FrameError` when one falls outside the frame."""
    frame = frame_of(pos, size)
    return sorted(encode(pos, frame, a) for a in pos.legal_actions())


# --- hidden cards: the worlds consistent with a view (docs/core.md, "Views, hidden cards") ------


def fill_position(pos: Position, cards_by_player: Mapping[int, Mapping[str, Sequence[str]]]) -> Position:
    """A copy of the view ``pos`` with each player's unknown hand and deck entries replaced, in
    order, by the cards given: ``{2: {"hand": [...], "deck": [...]}, 1: {"deck": [...]}}``.

    Every unknown entry must be given, and no more; errors are :class:`NotationError` naming the
    player and the place. ``pos`` is unchanged.
    """
    if not isinstance(cards_by_player, Mapping):
        raise NotationError("fill: expected a mapping of player (1 or 2) to {'hand': [...], 'deck': [...]}")
    for p in cards_by_player:
        if isinstance(p, bool) or p not in (1, 2):
            raise NotationError(f"fill: players are 1 and 2, got {p!r}")
    new = pos.copy()
    for p in (1, 2):
        given = cards_by_player.get(p, {})
        if not isinstance(given, Mapping):
            raise NotationError(f"fill: player {p}: expected {{'hand': [...], 'deck': [...]}}")
        for place in given:
            if place not in ("hand", "deck"):
                raise NotationError(f"fill: player {p}: unknown place {place!r} (expected 'hand' or 'deck')")
        for place, entries in (("hand", new.hands[p]), ("deck", new.decks[p])):
            cards = _card_list(pos.cards, given.get(place, ()), f"fill: player {p}'s {place}")
            holes = [i for i, c in enumerate(entries) if c is None]
            if len(cards) != len(holes):
                raise NotationError(f"fill: player {p}'s {place} has {len(holes)} unknown cards, {len(cards)} given")
            for i, card in zip(holes, cards, strict=True):
                entries[i] = card
    return new


def determinize_position(
    pos: Position,
    seed: int,
    pools: Mapping[int, Sequence[str]] | None = None,
    known: Mapping[int, Sequence[str]] | None = None,
) -> Position:
    """A sampled full game consistent with the view ``pos`` and with what else is public:

    - ``known[player]``: hand cards of that player in the open although the view hides them (a
      recalled unit goes back to the hand face up, a forced deployment shows the whole hand:
      :func:`lordsofwar.rules.knowledge.known_hands`); they stay in that hand;
    - the deal puts each general in the opening hand and nothing sends a card back to the deck,
      so a player's general that is not in the open is in their hidden hand, never in the deck
      (:func:`settle_generals`).

    The other unknown cards are drawn from each player's pool, shuffled by
    ``random.Random(seed)`` (player 1's pool first), dealt to the unknown hand slots in order,
    then to the deck. ``pos`` is unchanged.

    A player's pool is ``pools[player]`` when given (used as it is, less its general when that
    player's general is placed), else :func:`standard_pool` (which leaves out the known cards);
    a player with unknown cards and neither raises :class:`NotationError`, as does a pool
    smaller than the unknown entries. Pool cards left over are unused.
    """
    rng = random.Random(seed)
    pos = with_known_hands(pos, known)
    chosen: dict[int, list[str]] = {}
    for p in (1, 2):
        wanted = pos.hands[p].count(None) + pos.decks[p].count(None)
        if not wanted:
            continue
        if pools is not None and p in pools:
            pool = _card_list(pos.cards, pools[p], f"determinize: player {p}'s pool")
        else:
            found = standard_pool(pos, p)
            if found is None:
                raise NotationError(
                    f"determinize: player {p} has {wanted} unknown cards and their army {pos.armies[p]!r} has no "
                    f"standard list; a pool is needed for player {p}"
                )
            pool = found
        if len(pool) < wanted:
            raise NotationError(f"determinize: player {p}'s pool holds {len(pool)} cards, {wanted} are unknown")
        chosen[p] = pool
    pos, chosen = settle_generals(pos, chosen, rng)
    fills: dict[int, dict[str, list[str]]] = {}
    for p, pool in chosen.items():
        in_hand = pos.hands[p].count(None)
        wanted = in_hand + pos.decks[p].count(None)
        rng.shuffle(pool)
        fills[p] = {"hand": pool[:in_hand], "deck": pool[in_hand:wanted]}
    return fill_position(pos, fills)


def with_known_hands(pos: Position, known: Mapping[int, Sequence[str]] | None) -> Position:
    """``pos`` (a view) with the cards of ``known[player]`` in that player's unknown hand slots,
    in order; ``pos`` itself when nothing is known. More known cards than unknown slots, or an
    unknown card id, raise :class:`NotationError`."""
    if not known:
        return pos
    out = pos.copy()
    for p, cards in known.items():
        if isinstance(p, bool) or p not in (1, 2):
            raise NotationError(f"known: players are 1 and 2, got {p!r}")
        todo = _card_list(pos.cards, cards, f"known: player {p}'s hand")
        if not todo:
            continue
        hand = list(out.hands[p])
        holes = [i for i, c in enumerate(hand) if c is None]
        if len(todo) > len(holes):
            raise NotationError(f"known: player {p}'s hand has {len(holes)} unknown cards, {len(todo)} known")
        for i, card in zip(holes, todo, strict=False):
            hand[i] = card
        out.hands[p] = hand
    return out


def _generals_seen(pos: Position, player: int) -> bool:
    cards = pos.cards
    seen = [kind.id for kind in pos.board.values() if kind.owner == player]
    seen += pos.lost[player]
    seen += [c for c in (*pos.hands[player], *pos.decks[player]) if c is not None]
    return any(cards.card(c).rank == "general" for c in seen)


def settle_generals(
    pos: Position, pools: Mapping[int, Sequence[str]], rng: random.Random
) -> tuple[Position, dict[int, list[str]]]:
    """What the deal and the rules say of the generals (1.4: the general is dealt into the
    opening hand; nothing sends a card back to the deck), applied to a view ``pos`` and the pools
    that fill its unknown cards: for each player in ``pools``, the general-rank cards are taken
    out of the pool (none can be in the deck), and when that player's general is nowhere in the
    open and their hand has an unknown slot, one of them (drawn by ``rng`` when there are
    several, as a prior over a custom deck may give) fills the first unknown hand slot.

    A pool left too small for the unknown entries without its generals keeps them (a prior that
    is not a deck's list). Returns the new position (``pos`` is unchanged) and the new pools."""
    out = pos
    settled: dict[int, list[str]] = {}
    for p, given in pools.items():
        pool = list(given)
        cards = pos.cards
        generals = [c for c in pool if cards.card(c).rank == "general"]
        rest = [c for c in pool if cards.card(c).rank != "general"]
        hand = out.hands[p]
        holes = hand.count(None)
        wanted = holes + out.decks[p].count(None)
        if generals and holes and not _generals_seen(out, p):
            general = generals[0] if len(generals) == 1 else rng.choice(generals)
            if out is pos:
                out = pos.copy()
            new_hand = list(hand)
            new_hand[new_hand.index(None)] = general
            out.hands[p] = new_hand
            wanted -= 1
            pool.remove(general)
        if len(rest) < wanted:  # not a deck's list: keep its other generals rather than fail
            rest = pool
        settled[p] = rest
    return out, settled


def standard_pool(pos: Position, player: int) -> list[str] | None:
    """The cards that may fill ``player``'s unknown entries, as :func:`knowledge.side_cards`
    reasons: the standard list of their army minus their cards in the open (units on the mat,
    the lost pile, known hand and deck entries), in card order; None when the army shown has no
    36-card standard list (a custom or mercenary deck)."""
    army = pos.armies[player]
    if army not in pos.cards.armies or len(pos.cards.army(army)) != DECK_SIZE:
        return None
    left = Counter(pos.cards.standard_deck(army))
    seen = [kind.id for kind in pos.board.values() if kind.owner == player]
    seen += pos.lost[player]
    seen += [c for c in (*pos.hands[player], *pos.decks[player]) if c is not None]
    for card in seen:
        if left[card] > 0:
            left[card] -= 1
    return list(left.elements())


def _card_list(cards: CardSet, value: Any, where: str) -> list[str]:
    """A list of known card ids, or a :class:`NotationError` naming ``where``."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise NotationError(f"{where}: expected a list of card ids")
    out = list(value)
    for i, card in enumerate(out):
        try:
            cards.card(card)
        except UnknownCardError as exc:
            raise NotationError(f"{where}[{i}]: {exc}") from None
    return out
