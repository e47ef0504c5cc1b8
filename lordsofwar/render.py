"""Rich renderables for a game: the Battle Mat, hands, counters, the event log, card details.

Everything here only reads a :class:`~lordsofwar.rules.state.Position` (usually a player's view)
and returns something Rich can print; no function prints or asks anything. The mat is drawn from
player 1's side: row 1 at the bottom, column ``a`` on the left. Every unit's arrows are drawn in
world orientation, so player 2's units (which face down the mat) have their arrows turned 180°.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lordsofwar.rules import engine, mat
from lordsofwar.rules.cards import Card, CardSet
from lordsofwar.rules.events import Event
from lordsofwar.rules.state import Position

CELL_WIDTH = 15
"""Characters inside one square of the drawn mat (and of a hand card)."""

CELL_HEIGHT = 4

PLAYER_COLOUR: dict[int, str] = {1: "deep_sky_blue1", 2: "hot_pink"}
"""Each player's colour (blue and pink stay apart for most colour-blind readers)."""

HIGHLIGHT = "on #3d3a12"
"""Background of the squares where something happened in the last turn."""

CHECKER: tuple[str, str] = ("on grey11", "on grey19")
"""Backgrounds of the dark and the light squares."""

OFF_MAT = "grey42"
"""Style of empty squares off the printed mat (unbordered variant)."""

RANK_LETTER: dict[str, str] = {
    "general": "G",
    "command": "C",
    "special": "S",
    "elite": "E",
    "veteran": "V",
    "regular": "R",
    "recruit": "r",
}

CLASS_SHORT: dict[str, str] = {
    "infantry": "inf",
    "cavalry": "cav",
    "berserker": "brs",
    "spear": "spr",
    "ranged": "rng",
}

ARROW: dict[tuple[int, int], str] = {
    (0, 1): "↑",
    (1, 1): "↗",
    (1, 0): "→",
    (1, -1): "↘",
    (0, -1): "↓",
    (-1, -1): "↙",
    (-1, 0): "←",
    (-1, 1): "↖",
}
"""Arrow glyph for each world-frame step (x to the right, y up the mat)."""

RANGED_MARK = "⊕"

PHASE_TEXT: dict[str, str] = {
    "pre": "deploy (declare any shots first)",
    "advance": "berserker advance",
    "post": "shoot or move, then draw, recall or pass",
    "over": "game over",
}

LEGEND = (
    "Squares show: arrows with their attack values (pointing where they strike on the mat; player 2's "
    "units face down the mat), the short name and rank letter, the class, D = defence and "
    f"{RANGED_MARK} = ranged damage. Bold underlined arrows engage an enemy unit now. An olive background "
    "marks the squares used in the last turn and this one.\n"
    "Ranks: G general, C command, S special, E elite, V veteran, R regular, r recruit "
    "(G and C are command units, in gold). Classes: inf infantry, cav cavalry, brs berserker, "
    "spr spear, rng ranged (spear and ranged units are support units).\n"
    "Target grids: U is the unit, ■ a square it can shoot, drawn as on the mat.\n"
    "In a short terminal the squares are smaller: three lines with the arrows' values in a 3x3 grid "
    "around the rank letter (· where there is no arrow), then name, defence and class; or one line "
    "with rank letter and defence ('card d4' shows the unit in full).\n"
    "Numbers: every legal action has one; the yellow numbers on a hand card are those of the "
    "actions that deploy it."
)


def player_style(player: int, bold: bool = False) -> str:
    return f"bold {PLAYER_COLOUR[player]}" if bold else PLAYER_COLOUR[player]


def player_label(player: int, names: Sequence[str] | None = None) -> Text:
    """``Player 1`` in player 1's colour (with the name when it says more)."""
    label = f"Player {player}"
    if names is not None:
        name = names[player - 1]
        if name and name.lower() != label.lower():
            label = f"{label} ({name})"
    return Text(label, style=player_style(player, bold=True))


# --- card pieces -----------------------------------------------------------------------------


def short_name(name: str, width: int) -> str:
    """A card name cut to ``width`` characters the way a player would abbreviate it.

    Leading words become initials first (``Dwarf Marauder`` -> ``D. Marauder``), then initials
    and small words are dropped (``Orc Deathbringer`` -> ``Deathbringer``), then the end is cut.
    """
    if len(name) <= width:
        return name
    words = name.split()
    if len(words) > 1:
        head, last = words[:-1], words[-1]
        head = [w for w in head if not w.islower()] or head
        abbreviated = list(head)
        for i in range(len(abbreviated)):
            abbreviated[i] = abbreviated[i][0] + "."
            candidate = " ".join([*abbreviated, last])
            if len(candidate) <= width:
                return candidate
        for i in range(1, len(abbreviated) + 1):
            candidate = " ".join([*abbreviated[i:], last])
            if len(candidate) <= width:
                return candidate
        name = last
    return name if len(name) <= width else name[: width - 1] + "…"


def world_attacks(card: Card, owner: int) -> dict[tuple[int, int], int]:
    """The card's attacks as world-frame steps (notation.md section 2: player 2 faces -y)."""
    f = mat.facing(owner)
    out: dict[tuple[int, int], int] = {}
    for d, value in card.attacks.items():
        if value > 0:
            dx, dy = mat.DIRECTION_VECTORS[d]
            out[(dx * f, dy * f)] = value
    return out


ATTACK_ORDER: tuple[str, ...] = ("FL", "F", "FR", "L", "R", "BL", "B", "BR")
"""Reading order of a card's attacks, as the card files write them."""


def attacks_text(card: Card) -> str:
    """The attacks as the card files write them, in the card's own frame: ``FL5 F5 FR5``."""
    return " ".join(f"{d}{card.attacks[d]}" for d in ATTACK_ORDER if card.attacks.get(d))


def _line(parts: Sequence[tuple[str, str, str]], width: int, base: str) -> Text:
    """One line of ``width`` cells from (text, style, align) pieces: left, centre, right."""
    chars: list[tuple[str, str]] = [(" ", base)] * width
    for text, style, align in parts:
        if not text:
            continue
        n = len(text)
        if align == "left":
            start = 0
        elif align == "right":
            start = width - n
        else:
            start = (width - n) // 2
        start = max(0, min(start, width - n))
        for i, ch in enumerate(text[: width - start]):
            chars[start + i] = (ch, style)
    line = Text()
    run, run_style = "", chars[0][1] if chars else ""
    for ch, style in chars:  # one span per run of a style: Rich renders spans, not characters
        if style != run_style:
            line.append(run, run_style)
            run, run_style = "", style
        run += ch
    line.append(run, run_style)
    return line


def _unit_styles(card: Card, owner: int, background: str) -> tuple[str, str, str]:
    """(base, strong, rank letter) styles of a unit's square: the owner's colour, bold white,
    and gold for a command unit's rank letter."""
    base = f"{PLAYER_COLOUR[owner]} {background}".strip()
    strong = f"bold bright_white {background}".strip()
    return base, strong, f"bold gold1 {background}".strip() if card.is_command else strong


def unit_cell(
    card: Card,
    owner: int,
    *,
    width: int = CELL_WIDTH,
    engaging: Iterable[tuple[int, int]] = (),
    background: str = "",
) -> Text:
    """A unit as four lines of ``width`` characters, its arrows around it in world orientation.

    ``engaging`` lists the world steps whose arrows point at an enemy unit now (drawn bold).
    """
    base, strong, rank_style = _unit_styles(card, owner, background)
    hot = set(engaging)
    attacks = world_attacks(card, owner)

    def arrow(step: tuple[int, int]) -> tuple[str, str]:
        value = attacks.get(step)
        if not value:
            return "", base
        return f"{ARROW[step]}{value}", (f"bold {base} underline" if step in hot else base)

    def row(dy: int) -> Text:
        left, centre, right = arrow((-1, dy)), arrow((0, dy)), arrow((1, dy))
        return _line(
            [(left[0], left[1], "left"), (centre[0], centre[1], "centre"), (right[0], right[1], "right")], width, base
        )

    rank = RANK_LETTER.get(card.rank, "?")
    name_line = _line([(short_name(card.name, width - 2), base, "left"), (rank, rank_style, "right")], width, base)

    left, right = arrow((-1, 0)), arrow((1, 0))
    room = width - 2 * max(len(left[0]), len(right[0]), 2) - 2
    cls = CLASS_SHORT.get(card.cls, card.cls[:3])
    ranged = f"{RANGED_MARK}{card.ranged.damage}" if card.ranged else ""
    candidates = [
        f"{cls} D{card.defence} {ranged}",
        f"{cls} D{card.defence}{ranged}",
        f"D{card.defence} {ranged}",
        f"D{card.defence}{ranged}",
    ]
    centre = next((c.strip() for c in candidates if len(c.strip()) <= room), f"D{card.defence}")
    middle = _line([(left[0], left[1], "left"), (centre, strong, "centre"), (right[0], right[1], "right")], width, base)
    return Text("\n").join([row(1), name_line, middle, row(-1)])


def compact_cell(
    card: Card,
    owner: int,
    *,
    width: int = CELL_WIDTH,
    engaging: Iterable[tuple[int, int]] = (),
    background: str = "",
) -> Text:
    """A unit as three lines of ``width`` characters, for a mat that must stay short.

    On the left a 3x3 grid of the arrows' values in world orientation around the rank letter
    (``·`` where there is no arrow; bold underlined where it engages an enemy unit now); on the
    right the short name, the defence (and ranged damage) and the class.
    """
    base, strong, rank_style = _unit_styles(card, owner, background)
    dim = f"grey42 {background}".strip()
    hot = set(engaging)
    attacks = world_attacks(card, owner)
    room = width - 4
    rank = RANK_LETTER.get(card.rank, "?")
    defence = f"D{card.defence} {RANGED_MARK}{card.ranged.damage}" if card.ranged else f"D{card.defence}"
    cls = card.cls if len(card.cls) <= room else CLASS_SHORT.get(card.cls, card.cls[:3])
    words = [
        (short_name(card.name, room), base),
        (defence if len(defence) <= room else f"D{card.defence}", strong),
        (cls if len(cls) <= room else "", base),
    ]
    lines = []
    for row, dy in enumerate((1, 0, -1)):
        line = Text()
        for dx in (-1, 0, 1):
            if (dx, dy) == (0, 0):
                line.append(rank, rank_style)
                continue
            value = attacks.get((dx, dy))
            if value:
                line.append(str(value), f"bold {base} underline" if (dx, dy) in hot else base)
            else:
                line.append("·", dim)
        text, style = words[row]
        line.append(" ", base)
        line.append_text(_line([(text, style, "left")], room, base))
        lines.append(line)
    return Text("\n").join(lines)


def tiny_cell(card: Card, owner: int, *, width: int = 4, background: str = "") -> Text:
    """A unit on one line: (the start of its name and) its rank letter and defence, ``G7``."""
    base = f"{PLAYER_COLOUR[owner]} {background}".strip()
    rank = RANK_LETTER.get(card.rank, "?")
    stats = f"{rank}{card.defence}"
    rank_style = f"bold gold1 {background}".strip() if card.is_command else f"bold {base}"
    name = short_name(card.name, width - len(stats) - 1) if width - len(stats) - 1 >= 4 else ""
    return _line([(name, base, "left"), (stats, rank_style, "right")], width, base)


def empty_cell(
    label: str,
    *,
    width: int = CELL_WIDTH,
    style: str = "grey50",
    background: str = "",
    height: int = CELL_HEIGHT,
) -> Text:
    """An empty square: its name in the middle, so a player can read it off to type it. A name
    too long for the square is left out (the row and column labels give it), never cut."""
    base = background
    lines = [_line([], width, base) for _ in range(height)]
    shown = label if len(label) <= width else "·"
    lines[(height - 1) // 2] = _line([(shown, f"{style} {background}".strip(), "centre")], width, base)
    return Text("\n").join(lines)


def target_grid(card: Card, owner: int = 1) -> Text:
    """A ranged card's target grid as a tiny text grid in world orientation (U = the unit)."""
    if card.ranged is None:
        return Text("")
    f = mat.facing(owner)
    squares = {(dx * f, dy * f) for dx, dy in card.ranged.targets}
    xs = [x for x, _ in squares] + [0]
    ys = [y for _, y in squares] + [0]
    colour = PLAYER_COLOUR[owner]
    lines = []
    for y in range(max(ys), min(ys) - 1, -1):
        line = Text()
        for x in range(min(xs), max(xs) + 1):
            if (x, y) == (0, 0):
                line.append("U", f"bold {colour}")
            elif (x, y) in squares:
                line.append("■", colour)
            else:
                line.append("·", "grey50")
        lines.append(line)
    return Text("\n").join(lines)


def card_line(card: Card, owner: int | None = None) -> Text:
    """One line: ``orcs:07 Orc Warhog  E elite cavalry D4  F2 FR3 R4 BR3``."""
    style = PLAYER_COLOUR[owner] if owner else ""
    text = Text()
    text.append(f"{card.id} ", "grey62")
    text.append(card.name, f"bold {style}".strip())
    text.append(f"  {card.rank} {card.cls} D{card.defence}  {attacks_text(card)}", style)
    if card.ranged:
        text.append(f"  {RANGED_MARK}{card.ranged.damage}", style)
    return text


def render_card(card: Card, owner: int | None = None, square: str | None = None) -> Panel:
    """The card-detail view: every fact of the card, its arrows drawn and its target grid."""
    drawn_for = owner or 1
    facts = Table.grid(padding=(0, 1))
    facts.add_column(style="grey62")
    facts.add_column()
    rank = card.rank + ("  (command unit)" if card.is_command else "")
    cls = card.cls + ("  (support unit)" if card.is_support else "")
    facts.add_row("id", card.id)
    facts.add_row("army", card.army)
    facts.add_row("rank", rank)
    facts.add_row("class", cls)
    facts.add_row("defence", str(card.defence))
    facts.add_row("attacks", attacks_text(card) or "none")
    if card.ranged:
        facts.add_row("ranged", f"{RANGED_MARK}{card.ranged.damage} damage to one target on its grid")
    if card.moves:
        facts.add_row("moves", " ".join(card.moves))
    if card.erratum:
        facts.add_row("erratum", card.erratum)
    if square is not None and owner is not None:
        facts.add_row("on the mat", Text.assemble(f"{square}, ", player_label(owner)))
    pictures = Table.grid(padding=(0, 2))
    pictures.add_column()
    pictures.add_column()
    drawn = Panel(unit_cell(card, drawn_for), box=box.SQUARE, padding=0, expand=False)
    grid = target_grid(card, drawn_for)
    pictures.add_row(drawn, Group(Text("targets", style="grey62"), grid) if card.ranged else Text(""))
    note = (
        "as player 2 places it (facing down the mat)" if drawn_for == 2 else "as player 1 places it (facing up the mat)"
    )
    body = Group(pictures, Text(note, style="grey50 italic"), facts)
    return Panel(body, title=Text(card.name, style=f"bold {PLAYER_COLOUR.get(owner or 0, '')}".strip()), expand=False)


# --- the mat ---------------------------------------------------------------------------------


def mat_bounds(pos: Position, margin: int = 1) -> tuple[range, range]:
    """Columns and rows to draw: the printed 7x6 mat, or on the unbordered mat the bounding
    box of the units plus ``margin`` (the printed mat when no unit is on it)."""
    if pos.variant.bordered or not pos.board:
        return range(mat.WIDTH), range(mat.HEIGHT)
    points = [mat.coords(s) for s in pos.board]
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    return range(min(xs) - margin, max(xs) + margin + 1), range(min(ys) - margin, max(ys) + margin + 1)


MAT_CELLS: dict[int, tuple[int, int]] = {4: (9, CELL_WIDTH), 3: (8, CELL_WIDTH), 1: (2, 9)}
"""For each height of a drawn square (4 lines: arrows drawn around the unit; 3: the compact
arrow grid; 1: rank and defence only), the least and the most characters across."""


def _column_label(x: int, bordered: bool, width: int = CELL_WIDTH) -> str:
    """The header of column ``x``, on two lines when one is too narrow (never cut)."""
    if bordered:
        return mat.COLUMNS[x]
    letter = mat.COLUMNS[x] if 0 <= x < mat.WIDTH else ""
    one = f"{letter} x={x}".strip()
    if len(one) <= width:
        return one
    lower = f"x={x}" if len(f"x={x}") <= width else str(x)
    return f"{letter}\n{lower}" if letter else lower


def _row_label(y: int, bordered: bool, cell_height: int = CELL_HEIGHT) -> str:
    if bordered:
        return str(y + 1)
    on = str(y + 1) if 0 <= y < mat.HEIGHT else ""
    sep = "\n" if cell_height > 1 else " "
    return f"{on}{sep}y={y}".strip()


def _label_width(pos: Position, cell_height: int = CELL_HEIGHT) -> int:
    if pos.variant.bordered:
        return 1
    _, ys = mat_bounds(pos)
    return max(len(part) for y in ys for part in _row_label(y, False, cell_height).split("\n"))


def render_mat(
    pos: Position,
    *,
    highlight: Iterable[int] = (),
    cell_width: int = CELL_WIDTH,
    margin: int = 1,
    cell_height: int = CELL_HEIGHT,
) -> Table:
    """The Battle Mat seen from player 1's side (row 1 at the bottom), squares in ``highlight``
    shaded. On the unbordered mat, columns and rows carry their ``x`` and ``y``.

    Squares alternate two dark shades like a chessboard instead of ruled lines between rows.
    ``cell_height`` 4 draws every arrow around the unit; 3 draws the compact arrow grid
    (:func:`compact_cell`) and 1 only rank and defence (:func:`tiny_cell`), without the outer
    frame, for a terminal too short for the whole mat otherwise.
    """
    bordered = pos.variant.bordered
    xs, ys = mat_bounds(pos, margin)
    lit = set(highlight)
    full = cell_height == CELL_HEIGHT
    table = Table(
        box=box.SQUARE,
        show_lines=False,
        show_header=full,
        show_edge=full,
        padding=0,
        header_style="bold",
        border_style="grey42",
        expand=False,
    )
    table.add_column("", justify="center", vertical="middle", width=_label_width(pos, cell_height), style="bold")
    labels = []
    for x in xs:
        label = "\n".join(part.center(cell_width) for part in _column_label(x, bordered, cell_width).split("\n"))
        labels.append(label)
        # Cells are drawn to the exact width: "left" keeps their spaces (centring would strip them).
        table.add_column(label, justify="left", width=cell_width, no_wrap=True)
    if not full:  # the column names as a first row: no rule under them, one line less
        table.add_row("", *(Text(label, style="bold") for label in labels))
    board = pos.board
    for y in reversed(ys):
        cells: list[RenderableType] = [Text(_row_label(y, bordered, cell_height), style="bold")]
        for x in xs:
            sq = mat.square(x, y)
            bg = HIGHLIGHT if sq in lit else CHECKER[(x + y) % 2]
            unit = board.get(sq)
            if unit is None:
                printed = sq in mat.ON_MAT
                cells.append(
                    empty_cell(
                        mat.name(sq),
                        width=cell_width,
                        style="grey50" if printed else OFF_MAT,
                        background=bg,
                        height=cell_height,
                    )
                )
                continue
            if cell_height == 1:
                cells.append(tiny_cell(unit.card, unit.owner, width=cell_width, background=bg))
                continue
            hot = []
            for step in world_attacks(unit.card, unit.owner):
                other = board.get(sq + mat.delta(*step))
                if other is not None and other.owner != unit.owner:
                    hot.append(step)
            draw = unit_cell if cell_height == CELL_HEIGHT else compact_cell
            cells.append(draw(unit.card, unit.owner, width=cell_width, engaging=hot, background=bg))
        table.add_row(*cells)
    return table


def mat_width(pos: Position, cell_width: int = CELL_WIDTH, cell_height: int = CELL_HEIGHT) -> int:
    """Characters the drawn mat takes across."""
    xs, _ = mat_bounds(pos)
    edges = 2 if cell_height == CELL_HEIGHT else 0
    return _label_width(pos, cell_height) + edges + len(xs) * (cell_width + 1)


def mat_height(pos: Position, cell_width: int = CELL_WIDTH, cell_height: int = CELL_HEIGHT) -> int:
    """Lines the drawn mat takes (as :func:`render_mat` draws it)."""
    xs, ys = mat_bounds(pos)
    header = max(len(_column_label(x, pos.variant.bordered, cell_width).split("\n")) for x in xs)
    frame = 3 if cell_height == CELL_HEIGHT else 0  # top and bottom edges, rule under the header
    return frame + header + len(ys) * cell_height


def fit_cell_width(pos: Position, width: int, cell_height: int = CELL_HEIGHT) -> int:
    """The widest square (within :data:`MAT_CELLS` for ``cell_height``) that lets the mat fit
    ``width``; the narrowest one when none fits."""
    least, most = MAT_CELLS[cell_height]
    xs, _ = mat_bounds(pos)
    edges = 2 if cell_height == CELL_HEIGHT else 0
    fits = (width - _label_width(pos, cell_height) - edges) // len(xs) - 1
    return max(least, min(most, fits))


# --- hands -----------------------------------------------------------------------------------


ACTION_NUMBER = "bold yellow"
"""Style of the numbers a player types to choose an action, wherever they are shown."""


def number_ranges(numbers: Iterable[int]) -> str:
    """``1-3,7`` for 1, 2, 3 and 7: runs of three or more become ranges."""
    ordered = sorted(set(numbers))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{ordered[i]}-{ordered[j]}")
        else:
            parts.extend(str(n) for n in ordered[i : j + 1])
        i = j + 1
    return ",".join(parts)


def deploy_numbers(actions: Sequence[str]) -> dict[str, list[int]]:
    """For each card id, the numbers (1-based, as shown) of the actions that deploy it."""
    out: dict[str, list[int]] = {}
    for number, action in enumerate(actions, 1):
        tokens = action.split(" ")
        if tokens[0] == "deploy" and len(tokens) == 3:
            out.setdefault(tokens[1], []).append(number)
    return out


def hand_card(
    card: Card,
    owner: int,
    numbers: Sequence[int] = (),
    *,
    cell_width: int = CELL_WIDTH,
    grid_beside: bool = True,
    say_deploy: bool = True,
) -> Panel:
    """One hand card as a small card: the same picture as on the mat, a ranged card's target
    grid beside it (or below it), its id on the top edge and, on the bottom edge, the numbers of
    the actions that deploy it (``deploy 11-27``, or ``11-27`` when there is no room or not
    ``say_deploy``), as the action list numbers them."""
    body: RenderableType = unit_cell(card, owner, width=cell_width)
    width = cell_width + 2
    if card.ranged:
        grid = target_grid(card, owner)
        if grid_beside:
            columns = Table.grid(padding=(0, 0, 0, 1))
            columns.add_column(width=cell_width, no_wrap=True)
            columns.add_column(vertical="middle", no_wrap=True)
            columns.add_row(body, grid)
            body = columns
            width += 1 + max(len(line) for line in grid.plain.split("\n"))
        else:
            grid.justify = "center"
            body = Group(body, grid)
    # A title needs its length + 6 (corner, rule and a space each side); Rich would cut it.
    width = max(width, len(card.id) + 6)
    subtitle = None
    if numbers:
        shown = number_ranges(numbers)
        subtitle = Text.assemble(("deploy ", "grey62"), (shown, ACTION_NUMBER))
        if len(subtitle) + 6 > width or not say_deploy:
            subtitle = Text(shown, style=ACTION_NUMBER)
        width = max(width, len(subtitle) + 6)
    return Panel(
        body,
        title=Text(card.id, style="grey85"),
        title_align="left",
        subtitle=subtitle,
        subtitle_align="left",
        box=box.ROUNDED,
        padding=0,
        width=width,
        border_style=PLAYER_COLOUR[owner],
    )


def hand_entry(card: Card, owner: int | None, numbers: Sequence[int] = (), *, named: bool = True) -> Text:
    """A hand card on part of a line: ``[11-27] orcs:29 Goblin Bow Pest R`` (without
    ``named``: ``[11-27] orcs:29``)."""
    text = Text()
    text.append(card.id, f"bold {PLAYER_COLOUR[owner]}" if owner and not named else "grey70")
    if named:
        text.append(" ")
        text.append(card.name, f"bold {PLAYER_COLOUR[owner]}" if owner else "bold")
        rank = RANK_LETTER.get(card.rank, "?")
        text.append(f" {rank}", "bold gold1" if card.is_command else "")
    return _numbered(text, numbers)


def pack(entries: Sequence[Text], width: int, *, separator: str = "  ", indent: int = 0) -> list[Text]:
    """Entries on as few lines of ``width`` as they go, never one broken across two lines."""
    pad = Text(" " * indent)
    return [_join(pad, row, separator=separator) for row in _rows(entries, width - indent, len(separator))]


def render_hand(
    pos: Position,
    player: int,
    *,
    names: Sequence[str] | None = None,
    width: int = 120,
    cell_width: int = CELL_WIDTH,
    style: str = "pictures",
    numbers: Mapping[str, Sequence[int]] | None = None,
) -> RenderableType:
    """A player's hand; a hidden hand shows only its size.

    ``style``: ``pictures`` (small cards in rows that fit ``width``), ``lines`` (one line per
    card, every fact), ``inline`` (id and name, as many a line as fit) or ``ids`` (only the ids,
    after the title). ``numbers`` maps a card
    id to the numbers of the actions that deploy it, shown on the card.
    """
    hand = pos.hands[player]
    numbers = numbers or {}
    title = Text.assemble(player_label(player, names), f"'s hand ({len(hand)})")
    if not hand:
        return Group(title, Text("  empty", style="grey50"))
    if any(c is None for c in hand):
        return Group(title, Text(f"  {len(hand)} cards, hidden", style="grey50"))
    cards = [pos.cards.card(c) for c in hand if c is not None]
    deployable = any(numbers.get(c.id) for c in cards)
    if style == "lines":
        return Group(title, *(Text("  ") + _numbered(card_line(c, player), numbers.get(c.id, ())) for c in cards))
    if style in ("inline", "ids"):
        named = style == "inline"
        entries = [hand_entry(c, player, numbers.get(c.id, ()), named=named) for c in cards]
        if not named:  # the title, then the cards on as few lines as they go
            return Group(*pack([title + ":", *entries], width, separator="  "))
        title.append(":")
        if deployable:
            title.append(" [", "grey62")
            title.append("n", ACTION_NUMBER)
            title.append("] = action numbers that deploy the card", "grey62")
        return Group(title, *pack(entries, width, separator="   ", indent=2))
    note = "the yellow numbers are the actions that deploy each card" if deployable else "drawn as on the mat"
    title.append(f"  ({note})", "grey50")

    def draw(ranged_width: int | None, say_deploy: bool = True) -> list[Panel]:
        """Target grids beside pictures of ``ranged_width`` (under the pictures: ``None``)."""
        return [
            hand_card(
                card,
                player,
                numbers.get(card.id, ()),
                cell_width=ranged_width if ranged_width and card.ranged else cell_width,
                grid_beside=ranged_width is not None,
                say_deploy=say_deploy,
            )
            for card in cards
        ]

    def across(pictures: list[Panel]) -> int:
        return sum((p.width or 0) + 1 for p in pictures)

    def said(pictures: list[Panel]) -> bool:  # every numbered card says "deploy"
        return all(str(p.subtitle).startswith("deploy") for p in pictures if p.subtitle is not None)

    # One row if it can be: target grids beside the pictures, beside narrower ones, or under them.
    narrower = range(cell_width, min(cell_width, 10) - 1, -1) if any(c.ranged for c in cards) else [cell_width]
    ranged_width = next((w for w in narrower if across(draw(w)) <= width), None)
    pictures = draw(ranged_width)
    if not said(pictures):  # all cards alike: only the numbers
        pictures = draw(ranged_width, False)
    rows: list[list[Panel]] = [[]]
    used = 0
    for picture in pictures:
        w = (picture.width or cell_width + 2) + 1
        if rows[-1] and used + w > width:
            rows.append([])
            used = 0
        rows[-1].append(picture)
        used += w
    grids: list[RenderableType] = []
    for row in rows:
        grid = Table.grid(padding=(0, 1, 0, 0))
        for _ in row:
            grid.add_column(vertical="top")
        grid.add_row(*row)
        grids.append(grid)
    return Group(title, *grids)


def _numbered(text: Text, numbers: Sequence[int]) -> Text:
    if not numbers:
        return text
    return Text.assemble(("[", "grey62"), (number_ranges(numbers), ACTION_NUMBER), ("] ", "grey62"), text)


# --- counters and turn -----------------------------------------------------------------------


def threshold_style(value: int, goal: int) -> str:
    """Yellow from 60 % of a threshold, red from 80 %."""
    if goal > 0 and value >= 0.8 * goal:
        return "bold red"
    if goal > 0 and value >= 0.6 * goal:
        return "bold yellow"
    return ""


def render_status(pos: Position, names: Sequence[str] | None = None) -> Panel:
    """Whose turn, phase and decider, and per player: eliminations against the thresholds
    (yellow from 60 %, red from 80 %), hand and deck sizes."""
    v = pos.variant
    lines: list[Text] = []
    head = Text()
    head.append(f"Turn {pos.turn}  ", "bold")
    if pos.result is None:
        head.append_text(player_label(pos.to_move))
        head.append(" to move")
        lines.append(head)
        lines.append(Text.assemble(("Phase  ", "grey62"), PHASE_TEXT.get(pos.phase, pos.phase)))
        decides = Text.assemble(("Decides  ", "grey62"), player_label(pos.decider))
        if pos.decider != pos.to_move:
            decides.append(" (berserker choice)", "grey62")
        lines.append(decides)
    else:
        head.append_text(result_text(pos, names))
        lines.append(head)
    for p in (1, 2):
        lines.append(_player_line(pos, p, names))
        score = Text("  eliminated ", style="grey62")
        score.append_text(_score(pos, p, gap="  "))
        lines.append(score)
        lines.append(
            Text(f"  hand {len(pos.hands[p])}  deck {len(pos.decks[p])}  lost {len(pos.lost[p])}", style="grey62")
        )
    lines.append(
        Text(
            f"{v.rules} rules, {v.hands} hands, {v.mat} mat; {v.units_to_win} units or {v.commands_to_win} commands win",
            style="grey50",
        )
    )
    return Panel(Group(*lines), title="Lords of War", title_align="left")


PHASE_SHORT: dict[str, str] = {
    "pre": "deploy",
    "advance": "berserker advance",
    "post": "shoot, move, draw or recall",
    "over": "game over",
}


def _player_line(pos: Position, player: int, names: Sequence[str] | None) -> Text:
    """``Player 1  alice · orcs``: the label, then the name (when it says more) and the army."""
    who = player_label(player)
    name = (names or ["", ""])[player - 1]
    about = [n for n in (name if name.lower() != f"player {player}" else "", pos.armies[player]) if n]
    if about:
        who.append("  " + " · ".join(about), "grey70")
    return who


def _score(pos: Position, player: int, gap: str = " ") -> Text:
    """``3/20 units 1/4 commands``: what ``player`` eliminated against the thresholds (yellow
    from 60 %, red from 80 %); ``gap`` after ``units``."""
    v = pos.variant
    units = engine.units_eliminated(pos, player)
    commands = engine.commands_eliminated(pos, player)
    text = Text()
    text.append(f"{units}/{v.units_to_win}", threshold_style(units, v.units_to_win) or "bold")
    text.append(f" units{gap}", "grey62")
    text.append(f"{commands}/{v.commands_to_win}", threshold_style(commands, v.commands_to_win) or "bold")
    text.append(" commands", "grey62")
    return text


def render_status_compact(
    pos: Position, names: Sequence[str] | None = None, *, minimal: bool = False, width: int = 80
) -> Group:
    """The status on three lines without a frame (``minimal``: one line, or two when ``width``
    is too narrow, without names or hand and deck sizes), for a terminal too short for
    :func:`render_status`."""
    head = Text()
    head.append(f"Turn {pos.turn}", "bold")
    if pos.result is not None:
        head.append("  ")
        head.append_text(result_text(pos, names))
    else:
        head.append("  ")
        head.append_text(player_label(pos.to_move))
        head.append(" to move: ", "")
        head.append(PHASE_SHORT.get(pos.phase, pos.phase) if minimal else PHASE_TEXT.get(pos.phase, pos.phase))
        if pos.decider != pos.to_move:
            head.append(" · decides: ", "grey62")
            head.append_text(player_label(pos.decider))
            head.append(" (berserker choice)", "grey62")
    if minimal:
        scores = Text("eliminated ", "grey62")
        for p in (1, 2):
            scores.append(f"P{p} ", player_style(p, bold=True))
            scores.append_text(_score(pos, p))
            if p == 1:
                scores.append(" · ", "grey62")
        if len(head) + 3 + len(scores) <= width:
            return Group(Text.assemble(head, (" · ", "grey62"), scores))
        return Group(head, scores)
    lines = [head]
    for p in (1, 2):
        who = _player_line(pos, p, names)
        who.append("  eliminated ", "grey62")
        who.append_text(_score(pos, p))
        who.append(f"  hand {len(pos.hands[p])}  deck {len(pos.decks[p])}  lost {len(pos.lost[p])}", "grey62")
        lines.append(who)
    return Group(*lines)


def result_text(pos: Position, names: Sequence[str] | None = None) -> Text:
    """``Player 1 wins: 20 units eliminated`` (or a draw), coloured by the winner."""
    if pos.result is None:
        return Text("")
    winner, reason = pos.result.winner, pos.result.reason
    if winner is None:
        return Text(f"Draw: {reason}", style="bold")
    return Text.assemble(player_label(winner, names), Text(f" wins: {reason}", style="bold"))


# --- events ----------------------------------------------------------------------------------


class EventNarrator:
    """Turns engine events into sentences, following the units as the events move them.

    Built from the position *before* the events, it names the unit behind each square.
    """

    def __init__(self, pos: Position, names: Sequence[str] | None = None):
        self.cards: CardSet = pos.cards
        self.names = names
        self.units: dict[str, tuple[str, int]] = {mat.name(s): (u.id, u.owner) for s, u in pos.board.items()}

    def _who(self, player: Any) -> Text:
        if player in (1, 2):
            return player_label(int(player))
        return Text("?")

    def _card(self, card_id: Any, owner: Any = None) -> Text:
        try:
            name = self.cards.card(card_id).name
        except (KeyError, ValueError, TypeError):
            name = str(card_id)
        style = PLAYER_COLOUR.get(owner, "") if owner in (1, 2) else ""
        return Text(name, style=f"bold {style}".strip())

    def _unit(self, square: str) -> Text:
        unit = self.units.get(square)
        if unit is None:
            return Text("unit")
        return self._card(unit[0], unit[1])

    def describe(self, event: Event) -> Text:  # noqa: C901 - one branch per event kind
        """One line for one event; the narrator's idea of the mat follows the event."""
        if event["type"] == "deploy":
            sq, card, player = event["square"], event["card"], event["player"]
            self.units[sq] = (card, player)
            text = Text.assemble(self._who(player), " deploys ", self._card(card, player), f" on {sq}")
            if event["forced"]:
                text.append(" (forced: no legal deployment)", "yellow")
            return text
        if event["type"] == "eliminated":
            sq = event["square"]
            self.units.pop(sq, None)
            return Text.assemble(
                self._card(event["card"], event["owner"]), f" on {sq} ", Text("eliminated", style="bold red")
            )
        if event["type"] == "advance":
            frm, to = event["from"], event["to"]
            unit = self.units.pop(frm, None)
            text = Text.assemble(
                "berserker ", self._unit(frm) if unit is None else self._card(*unit), f" advances {frm} -> {to}"
            )
            if unit is not None:
                self.units[to] = unit
            return text
        if event["type"] == "move":
            frm, to = event["from"], event["to"]
            unit = self.units.pop(frm, None)
            text = Text.assemble(self._card(*unit) if unit else Text("unit"), f" moves {frm} -> {to}")
            if unit is not None:
                self.units[to] = unit
            return text
        if event["type"] == "shot":
            frm, target = event["from"], event["target"]
            verb = " declares a shot at " if event["declared"] else " shoots "
            return Text.assemble(
                self._unit(frm),
                f" on {frm}{verb}",
                self._unit(target),
                f" on {target} ({RANGED_MARK}{event['damage']})",
            )
        if event["type"] == "reveal":
            hand = ", ".join("?" if c is None else self.cards[c].name if c in self.cards else c for c in event["hand"])
            return Text.assemble(self._who(event["player"]), Text(f"'s hand revealed: {hand}", style="yellow"))
        if event["type"] == "recall":
            sq = event["square"]
            unit = self.units.pop(sq, None)
            owner = unit[1] if unit else event["player"]
            return Text.assemble(self._who(owner), " recalls ", self._card(event["card"], owner), f" from {sq}")
        if event["type"] == "draw":
            return Text.assemble(self._who(event["player"]), " draws a card")
        if event["type"] == "pass":
            return Text.assemble(self._who(event["player"]), " passes (no draw or recall possible)")
        if event["type"] == "extra_turn":
            return Text(
                f"extra turn for player {event['player']} (the enemy general fell)",
                style=f"bold {PLAYER_COLOUR.get(event['player'], '')}".strip(),
            )
        if event["type"] == "resign":
            return Text.assemble(self._who(event["player"]), Text(" resigns", style="bold"))
        if event["type"] == "timeout":
            return Text.assemble(self._who(event["player"]), Text(" is out of time", style="bold"))
        if event["type"] == "abort":
            return Text.assemble(self._who(event["player"]), Text(" aborts the game", style="bold"))
        if event["type"] == "draw_agreed":
            return Text("Both players agree to a draw", style="bold")
        winner = event["winner"]
        if winner is None:
            return Text(f"Game drawn: {event['reason']}", style="bold")
        return Text.assemble(player_label(winner), Text(f" wins: {event['reason']}", style="bold"))


def describe_events(events: Iterable[Event], before: Position, names: Sequence[str] | None = None) -> list[Text]:
    """Readable lines for ``events``, which happened to the position ``before``."""
    narrator = EventNarrator(before, names)
    return [narrator.describe(e) for e in events]


def render_log(lines: Sequence[Text], limit: int | None = 12, title: str = "Events") -> Panel:
    """The last ``limit`` log lines (all with ``limit=None``)."""
    shown = list(lines) if limit is None else list(lines)[-limit:]
    body: RenderableType = Group(*shown) if shown else Text("nothing yet", style="grey50")
    return Panel(body, title=title, title_align="left")


# --- legal actions ---------------------------------------------------------------------------


def _action_group(text: str, cards: CardSet, *, named: bool = True) -> tuple[str, str]:
    """(group label, item) for one action: actions that differ only by the last square share a
    label, so ``deploy orcs:07 d4`` becomes (``deploy orcs:07 Orc Warhog``, ``d4``); without
    ``named``, the label leaves out the card's name (``deploy orcs:07``)."""
    tokens = text.split(" ")
    verb = tokens[0]
    if verb == "deploy" and len(tokens) == 3:
        name = cards[tokens[1]].name if named and tokens[1] in cards else ""
        return f"deploy {tokens[1]} {name}".strip(), tokens[2]
    if verb in ("shoot", "advance", "move") and len(tokens) == 3:
        what = {"shoot": "shoot from", "advance": "advance berserker", "move": "move"}[verb]
        return f"{what} {tokens[1]} to", tokens[2]
    if verb == "recall" and len(tokens) == 2:
        return "recall", tokens[1]
    return text, ""


def _action_groups(actions: Sequence[str], cards: CardSet, named: bool) -> list[tuple[str | None, list[Text]]]:
    """The numbered actions in groups: (label, items), or (None, [the whole numbered action])."""
    groups: list[tuple[str | None, list[Text]]] = []
    current: str | None = None
    for number, action in enumerate(actions, 1):
        label, item = _action_group(action, cards, named=named)
        if not item:
            groups.append((None, [Text.assemble((str(number), ACTION_NUMBER), " ", action)]))
            current = None
            continue
        piece = Text.assemble((str(number), ACTION_NUMBER), ":" + item)
        if label != current:
            current = label
            groups.append((label, [piece]))
        else:
            groups[-1][1].append(piece)
    return groups


def _rows(items: Sequence[Text], width: int, separator: int = 2) -> list[list[Text]]:
    """``items`` in rows of at most ``width`` characters (an item never broken)."""
    rows: list[list[Text]] = [[]]
    used = 0
    for item in items:
        need = len(item) + (separator if rows[-1] else 0)
        if rows[-1] and used + need > width:
            rows.append([])
            used, need = 0, len(item)
        rows[-1].append(item)
        used += need
    return rows


def _join(head: Text, items: Sequence[Text], tail: str = "", *, separator: str = "  ") -> Text:
    line = head.copy()
    for i, item in enumerate(items):
        line.append(separator if i else "")
        line.append_text(item)
    if tail:
        line.append(("  " if items else "") + tail, "grey62")
    return line


def _action_lines(actions: Sequence[str], cards: CardSet, width: int, max_lines: int | None) -> tuple[list[Text], int]:
    """The lines of the numbered action list within ``width`` and how many actions they leave
    out. All of them when they take at most ``max_lines``; else the list is condensed: card
    names left out, then groups cut short with ``+N more`` and the last groups left out. An
    action is shown whole or not at all."""
    for named in (True, False):
        groups = _action_groups(actions, cards, named)
        label_width = max((len(label) for label, _ in groups if label is not None), default=0)
        stacked = width - label_width - 2 < 16  # too narrow for the actions beside their labels
        indent = 4 if stacked else label_width + 2
        layout: list[list[Text]] = []
        for label, items in groups:
            if label is None:
                layout.append([items[0]])
                continue
            rows = _rows(items, width - indent)
            pad = Text(" " * indent)
            if stacked:
                layout.append([Text(label, style="bold"), *(_join(pad, row) for row in rows)])
            else:
                first = Text.assemble(Text(label, style="bold"), " " * (indent - len(label)))
                layout.append([_join(first, rows[0]), *(_join(pad, row) for row in rows[1:])])
        if max_lines is None or sum(len(lines) for lines in layout) <= max_lines:
            return [line for lines in layout for line in lines], 0
    assert max_lines is not None
    if len(groups) > max_lines:  # several groups a line, in columns, each cut short if need be
        for columns in (2, 3, 4):
            cap = (width - 3 * (columns - 1)) // columns
            entries = [_cut(Text(label or "", style="bold"), items, cap) for label, items in groups]
            if any(len(entry) > cap for entry, _ in entries):
                continue
            lines = pack([entry + " " * (cap - len(entry)) for entry, _ in entries], width, separator="   ")
            if len(lines) <= max_lines:
                for line in lines:
                    line.rstrip()  # the padding after the last column
                return lines, sum(missing for _, missing in entries)
    # One line per group while lines last, the spare lines to the groups in order.
    indent = label_width + 2
    room = max_lines if len(groups) <= max_lines else max_lines - 1
    shown = groups[:room]
    allotted = [1] * len(shown)
    spare = room - len(shown)
    for i, (label, items) in enumerate(shown):
        if label is not None and spare > 0:
            extra = min(spare, len(_rows(items, width - indent)) - 1)
            allotted[i] += extra
            spare -= extra
    out: list[Text] = []
    left_out = 0
    for (label, items), k in zip(shown, allotted, strict=True):
        if label is None:
            out.append(items[0])
            continue
        rows = _rows(items, width - indent)
        first = Text.assemble(Text(label, style="bold"), " " * (indent - len(label)))
        heads = [first] + [Text(" " * indent)] * (k - 1)
        for head, row in zip(heads[:-1], rows, strict=False):
            out.append(_join(head, row))
        line, missing = _cut(heads[-1], items[sum(len(row) for row in rows[: k - 1]) :], width, gap=0)
        left_out += missing
        out.append(line)
    if len(groups) > room:
        missing = sum(len(items) for _, items in groups[room:])
        left_out += missing
        out.append(Text(f"… and {missing} more actions", style="grey62"))
    return out, left_out


def _cut(head: Text, items: Sequence[Text], width: int, gap: int = 2) -> tuple[Text, int]:
    """``head``, ``gap`` spaces and as many of ``items`` as fit in ``width`` with ``+N more``
    after them for the others; and N. An unlabelled action (empty ``head``) is its one item."""
    if not head.plain:
        return items[0], 0
    line = Text.assemble(head, " " * gap)
    kept: list[Text] = []
    used = len(line)
    for j, item in enumerate(items):
        more = len(items) - j - 1
        tail = len(f"  +{more} more") if more else 0
        if used + (2 if kept else 0) + len(item) + tail > width:
            break
        used += (2 if kept else 0) + len(item)
        kept.append(item)
    missing = len(items) - len(kept)
    return _join(line, kept, f"+{missing} more" if missing else ""), missing


def render_actions(
    actions: Sequence[str],
    cards: CardSet,
    *,
    title: str = "Your actions",
    width: int = 120,
    max_lines: int | None = None,
    boxed: bool = True,
) -> RenderableType:
    """The numbered actions (``actions`` in the order they are numbered), grouped on lines that
    share everything but the last square: ``deploy orcs:07 Orc Warhog  1:c4  2:d4``.

    ``width`` is the width to fill (a frame takes 4 of it); with ``max_lines``, the list is
    condensed to that many lines (frame and title not counted) and says how to see it all.
    """
    inner = width - 4 if boxed else width
    lines, left_out = _action_lines(actions, cards, inner, max_lines)
    heading = Text(title, style="bold")
    if left_out:
        heading.append(f" — {left_out} not shown: type 'actions' to see all", "grey62")
    body: RenderableType = Group(*lines) if actions else Text("no action to choose", style="grey50")
    if boxed:
        return Panel(body, title=heading, title_align="left", width=width)
    return Group(heading, body)


# --- the whole screen ------------------------------------------------------------------------

SIDE_WIDTH = 44
"""Least width of the side column (status, events) when it goes beside the mat."""

SIDE_MIN_LINES = 16
"""Least lines of a mat with the status and the events beside it (else they go below it)."""

PROMPT_LINES = 1
"""Lines kept free under the screen for the prompt."""

MIN_ACTION_LINES = 4
"""Least lines of the action list (its heading included) a screen is made to leave room for."""

SCREEN_PLANS: tuple[tuple[int, str], ...] = (
    (4, "pictures"),
    (3, "pictures"),
    (3, "inline"),
    (1, "pictures"),
    (1, "inline"),
    (1, "ids"),
)
"""(square height, hand style) from the roomiest screen to the most compact; the first one
that fits the terminal is used."""


def _count_lines(renderable: RenderableType, width: int) -> int:
    console = Console(width=width, file=io.StringIO(), color_system=None, legacy_windows=False)
    return len(console.render_lines(renderable, console.options.update(width=width), pad=False))


def render_screen(
    view: Position,
    *,
    viewer: int,
    names: Sequence[str] | None = None,
    actions: Sequence[str] = (),
    log: Sequence[Text] = (),
    highlight: Iterable[int] = (),
    width: int = 160,
    height: int | None = None,
    log_lines: int = 12,
    banner: RenderableType | None = None,
) -> RenderableType:
    """One screen for ``viewer``: mat and hand, status, recent events and the numbered actions.

    ``view`` should be ``viewer``'s view (``notation.view``): what is hidden there is hidden
    here. Status and events go beside the mat when ``width`` allows, below it otherwise.
    With ``height``, the screen (and a prompt line under it) fits that many lines: the mat is
    always drawn whole, in smaller squares if need be, while the hand, the status, the events
    and the action list are condensed (:data:`SCREEN_PLANS`).
    The numbers on the hand cards are those of the actions that deploy them.
    """
    numbers = deploy_numbers(actions)
    other = 3 - viewer
    visible = bool(view.hands[other]) and all(c is not None for c in view.hands[other])
    title = "Your actions" if view.result is None else "Game over"
    title = f"{title} ({len(actions)})" if actions else title
    show_actions = bool(actions) or view.result is None
    top: list[RenderableType] = [banner] if banner is not None else []

    def hand_parts(style: str, cell: int) -> list[RenderableType]:
        own = render_hand(
            view, viewer, names=names, width=width, cell_width=max(cell, 13), style=style, numbers=numbers
        )
        if not visible:
            return [own]
        return [own, render_hand(view, other, names=names, width=width, style={"pictures": "lines"}.get(style, style))]

    def beside(board: RenderableType, board_width: int, board_lines: int | None) -> RenderableType:
        """The mat with the status and the events beside it (no taller than the mat if possible)."""
        status = render_status(view, names)
        events = log_lines
        if board_lines is not None:
            events = max(1, min(log_lines, board_lines - _count_lines(status, width - board_width - 1) - 2))
        layout = Table.grid(padding=(0, 1, 0, 0))
        layout.add_column(vertical="top", width=board_width)
        layout.add_column(vertical="top", width=width - board_width - 1)
        layout.add_row(board, Group(status, render_log(log, events)))
        return layout

    def all_actions() -> list[RenderableType]:
        return [render_actions(actions, view.cards, title=title, width=width)] if show_actions else []

    if height is None:  # no limit: the roomiest screen
        cell = fit_cell_width(view, width)
        board = render_mat(view, highlight=highlight, cell_width=cell)
        board_width = min(width, mat_width(view, cell))
        parts = list(top)
        if width >= board_width + SIDE_WIDTH + 1:
            parts.append(beside(board, board_width, None))
        else:
            parts.extend([board, render_status(view, names), render_log(log, log_lines)])
        return Group(*parts, *hand_parts("pictures", cell), *all_actions())

    budget = height - PROMPT_LINES - sum(_count_lines(p, width) for p in top)
    full = all_actions()
    full_actions = sum(_count_lines(p, width) for p in full)
    # The status under the mat and its lines do not depend on the plan: drawn and counted once.
    statuses = {
        kind: (status, _count_lines(status, width))
        for kind, status in (
            ("compact", render_status_compact(view, names)),
            ("minimal", render_status_compact(view, names, minimal=True, width=width)),
        )
    }
    last = (*SCREEN_PLANS[-1], "minimal")
    for cell_height, hand_style in SCREEN_PLANS:
        cell = fit_cell_width(view, width, cell_height)
        board_width = mat_width(view, cell, cell_height)
        board_lines = mat_height(view, cell, cell_height)
        if cell_height != 1 and (board_width > width or board_lines > budget - MIN_ACTION_LINES):
            continue
        board = render_mat(view, highlight=highlight, cell_width=cell, cell_height=cell_height)
        hand = hand_parts(hand_style, cell)
        hand_lines = sum(_count_lines(p, width) for p in hand)
        heads: list[tuple[str, list[RenderableType], int]] = []
        if width >= board_width + SIDE_WIDTH + 1 and board_lines >= SIDE_MIN_LINES:
            layout = beside(board, board_width, board_lines)
            heads.append(("beside", [layout], _count_lines(layout, width)))
        for kind, (status, status_lines) in statuses.items():
            heads.append((kind, [board, status], board_lines + status_lines))
        for kind, head, head_lines in heads:
            left = budget - head_lines - hand_lines
            if full_actions <= left:
                choices = full
                used = full_actions
            elif left >= MIN_ACTION_LINES or (cell_height, hand_style, kind) == last:
                condensed = render_actions(
                    actions, view.cards, title=title, width=width, max_lines=max(left - 1, 1), boxed=False
                )
                choices, used = [condensed], _count_lines(condensed, width)
            else:
                continue
            events: list[RenderableType] = []
            spare = left - used
            if kind != "beside" and spare >= 2 and log:
                recent = Group(
                    Text("Events (type 'log' for all)", style="grey50"), *list(log)[-min(spare - 1, log_lines) :]
                )
                if _count_lines(recent, width) <= spare:
                    events = [recent]
            return Group(*top, *head, *events, *hand, *choices)
    raise AssertionError("the last screen plan always fits")  # pragma: no cover


def pass_screen(player: int, names: Sequence[str] | None = None) -> Panel:
    """The hot-seat screen shown between two deciders when hands are hidden."""
    text = Text.assemble("Pass the device to ", player_label(player, names), " — press Enter")
    return Panel(text, box=box.DOUBLE, padding=(1, 4), expand=False)


__all__ = [
    "ARROW",
    "CELL_WIDTH",
    "LEGEND",
    "PLAYER_COLOUR",
    "EventNarrator",
    "attacks_text",
    "card_line",
    "describe_events",
    "empty_cell",
    "fit_cell_width",
    "hand_card",
    "mat_bounds",
    "mat_width",
    "pass_screen",
    "render_actions",
    "render_card",
    "render_hand",
    "render_log",
    "render_mat",
    "render_screen",
    "render_status",
    "result_text",
    "short_name",
    "target_grid",
    "threshold_style",
    "unit_cell",
    "world_attacks",
]
