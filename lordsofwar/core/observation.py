"""Observations and legal-action masks in plain Python: the statement of what the native core's
``observe()`` and ``write_mask()`` (``src/core/batch.cpp``) write, read from a rules
:class:`~lordsofwar.rules.state.Position` (docs/core.md, "Observations").

An observation is what the decider may know, from the decider's side of the mat: the squares are
those of the frame of integer actions (:func:`lordsofwar.core.encoding.frame_of`), square
``k = j * W + i`` of the frame being ``planes[:, j, i]``, so player 2 sees the mat turned by 180
degrees and every direction turned with it. Nothing hidden from the decider is read: not the
opponent's hand in the hidden-hands variant, not the order or contents of either deck.

``planes`` is ``(PLANES, H, W)`` bytes, one plane per feature and square of the frame (0 where no
unit stands; values above 255 are cut to 255). "Own" is the decider's, "enemy" the other
player's; directions are read as the decider faces (``d`` 0-7: F, FR, R, BR, B, BL, L, FL):

======= =============================================================================
plane   feature of the unit on the square
======= =============================================================================
0       the decider's unit (1)
1       the opponent's unit (1)
2-9     own unit: its attack value towards direction ``d`` = plane - 2
10-17   enemy unit: its attack value towards direction ``d`` = plane - 10
18      defence
19      ranged damage (0 without a ranged weapon)
20      command unit (general or command rank) (1)
21      general (1)
22-26   class: infantry, cavalry, berserker, spear, ranged (one of them 1)
27      has moves (1)
28      engaged: some enemy attack points at it (``Position.attackers``) (1)
29      deployed this turn (1)
30      supported: deployed this turn next to a friendly unit (1)
31      has shot (declared or fired) this turn (1)
32      took part in an elimination this turn (1)
33      moved this turn (1)
34      was engaged at the start of the turn (1)
35      damage of the shots declared at it this turn (``Position.shot_damage``)
36      a berserker of the decider waiting to choose its advance (advance phase only) (1)
37      a square such a berserker may advance to, not yet taken (advance phase only) (1)
======= =============================================================================

``info`` is ``INFO`` floats: twelve hand slots of ``HAND_FEATURES`` floats, then ``SCALARS``.
Slots 0-5 are the decider's hand in order, slots 6-11 the opponent's; a slot past the hand's
end is all 0; a card the decider may not see (the opponent's hand in the hidden-hands variant, a
card hidden in a view) gives only feature 0. A card's features are in its own frame (front
first), whoever holds it:

======= =============================================================================
feature of a hand slot
======= =============================================================================
0       a card is in the slot (1)
1       defence
2-9     attack value towards the card's own direction ``d`` = feature - 2
10      ranged damage
11      number of target squares of its ranged weapon
12-16   class: infantry, cavalry, berserker, spear, ranged (one of them 1)
17      command unit (1)
18      general (1)
19      number of moves
======= =============================================================================

and the scalars, ``info[240 + s]``:

=== ==========================================================================
s   scalar
=== ==========================================================================
0   cards in the decider's hand
1   cards in the opponent's hand
2   cards in the decider's deck
3   cards in the opponent's deck
4   the decider's lost units (eliminated or recalled)
5   the opponent's lost units
6   the decider's command units among them
7   the opponent's command units among them
8   units to win (variant)
9   command units to win (variant)
10  quiet turns so far
11  quiet turns that end the game (variant)
12  turn number
13  phase is ``pre`` (1)
14  phase is ``advance`` (1)
15  phase is ``post`` (1)
16  it is the decider's turn (0 when choosing a berserker advance in the opponent's turn)
17  this turn's deployment is forced (3.4) (1)
18  intermediate rules (1)
19  visible hands (1)
20  bordered mat (1)
21  the decider's general was eliminated this turn (1)
22  the opponent's general was eliminated this turn (1)
23  an opening turn (turn 1 or 2) (1)
=== ==========================================================================

The rules engine resolves the start of a turn lazily (a turn with no deployment possible goes
straight to the ``post`` phase, and whether the deployment is forced is known, once the legal
actions are listed); :func:`observe` and :func:`legal_mask` resolve it first, as
``Position.legal_actions`` would, so an observation does not depend on whether the legal actions
were listed before.
"""

from __future__ import annotations

import contextlib

import numpy as np

from lordsofwar.core import encoding
from lordsofwar.core.encoding import FRAME, Frame, FrameError
from lordsofwar.rules import engine
from lordsofwar.rules.cards import CLASSES, DIRECTIONS, Card
from lordsofwar.rules.errors import HiddenInformationError
from lordsofwar.rules.position import (
    DEPLOYED,
    ENGAGED_AT_START,
    HAND_LIMIT,
    MOVED,
    SHOT,
    SUPPORTED,
    TOOK_PART,
)
from lordsofwar.rules.state import Position

PLANES = 38
"""Planes per square of the frame."""

HAND_FEATURES = 20
"""Floats per hand slot."""

SCALARS = 24
"""Floats after the twelve hand slots."""

INFO = 2 * HAND_LIMIT * HAND_FEATURES + SCALARS
"""Floats of ``info`` (264)."""

_FLAG_PLANES = ((29, DEPLOYED), (30, SUPPORTED), (31, SHOT), (32, TOOK_PART), (33, MOVED), (34, ENGAGED_AT_START))
_CLASS_INDEX: dict[str, int] = {c: i for i, c in enumerate(CLASSES)}


def _clamp8(x: int) -> int:
    return min(max(x, 0), 255)


def _index(frame: Frame, sq: int) -> int:
    """``k`` of ``sq`` in ``frame``, or -1 outside it."""
    try:
        return frame.index(sq)
    except FrameError:
        return -1


def resolve(pos: Position) -> None:
    """Resolve the start of the turn in place, as listing the legal actions does (3.4): with no
    deployment possible the turn is in its ``post`` phase, and ``forced`` is known. Nothing to do
    when the decider's hand is hidden (a view of the other player)."""
    if pos.result is None and pos.phase == "pre":
        with contextlib.suppress(HiddenInformationError):
            engine._resolve_start(pos)


def card_features(card: Card, out: np.ndarray) -> None:
    """The ``HAND_FEATURES`` floats of a known card in a hand slot (its own frame)."""
    out[0] = 1
    out[1] = card.defence
    for d, value in card.attacks.items():
        if value > 0:
            out[2 + DIRECTIONS.index(d)] = value
    if card.ranged is not None:
        out[10] = card.ranged.damage
        out[11] = len(card.ranged.targets)
    out[12 + _CLASS_INDEX[card.cls]] = 1
    out[17] = card.is_command
    out[18] = card.rank == "general"
    out[19] = min(len(card.moves), 8)


def write(pos: Position, frame: Frame, planes: np.ndarray, info: np.ndarray) -> None:
    """Write the observation of ``pos`` in ``frame`` into ``planes`` ((PLANES, H, W) uint8) and
    ``info`` ((INFO,) float32), clearing them first; the state is read as it is (see
    :func:`observe` for the resolved one)."""
    planes[...] = 0
    info[...] = 0
    flat = planes.reshape(PLANES, frame.n, copy=False)  # the same bytes (ValueError if it cannot be)
    me = frame.decider
    them = 3 - me
    flags = pos.flags
    shot_damage = pos.shot_damage
    attackers = pos.attackers
    for sq, kind in pos.board.items():
        k = _index(frame, sq)
        if k < 0:
            continue
        own = kind.owner == me
        flat[0 if own else 1, k] = 1
        base = 2 if own else 10
        for delta, value in kind.attack_at.items():
            if value:
                flat[base + frame.direction(delta), k] = _clamp8(value)
        flat[18, k] = _clamp8(kind.defence)
        flat[19, k] = _clamp8(kind.damage)
        flat[20, k] = kind.is_command
        flat[21, k] = kind.is_general
        flat[22 + _CLASS_INDEX[kind.card.cls], k] = 1
        flat[27, k] = bool(kind.moves)
        flat[28, k] = sq in attackers
        f = flags.get(sq, 0)
        for plane, bit in _FLAG_PLANES:
            flat[plane, k] = bool(f & bit)
        flat[35, k] = _clamp8(shot_damage.get(sq, -1))
    adv = pos.advance
    if adv is not None and pos.phase == "advance":
        for b, targets in adv.candidates.items():
            unit = pos.board.get(b)
            if unit is None or unit.owner != me:
                continue
            k = _index(frame, b)
            if k >= 0:
                flat[36, k] = 1
            for t in targets:
                kt = _index(frame, t)
                if kt >= 0 and t not in adv.taken:
                    flat[37, kt] = 1
    cards = pos.cards
    slots = info[: 2 * HAND_LIMIT * HAND_FEATURES].reshape(2 * HAND_LIMIT, HAND_FEATURES)
    mine = pos.hands[me]
    for i, card in enumerate(mine[:HAND_LIMIT]):
        if card is None:
            slots[i, 0] = 1
        else:
            card_features(cards[card], slots[i])
    theirs = pos.hands[them]
    visible = pos.variant.hands == "visible"
    for i, card in enumerate(theirs[:HAND_LIMIT]):
        if visible and card is not None:
            card_features(cards[card], slots[HAND_LIMIT + i])
        else:
            slots[HAND_LIMIT + i, 0] = 1  # a card is there; what it is stays hidden
    s = info[2 * HAND_LIMIT * HAND_FEATURES :]
    command_ids = cards.command_ids
    v = pos.variant
    s[0] = len(mine)
    s[1] = len(theirs)
    s[2] = len(pos.decks[me])
    s[3] = len(pos.decks[them])
    s[4] = len(pos.lost[me])
    s[5] = len(pos.lost[them])
    s[6] = sum(c in command_ids for c in pos.lost[me])
    s[7] = sum(c in command_ids for c in pos.lost[them])
    s[8] = v.units_to_win
    s[9] = v.commands_to_win
    s[10] = pos.quiet_turns
    s[11] = v.no_progress_turns
    s[12] = pos.turn
    s[13] = pos.phase == "pre"
    s[14] = pos.phase == "advance"
    s[15] = pos.phase == "post"
    s[16] = pos.to_move == me
    s[17] = pos.forced
    s[18] = v.intermediate
    s[19] = visible
    s[20] = v.bordered
    s[21] = bool(pos.generals_lost & (1 << me))
    s[22] = bool(pos.generals_lost & (1 << them))
    s[23] = pos.turn <= 2


def observe(pos: Position, size: tuple[int, int] = FRAME) -> tuple[np.ndarray, np.ndarray]:
    """What the decider of ``pos`` may know, from the decider's side: ``planes`` (PLANES, H, W)
    uint8 and ``info`` (INFO,) float32, the frame being :func:`encoding.frame_of` ``(pos, size)``
    (the 7x6 mat when bordered). The start of the turn is resolved first (:func:`resolve`)."""
    resolve(pos)
    frame = encoding.frame_of(pos, size)
    planes = np.zeros((PLANES, frame.height, frame.width), np.uint8)
    info = np.zeros(INFO, np.float32)
    write(pos, frame, planes, info)
    return planes, info


def write_player(pos: Position, player: int, size: tuple[int, int], planes: np.ndarray, info: np.ndarray) -> None:
    """Write the observation of ``player`` (not deciding now, or of a finished game): computed
    from that player's view of ``pos`` alone, from that player's side, in the frame of ``size``
    (the batches' ``observe_finished``, the environments' last observations)."""
    from lordsofwar.rules import notation

    view = notation.view(pos, player)
    f = encoding.frame_of(view, size)
    write(view, Frame(f.ox, f.oy, f.width, f.height, player, view.cards), planes, info)


def write_mask(pos: Position, frame: Frame, mask: np.ndarray) -> tuple[int, int]:
    """Set ``mask[id] = 1`` for every legal action with an id in ``frame`` (cleared first);
    ``(count, missing)``: how many had an id, how many fell outside the frame."""
    mask[...] = 0
    count = missing = 0
    for action in pos.legal_actions():
        try:
            i = encoding.encode(pos, frame, action)
        except FrameError:
            missing += 1
            continue
        mask[i] = 1
        count += 1
    return count, missing


def legal_mask(pos: Position, size: tuple[int, int] = FRAME) -> np.ndarray:
    """The legal ids of ``pos`` as 0/1 bytes (``num_actions`` of them); a legal action outside
    the frame (unbordered mat) has no id and is left out."""
    resolve(pos)
    frame = encoding.frame_of(pos, size)
    mask = np.zeros(frame.num_actions, np.uint8)
    write_mask(pos, frame, mask)
    return mask
