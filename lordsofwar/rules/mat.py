"""Squares, directions and facing on the Battle Mat (clarifications 1 and 2.1).

A square is held as one integer so that boards are small dicts and neighbours are additions:
``sq = (x + OFFSET) * STRIDE + (y + OFFSET)``. ``a1`` is ``(0, 0)``, ``g6`` is ``(6, 5)``.
Off-mat squares exist only on the unbordered mat and are written ``x,y``.
"""

from __future__ import annotations

import re

from lordsofwar.rules.errors import NotationError
from lordsofwar.rules.i18n import _

WIDTH = 7
HEIGHT = 6
OFFSET = 1 << 15
STRIDE = 1 << 16
LIMIT = OFFSET - 64
"""Largest |x| or |y| accepted for an off-mat square."""

COLUMNS = "abcdefg"


def square(x: int, y: int) -> int:
    """The integer square for column ``x`` and row ``y`` (0-based)."""
    return (x + OFFSET) * STRIDE + (y + OFFSET)


def coords(sq: int) -> tuple[int, int]:
    """The ``(x, y)`` of an integer square."""
    return sq // STRIDE - OFFSET, sq % STRIDE - OFFSET


def delta(dx: int, dy: int) -> int:
    """The integer to add to a square to step ``dx`` columns and ``dy`` rows."""
    return dx * STRIDE + dy


ON_MAT: frozenset[int] = frozenset(square(x, y) for x in range(WIDTH) for y in range(HEIGHT))
"""The 42 printed squares."""

_NAMES: dict[int, str] = {square(x, y): f"{COLUMNS[x]}{y + 1}" for x in range(WIDTH) for y in range(HEIGHT)}
_BY_NAME: dict[str, int] = {name: sq for sq, name in _NAMES.items()}

OPENING_SQUARE: dict[int, int] = {1: _BY_NAME["c3"], 2: _BY_NAME["e4"]}
"""The squares marked 1 and 2 (clarifications 1.2)."""

# Direction vectors in the card's own frame as player 1 sees it: front = +y, right = +x.
DIRECTION_VECTORS: dict[str, tuple[int, int]] = {
    "F": (0, 1),
    "FR": (1, 1),
    "R": (1, 0),
    "BR": (1, -1),
    "B": (0, -1),
    "BL": (-1, -1),
    "L": (-1, 0),
    "FL": (-1, 1),
}


def facing(owner: int) -> int:
    """+1 for player 1 (faces +y), -1 for player 2 (faces -y); clarifications 2.1."""
    return 1 if owner == 1 else -1


def turned(dx: int, dy: int, owner: int) -> int:
    """A card-frame offset (right, forward) turned by its owner's facing, as a square delta."""
    f = facing(owner)
    return delta(dx * f, dy * f)


NEIGHBOUR_DELTAS: tuple[int, ...] = tuple(delta(dx, dy) for dx, dy in DIRECTION_VECTORS.values())
"""The 8 world-frame deltas to adjacent squares."""

_BACK_BIT: dict[int, int] = {d: 1 << NEIGHBOUR_DELTAS.index(-d) for d in NEIGHBOUR_DELTAS}

NEIGHBOURS_BACK_ON_MAT: dict[int, tuple[tuple[int, int], ...]] = {
    sq: tuple((sq + d, _BACK_BIT[d]) for d in NEIGHBOUR_DELTAS if sq + d in ON_MAT) for sq in ON_MAT
}
"""For each printed square: its on-mat neighbours, each with the direction bit pointing back."""


def neighbours_back(sq: int, bordered: bool) -> tuple[tuple[int, int], ...]:
    """The neighbours of ``sq`` (on the mat when bordered, within reach otherwise), each with the
    bit of the direction that points from it back at ``sq`` (bit i: ``NEIGHBOUR_DELTAS[i]``)."""
    if bordered:
        return NEIGHBOURS_BACK_ON_MAT.get(sq, ())
    return tuple((sq + d, _BACK_BIT[d]) for d in NEIGHBOUR_DELTAS if in_bounds(sq + d))


def in_bounds(sq: int) -> bool:
    """True for squares within the reach of the notation (|x| and |y| at most ``LIMIT``)."""
    x, y = coords(sq)
    return abs(x) <= LIMIT and abs(y) <= LIMIT


def is_adjacent(a: int, b: int) -> bool:
    """True when the two squares touch at an edge or a corner."""
    ax, ay = coords(a)
    bx, by = coords(b)
    return a != b and abs(ax - bx) <= 1 and abs(ay - by) <= 1


def name(sq: int) -> str:
    """``d3`` for an on-mat square, ``x,y`` for an off-mat one (notation.md section 2)."""
    n = _NAMES.get(sq)
    if n is not None:
        return n
    x, y = coords(sq)
    return f"{x},{y}"


_XY_RE = re.compile(r"^(-?[0-9]{1,6}),(-?[0-9]{1,6})$")


def _label(what: str) -> str:
    """The label of a square in an error: the default one is a word of the player's language; a
    field of a notation document (``turn_state.shots``) stays as written."""
    return _("square") if what == "square" else what


def parse(text: str, bordered: bool = True, what: str = "square") -> int:
    """Read ``d3`` or ``x,y``; an off-mat square on the bordered mat is refused."""
    if not isinstance(text, str):
        raise NotationError(
            _("{what}: expected a square such as 'd3', got {value}").format(what=_label(what), value=repr(text))
        )
    sq = _BY_NAME.get(text)
    if sq is not None:
        return sq
    m = _XY_RE.fullmatch(text)
    if not m:
        shown = repr(text) if len(text) <= 20 else repr(text[:20]) + "..."
        raise NotationError(
            _("{what}: {text} is not a square (write 'd3', or 'x,y' off the mat)").format(what=_label(what), text=shown)
        )
    x, y = int(m.group(1)), int(m.group(2))
    if abs(x) > LIMIT or abs(y) > LIMIT:
        raise NotationError(_("{what}: {text} is too far from the mat").format(what=_label(what), text=repr(text)))
    sq = square(x, y)
    if bordered and sq not in ON_MAT:
        raise NotationError(
            _("{what}: {text} is off the bordered mat (columns a-g, rows 1-6)").format(
                what=_label(what), text=repr(text)
            )
        )
    return sq
