"""Rich renderables for a game: the Battle Mat, hands, counters, the event log, card details.

Everything here only reads a :class:`~lordsofwar.rules.state.Position` (usually a player's view)
and returns something Rich can print; no function prints or asks anything. The mat is drawn from
player 1's side: row 1 at the bottom, column ``a`` on the left. Every unit's arrows are drawn in
world orientation, so player 2's units (which face down the mat) have their arrows turned 180°.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lordsofwar.rules import engine, mat
from lordsofwar.rules.cards import Card, CardSet
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
    "Target grids: U is the unit, ■ a square it can shoot, drawn as on the mat."
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


def world_arrows(card: Card, owner: int) -> dict[tuple[int, int], int]:
    """The card's arrows as world-frame steps (notation.md section 2: player 2 faces -y)."""
    f = mat.facing(owner)
    out: dict[tuple[int, int], int] = {}
    for d, value in card.attacks.items():
        if value > 0:
            dx, dy = mat.DIRECTION_VECTORS[d]
            out[(dx * f, dy * f)] = value
    return out


ARROW_ORDER: tuple[str, ...] = ("FL", "F", "FR", "L", "R", "BL", "B", "BR")
"""Reading order of a card's arrows, as the card files write them."""


def arrows_text(card: Card) -> str:
    """The arrows as in the card files, in the card's own frame: ``FL5 F5 FR5``."""
    return " ".join(f"{d}{card.attacks[d]}" for d in ARROW_ORDER if card.attacks.get(d))


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
    base = f"{PLAYER_COLOUR[owner]} {background}".strip()
    strong = f"bold bright_white {background}".strip()
    hot = set(engaging)
    arrows = world_arrows(card, owner)

    def arrow(step: tuple[int, int]) -> tuple[str, str]:
        value = arrows.get(step)
        if not value:
            return "", base
        return f"{ARROW[step]}{value}", (f"bold {base} underline" if step in hot else base)

    def row(dy: int) -> Text:
        left, centre, right = arrow((-1, dy)), arrow((0, dy)), arrow((1, dy))
        return _line(
            [(left[0], left[1], "left"), (centre[0], centre[1], "centre"), (right[0], right[1], "right")], width, base
        )

    rank = RANK_LETTER.get(card.rank, "?")
    rank_style = f"bold gold1 {background}".strip() if card.is_command else strong
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


def empty_cell(label: str, *, width: int = CELL_WIDTH, style: str = "grey50", background: str = "") -> Text:
    """An empty square: its name in the middle, so a player can read it off to type it."""
    base = background
    lines = [_line([], width, base) for _ in range(CELL_HEIGHT)]
    lines[CELL_HEIGHT // 2 - 1] = _line([(label, f"{style} {background}".strip(), "centre")], width, base)
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
    text.append(f"  {card.rank} {card.cls} D{card.defence}  {arrows_text(card)}", style)
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
    facts.add_row("arrows", arrows_text(card) or "none")
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


def _column_label(x: int, bordered: bool) -> str:
    if bordered:
        return mat.COLUMNS[x]
    letter = mat.COLUMNS[x] if 0 <= x < mat.WIDTH else ""
    return f"{letter} x={x}".strip()


def _row_label(y: int, bordered: bool) -> str:
    if bordered:
        return str(y + 1)
    on = str(y + 1) if 0 <= y < mat.HEIGHT else ""
    return f"{on}\ny={y}".strip()


def render_mat(
    pos: Position,
    *,
    highlight: Iterable[int] = (),
    cell_width: int = CELL_WIDTH,
    margin: int = 1,
) -> Table:
    """The Battle Mat seen from player 1's side (row 1 at the bottom), squares in ``highlight``
    shaded. On the unbordered mat, columns and rows carry their ``x`` and ``y``.

    Squares alternate two dark shades like a chessboard instead of ruled lines between rows,
    which keeps the mat short enough for a 50-line terminal.
    """
    bordered = pos.variant.bordered
    xs, ys = mat_bounds(pos, margin)
    lit = set(highlight)
    label_width = 1 if bordered else 4
    table = Table(
        box=box.SQUARE,
        show_lines=False,
        show_header=True,
        padding=0,
        header_style="bold",
        border_style="grey42",
        expand=False,
    )
    table.add_column("", justify="center", vertical="middle", width=label_width, style="bold")
    for x in xs:
        label = _column_label(x, bordered).center(cell_width)
        # Cells are drawn to the exact width: "left" keeps their spaces (centring would strip them).
        table.add_column(label, justify="left", width=cell_width, no_wrap=True)
    board = pos.board
    for y in reversed(ys):
        cells: list[RenderableType] = [Text(_row_label(y, bordered), style="bold")]
        for x in xs:
            sq = mat.square(x, y)
            bg = HIGHLIGHT if sq in lit else CHECKER[(x + y) % 2]
            unit = board.get(sq)
            if unit is None:
                printed = sq in mat.ON_MAT
                cells.append(
                    empty_cell(mat.name(sq), width=cell_width, style="grey50" if printed else OFF_MAT, background=bg)
                )
                continue
            hot = []
            for step in world_arrows(unit.card, unit.owner):
                other = board.get(sq + mat.delta(*step))
                if other is not None and other.owner != unit.owner:
                    hot.append(step)
            cells.append(unit_cell(unit.card, unit.owner, width=cell_width, engaging=hot, background=bg))
        table.add_row(*cells)
    return table


def mat_width(pos: Position, cell_width: int = CELL_WIDTH) -> int:
    """Characters the drawn mat takes across."""
    xs, _ = mat_bounds(pos)
    label = 1 if pos.variant.bordered else 4
    return label + 2 + len(xs) * (cell_width + 1)


def fit_cell_width(pos: Position, width: int) -> int:
    """The widest square (at most :data:`CELL_WIDTH`, at least 9) that lets the mat fit ``width``."""
    xs, _ = mat_bounds(pos)
    label = 1 if pos.variant.bordered else 4
    return max(9, min(CELL_WIDTH, (width - label - 2) // len(xs) - 1))


# --- hands -----------------------------------------------------------------------------------


def hand_card(card: Card, owner: int, index: int, *, cell_width: int = CELL_WIDTH, grid_beside: bool = True) -> Panel:
    """One hand card as a small card: the same picture as on the mat, a ranged card's target
    grid beside it (or below it)."""
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
    title = Text(f"{index} ", style="grey62") + Text(card.id, style="grey85")
    return Panel(
        body,
        title=title,
        title_align="left",
        box=box.ROUNDED,
        padding=0,
        width=width,
        border_style=PLAYER_COLOUR[owner],
    )


def render_hand(
    pos: Position,
    player: int,
    *,
    names: Sequence[str] | None = None,
    width: int = 120,
    cell_width: int = CELL_WIDTH,
    compact: bool = False,
) -> RenderableType:
    """A player's hand as small cards in rows that fit ``width`` (``compact``: one line per
    card); a hidden hand shows only its size."""
    hand = pos.hands[player]
    title = Text.assemble(player_label(player, names), f"'s hand ({len(hand)})")
    if not hand:
        return Group(title, Text("  empty", style="grey50"))
    if any(c is None for c in hand):
        return Group(title, Text(f"  {len(hand)} cards, hidden", style="grey50"))
    cards = [pos.cards.card(c) for c in hand if c is not None]
    if compact:
        return Group(title, *(Text("  ") + card_line(c, player) for c in cards))
    title.append("  (drawn as they would stand on the mat)", "grey50")
    pictures = [hand_card(card, player, i, cell_width=cell_width) for i, card in enumerate(cards, 1)]
    if sum((p.width or 0) + 1 for p in pictures) > width:  # keep one row: grids under the pictures
        pictures = [
            hand_card(card, player, i, cell_width=cell_width, grid_beside=False) for i, card in enumerate(cards, 1)
        ]
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
        units = engine.units_eliminated(pos, p)
        commands = engine.commands_eliminated(pos, p)
        who = player_label(p)
        name = (names or ["", ""])[p - 1]
        about = [n for n in (name if name.lower() != f"player {p}" else "", pos.armies[p]) if n]
        if about:
            who.append("  " + " · ".join(about), "grey70")
        lines.append(who)
        score = Text("  eliminated ", style="grey62")
        score.append(f"{units}/{v.units_to_win}", threshold_style(units, v.units_to_win) or "bold")
        score.append(" units  ", "grey62")
        score.append(f"{commands}/{v.commands_to_win}", threshold_style(commands, v.commands_to_win) or "bold")
        score.append(" commands", "grey62")
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


def result_text(pos: Position, names: Sequence[str] | None = None) -> Text:
    """``Player 1 wins: 20 units eliminated`` (or a draw), coloured by the winner."""
    if pos.result is None:
        return Text("")
    winner, reason = pos.result
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

    def describe(self, event: Mapping[str, Any]) -> Text:  # noqa: C901 - one branch per event type
        """One line for one event; the narrator's idea of the mat follows the event."""
        kind = event.get("type")
        if kind == "deploy":
            sq, card, player = event["square"], event["card"], event["player"]
            self.units[sq] = (card, player)
            text = Text.assemble(self._who(player), " deploys ", self._card(card, player), f" on {sq}")
            if event.get("forced"):
                text.append(" (forced: no legal deployment)", "yellow")
            return text
        if kind == "eliminated":
            sq = event["square"]
            self.units.pop(sq, None)
            return Text.assemble(
                self._card(event["card"], event["owner"]), f" on {sq} ", Text("eliminated", style="bold red")
            )
        if kind == "advance":
            frm, to = event["from"], event["to"]
            unit = self.units.pop(frm, None)
            text = Text.assemble(
                "berserker ", self._unit(frm) if unit is None else self._card(*unit), f" advances {frm} -> {to}"
            )
            if unit is not None:
                self.units[to] = unit
            return text
        if kind == "move":
            frm, to = event["from"], event["to"]
            unit = self.units.pop(frm, None)
            text = Text.assemble(self._card(*unit) if unit else Text("unit"), f" moves {frm} -> {to}")
            if unit is not None:
                self.units[to] = unit
            return text
        if kind == "shot":
            frm, target = event["from"], event["target"]
            verb = " declares a shot at " if event.get("declared") else " shoots "
            return Text.assemble(
                self._unit(frm),
                f" on {frm}{verb}",
                self._unit(target),
                f" on {target} ({RANGED_MARK}{event.get('damage', '?')})",
            )
        if kind == "reveal":
            hand = ", ".join(self.cards[c].name if c in self.cards else str(c) for c in event.get("hand", []))
            return Text.assemble(self._who(event["player"]), Text(f"'s hand revealed: {hand}", style="yellow"))
        if kind == "recall":
            sq = event["square"]
            unit = self.units.pop(sq, None)
            owner = unit[1] if unit else event.get("player")
            return Text.assemble(self._who(owner), " recalls ", self._card(event["card"], owner), f" from {sq}")
        if kind == "draw":
            return Text.assemble(self._who(event["player"]), " draws a card")
        if kind == "pass":
            return Text.assemble(self._who(event["player"]), " passes (no draw or recall possible)")
        if kind == "extra_turn":
            return Text(
                f"extra turn for player {event['player']} (the enemy general fell)",
                style=f"bold {PLAYER_COLOUR.get(event['player'], '')}".strip(),
            )
        if kind == "resign":
            return Text.assemble(self._who(event["player"]), Text(" resigns", style="bold"))
        if kind == "result":
            winner = event.get("winner")
            if winner is None:
                return Text(f"Game drawn: {event.get('reason', '')}", style="bold")
            return Text.assemble(player_label(winner), Text(f" wins: {event.get('reason', '')}", style="bold"))
        return Text(", ".join(f"{k}={v}" for k, v in event.items()), style="grey62")


def describe_events(
    events: Iterable[Mapping[str, Any]], before: Position, names: Sequence[str] | None = None
) -> list[Text]:
    """Readable lines for ``events``, which happened to the position ``before``."""
    narrator = EventNarrator(before, names)
    return [narrator.describe(e) for e in events]


def render_log(lines: Sequence[Text], limit: int | None = 12, title: str = "Events") -> Panel:
    """The last ``limit`` log lines (all with ``limit=None``)."""
    shown = list(lines) if limit is None else list(lines)[-limit:]
    body: RenderableType = Group(*shown) if shown else Text("nothing yet", style="grey50")
    return Panel(body, title=title, title_align="left")


# --- legal actions ---------------------------------------------------------------------------


def _action_group(text: str, cards: CardSet) -> tuple[str, str]:
    """(group label, item) for one action: actions that differ only by the last square share a
    label, so ``deploy orcs:07 d4`` becomes (``deploy orcs:07 Orc Warhog``, ``d4``)."""
    tokens = text.split(" ")
    verb = tokens[0]
    if verb == "deploy" and len(tokens) == 3:
        name = cards[tokens[1]].name if tokens[1] in cards else ""
        return f"deploy {tokens[1]} {name}".strip(), tokens[2]
    if verb in ("shoot", "advance", "move") and len(tokens) == 3:
        what = {"shoot": "shoot from", "advance": "advance berserker", "move": "move"}[verb]
        return f"{what} {tokens[1]} to", tokens[2]
    if verb == "recall" and len(tokens) == 2:
        return "recall", tokens[1]
    return text, ""


def render_actions(actions: Sequence[str], cards: CardSet, *, title: str = "Your actions") -> Panel:
    """The numbered actions (``actions`` in the order they are numbered), grouped on lines that
    share everything but the last square: ``deploy orcs:07 Orc Warhog  1:c4  2:d4``."""
    table = Table.grid(padding=(0, 2, 0, 0))
    table.add_column(no_wrap=True, style="bold")
    table.add_column()
    current: str | None = None
    items = Text()
    for number, action in enumerate(actions, 1):
        label, item = _action_group(action, cards)
        if not item:
            current = None
            table.add_row(Text.assemble((str(number), "bold yellow"), " ", label), "")
            continue
        if label != current:
            current = label
            items = Text()
            table.add_row(label, items)
        else:
            items.append("  ")
        items.append(str(number), "bold yellow")
        items.append(":" + item)
    body: RenderableType = table if actions else Text("no action to choose", style="grey50")
    return Panel(body, title=title, title_align="left")


# --- the whole screen ------------------------------------------------------------------------

SIDE_WIDTH = 44
"""Least width of the side column (status, events) when it goes beside the mat."""


def render_screen(
    view: Position,
    *,
    viewer: int,
    names: Sequence[str] | None = None,
    actions: Sequence[str] = (),
    log: Sequence[Text] = (),
    highlight: Iterable[int] = (),
    width: int = 160,
    log_lines: int = 12,
    banner: RenderableType | None = None,
) -> RenderableType:
    """One screen for ``viewer``: mat and hand, status, recent events and the numbered actions.

    ``view`` should be ``viewer``'s view (``notation.view``): what is hidden there is hidden
    here. Status and events go beside the mat when ``width`` allows, below it otherwise.
    """
    cell = fit_cell_width(view, width)
    board = render_mat(view, highlight=highlight, cell_width=cell)
    left_width = min(width, mat_width(view, cell))
    side_by_side = width >= left_width + SIDE_WIDTH + 1
    own = render_hand(view, viewer, names=names, width=width, cell_width=max(cell, 13))
    other = 3 - viewer
    visible = bool(view.hands[other]) and all(c is not None for c in view.hands[other])
    status = render_status(view, names)
    events = render_log(log, log_lines)
    title = "Your actions" if view.result is None else "Game over"
    choices = render_actions(actions, view.cards, title=f"{title} ({len(actions)})" if actions else title)
    parts: list[RenderableType] = []
    if banner is not None:
        parts.append(banner)
    if side_by_side:
        layout = Table.grid(padding=(0, 1, 0, 0))
        layout.add_column(vertical="top", width=left_width)
        layout.add_column(vertical="top", width=width - left_width - 1)
        layout.add_row(board, Group(status, events))
        parts.append(layout)
    else:
        parts.extend([board, status, events])
    parts.append(own)
    if visible:
        parts.append(render_hand(view, other, names=names, compact=True))
    if actions or view.result is None:
        parts.append(choices)
    return Group(*parts)


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
    "arrows_text",
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
    "world_arrows",
]
