"""The shipped puzzles: positions from bot games where one action is clearly best.

A puzzle is a decision point of a game between bots, shown from the side of the player who
decides there (the *solver*): their view (no hidden card: the opponent's hand in the
hidden-hands variant is unknown, both decks are counts), the cards of the opponent's hand the
solver has seen (a recalled unit, a forced deployment's reveal), and the solver's own deck list.
Its ``solution`` is the one action a deep search rates far above every other, in nearly every
world the hidden cards could make; :mod:`lordsofwar.learn.generate` finds them (docs/learn.md,
"The puzzle generator").

The puzzles live in ``data/puzzles.jsonl.gz``, one JSON object a line; :func:`load` reads and
checks them once. :func:`check` is what every puzzle must pass, shipped or freshly generated.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, DECK_SIZE, CardSet
from lordsofwar.rules.errors import LordsOfWarError
from lordsofwar.rules.state import Position

DATA = "puzzles.jsonl.gz"
"""The shipped puzzles' file in ``lordsofwar/learn/data``."""

ID_PATTERN = re.compile(r"^[a-z2-7]{6}$")
"""A puzzle id: six characters of base 32 (lower case)."""

THEMES = (
    "general-kill",
    "command-kill",
    "double-kill",
    "ranged",
    "support",
    "berserker",
    "cavalry",
    "spear",
    "move",
    "recall",
    "reinforcement",
    "deployment",
    "winning-blow",
    "trade",
    "quiet",
)
"""Every theme a puzzle may carry, in the order a puzzle lists them (docs/learn.md says what
each one means; :func:`lordsofwar.learn.generate.themes_of` decides them)."""

RATING_RANGE = (400, 2800)
"""The lowest and highest starting rating."""


class PuzzleError(LordsOfWarError, ValueError):
    """A puzzle that is malformed or breaks a rule of :func:`check`."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle (the fields after ``rating`` are facts of its making, see docs/learn.md)."""

    id: str
    """Stable and short: six base-32 characters of a hash of the view and the solution."""
    view: dict[str, Any]
    """The solver's view: :func:`lordsofwar.rules.notation.view_json` (hidden cards null, decks as counts)."""
    player: int
    """The seat that moves (1 or 2)."""
    deck: list[str]
    """The solver's own deck list (they know its contents, not its order)."""
    known: list[str]
    """The opponent's hand cards the solver has seen (revealed by a recall or a forced deployment)."""
    solution: str
    """The one best action (an action text of the notation)."""
    margin: float
    """Win-probability gap between the solution and the best other action (the deep search's)."""
    themes: list[str]
    """Tags from :data:`THEMES`, derived from the solution and what it causes."""
    rating: int
    """Starting difficulty on the players' rating scale."""
    win: float = 0.5
    """The deep search's win probability for the solver after the solution."""
    alternative: str = ""
    """The best other action by the deep search (what a near miss looks like)."""
    worlds: float = 1.0
    """Share of the redrawn worlds in which the solution stayed best by the margin."""
    confirm: float = 0.0
    """The second, independent search's gap between the solution and its best other action."""
    legal: int = 0
    """How many legal actions the solver has."""

    def position(self, cards: CardSet = CORE) -> Position:
        """The view as a position of the rules (hidden cards ``None``)."""
        return notation.parse_position(self.view, cards)

    def to_json(self) -> dict[str, Any]:
        """The puzzle as one line of the data file holds it."""
        return asdict(self)


_FIELDS = {
    "id": str,
    "view": dict,
    "player": int,
    "deck": list,
    "known": list,
    "solution": str,
    "margin": float,
    "themes": list,
    "rating": int,
    "win": float,
    "alternative": str,
    "worlds": float,
    "confirm": float,
    "legal": int,
}


def from_json(doc: Any) -> Puzzle:
    """A puzzle from its JSON object; a missing, unknown or mistyped field is a :class:`PuzzleError`."""
    if not isinstance(doc, dict):
        raise PuzzleError("puzzle: expected a JSON object")
    unknown = sorted(set(doc) - set(_FIELDS))
    if unknown:
        raise PuzzleError(f"puzzle {doc.get('id')!r}: unknown field(s) {', '.join(unknown)}")
    for name, kind in _FIELDS.items():
        if name not in doc:
            raise PuzzleError(f"puzzle {doc.get('id')!r}: field {name!r} is missing")
        value = doc[name]
        ok = isinstance(value, int | float) if kind is float else isinstance(value, kind)
        if isinstance(value, bool) or not ok:
            raise PuzzleError(f"puzzle {doc.get('id')!r}: field {name!r} must be of type {kind.__name__}")
    return Puzzle(**{**doc, "margin": float(doc["margin"]), "win": float(doc["win"]),
                     "worlds": float(doc["worlds"]), "confirm": float(doc["confirm"])})


def puzzle_id(view: dict[str, Any], solution: str) -> str:
    """The id of the puzzle of ``view`` and ``solution`` (stable: the same position and answer
    give the same id on every run)."""
    import base64
    import hashlib

    text = json.dumps([view, solution], sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).digest()
    return base64.b32encode(digest).decode()[:6].lower()


def hidden_cards(view: dict[str, Any], player: int) -> list[str]:
    """Where ``view`` shows a card ``player`` cannot see: the opponent's hand entries that are
    not null and any deck given as a list. Empty for a proper view."""
    found = []
    for seat in ("1", "2"):
        side = view["players"][seat]
        if not isinstance(side["deck"], int):
            found.append(f"player {seat}'s deck is listed")
        if int(seat) != player and view["variant"].get("hands") != "visible":
            shown = [c for c in side["hand"] if c is not None]
            if shown:
                found.append(f"player {seat}'s hand shows {', '.join(shown)}")
    return found


def check(puzzle: Puzzle, cards: CardSet = CORE) -> Position:
    """The puzzle's position, after checking every rule a puzzle keeps (else a :class:`PuzzleError`):
    a valid id, a view with no hidden card, the solver to move there, a deck of the right size,
    the solution one of several legal actions, a margin and a rating in range, known themes."""
    where = f"puzzle {puzzle.id!r}"
    if not ID_PATTERN.match(puzzle.id):
        raise PuzzleError(f"{where}: an id is six base-32 characters")
    if puzzle.id != puzzle_id(puzzle.view, puzzle.solution):
        raise PuzzleError(f"{where}: the id is not the hash of its view and solution")
    if puzzle.player not in (1, 2):
        raise PuzzleError(f"{where}: the player is 1 or 2")
    leaks = hidden_cards(puzzle.view, puzzle.player)
    if leaks:
        raise PuzzleError(f"{where}: the view shows hidden cards ({'; '.join(leaks)})")
    try:
        pos = puzzle.position(cards)
    except LordsOfWarError as exc:
        raise PuzzleError(f"{where}: its view is not a position: {exc}") from None
    if pos.result is not None:
        raise PuzzleError(f"{where}: the game is over in its view")
    if pos.decider != puzzle.player:
        raise PuzzleError(f"{where}: player {pos.decider} decides in the view, not player {puzzle.player}")
    if len(puzzle.deck) != DECK_SIZE or any(c not in cards for c in puzzle.deck):
        raise PuzzleError(f"{where}: the deck is not a list of {DECK_SIZE} known cards")
    if any(c not in cards for c in puzzle.known):
        raise PuzzleError(f"{where}: a known card is not a card")
    hidden_slots = pos.hands[3 - puzzle.player].count(None)
    if len(puzzle.known) > hidden_slots:
        raise PuzzleError(f"{where}: more known cards than the opponent's hand holds")
    legal = [str(a) for a in pos.legal_actions()]
    if puzzle.solution not in legal:
        raise PuzzleError(f"{where}: the solution {puzzle.solution!r} is not a legal action")
    if len(legal) < 2 or puzzle.legal != len(legal):
        raise PuzzleError(f"{where}: {len(legal)} legal actions, the puzzle says {puzzle.legal}")
    if puzzle.alternative == puzzle.solution or (puzzle.alternative and puzzle.alternative not in legal):
        raise PuzzleError(f"{where}: the alternative is not another legal action")
    if not 0.0 < puzzle.margin <= 1.0 or not 0.0 <= puzzle.win <= 1.0 or not 0.0 <= puzzle.worlds <= 1.0:
        raise PuzzleError(f"{where}: the margin, win and worlds are probabilities")
    if not RATING_RANGE[0] <= puzzle.rating <= RATING_RANGE[1]:
        raise PuzzleError(f"{where}: the rating is outside {RATING_RANGE}")
    if not puzzle.themes or any(t not in THEMES for t in puzzle.themes):
        raise PuzzleError(f"{where}: themes must be some of {', '.join(THEMES)}")
    return pos


def read(path: str | Path) -> list[Puzzle]:
    """The puzzles of a data file (JSON lines, gzip-compressed or not), one JSON object a line;
    a bad line is a :class:`PuzzleError` naming it."""
    raw = Path(path).read_bytes()
    return parse(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw, str(path))


def parse(data: bytes, where: str = DATA) -> list[Puzzle]:
    """The puzzles of the bytes of a data file (JSON lines)."""
    out = []
    for n, line in enumerate(data.decode().splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(from_json(json.loads(line)))
        except (json.JSONDecodeError, PuzzleError) as exc:
            raise PuzzleError(f"{where}, line {n}: {exc}") from None
    return out


def write(path: str | Path, puzzles: list[Puzzle], compress: bool | None = None) -> None:
    """Write ``puzzles`` as a data file sorted by id, gzip-compressed when ``compress`` is true
    (None: when the name ends in ``.gz``)."""
    lines = "".join(
        json.dumps(p.to_json(), sort_keys=True, separators=(",", ":")) + "\n" for p in sorted(puzzles, key=lambda p: p.id)
    ).encode()
    p = Path(path)
    if compress is None:
        compress = p.suffix == ".gz"
    p.write_bytes(gzip.compress(lines, 9, mtime=0) if compress else lines)


@functools.cache
def load() -> list[Puzzle]:
    """Every shipped puzzle, in id order (read once)."""
    data = resources.files("lordsofwar.learn").joinpath("data", DATA).read_bytes()
    return parse(gzip.decompress(data))


@functools.cache
def _index() -> dict[str, Puzzle]:
    return {p.id: p for p in load()}


def by_id(pid: str) -> Puzzle | None:
    """The shipped puzzle with id ``pid``, or None."""
    return _index().get(pid)
