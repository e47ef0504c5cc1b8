"""The game at a decision point, as data: units, the board and its maps, the turn under way.

:class:`BasePosition` holds everything a position is and keeps the maps derived from its board
(engagement, squares next to each player's units, ranged units) through ``place`` and
``remove``. The rules that change it live in :mod:`lordsofwar.rules.engine`, whose functions
take a ``BasePosition``; :class:`lordsofwar.rules.state.Position` adds them as methods
(``legal_actions``, ``push``, ``apply``), as python-chess's ``Board`` extends ``BaseBoard``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Self

from lordsofwar.rules import mat
from lordsofwar.rules.actions import Action
from lordsofwar.rules.cards import CORE, Card, CardSet
from lordsofwar.rules.result import Result as Result  # re-exported: a position's result
from lordsofwar.rules.result import Termination as Termination

# Per-unit flags of the turn under way (clarifications 4.4, 5.2, 7.1, 7.2).
DEPLOYED = 1  # deployed this turn
SUPPORTED = 2  # deployed this turn adjacent to a friendly unit
SHOT = 4  # has shot (declared or fired) this turn
TOOK_PART = 8  # took part in an elimination this turn
MOVED = 16  # has moved this turn
ENGAGED_AT_START = 32  # was engaged at the start of the turn

FLAG_NAMES: dict[int, str] = {
    DEPLOYED: "deployed",
    SUPPORTED: "supported",
    SHOT: "shot",
    TOOK_PART: "took_part",
    MOVED: "moved",
    ENGAGED_AT_START: "engaged_at_start",
}

HAND_LIMIT = 6
"""A hand that holds six cards is full (clarifications 7.2)."""

LENGTHS: dict[str, tuple[int, int]] = {"15/3": (15, 3), "20/4": (20, 4), "25/5": (25, 5)}
"""The standard game lengths: units to win / command units to win (clarifications 8.1)."""


@dataclass(frozen=True, slots=True)
class Variant:
    """The variant options of a game (clarifications 9.1, 8.1 and 8.3)."""

    rules: Literal["intermediate", "basic"] = "intermediate"
    hands: Literal["hidden", "visible"] = "hidden"
    mat: Literal["bordered", "unbordered"] = "bordered"
    units_to_win: int = 20
    commands_to_win: int = 4
    no_progress_turns: int = 40
    intermediate: bool = field(init=False, repr=False, compare=False)
    """The intermediate rules are in force (berserker advances, cavalry recall)."""
    bordered: bool = field(init=False, repr=False, compare=False)
    """The mat has edges: units stand only on the 42 printed squares."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "intermediate", self.rules == "intermediate")
        object.__setattr__(self, "bordered", self.mat == "bordered")

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "hands": self.hands,
            "mat": self.mat,
            "units_to_win": self.units_to_win,
            "commands_to_win": self.commands_to_win,
            "no_progress_turns": self.no_progress_turns,
        }


class UnitKind:
    """A card as a unit of one owner, with its rule tables turned to that owner's facing.

    Kinds are shared and immutable: the board maps squares to kinds.
    """

    __slots__ = (
        "card",
        "owner",
        "id",
        "defence",
        "attacks",
        "attack_at",
        "dirmask",
        "targets",
        "damage",
        "moves",
        "is_berserker",
        "is_cavalry",
        "is_spear",
        "is_support",
        "is_general",
        "is_command",
    )

    def __init__(self, card: Card, owner: int):
        self.card = card
        self.owner = owner
        self.id = card.id
        self.defence = card.defence
        vectors = mat.DIRECTION_VECTORS
        self.attacks: tuple[tuple[int, int], ...] = tuple(
            (mat.turned(*vectors[d], owner), v) for d, v in card.attacks.items() if v > 0
        )
        self.attack_at: dict[int, int] = dict(self.attacks)
        self.dirmask = 0
        for d, _ in self.attacks:
            self.dirmask |= DELTA_BIT[d]
        self.targets: tuple[int, ...] = (
            tuple(mat.turned(dx, dy, owner) for dx, dy in card.ranged.targets) if card.ranged else ()
        )
        self.damage = card.ranged.damage if card.ranged else 0
        self.moves: tuple[int, ...] = tuple(mat.turned(*vectors[d], owner) for d in card.moves)
        self.is_berserker = card.cls == "berserker"
        self.is_cavalry = card.cls == "cavalry"
        self.is_spear = card.cls == "spear"
        self.is_support = card.is_support
        self.is_general = card.rank == "general"
        self.is_command = card.is_command

    def __repr__(self) -> str:
        return f"UnitKind({self.id!r}, owner={self.owner})"


DELTA_BIT: dict[int, int] = {d: 1 << i for i, d in enumerate(mat.NEIGHBOUR_DELTAS)}

_KINDS: dict[tuple[int, int], UnitKind] = {}


_KINDS_BY_ID: dict[tuple[int, int], tuple[CardSet, dict[str, UnitKind]]] = {}


class _KindsById(dict[str, UnitKind]):
    """Card id -> kind for one card set and owner, filled on first use."""

    __slots__ = ("cards", "owner")

    def __init__(self, cards: CardSet, owner: int):
        super().__init__()
        self.cards = cards
        self.owner = owner

    def __missing__(self, card_id: str) -> UnitKind:
        kind = self[card_id] = unit_kind(self.cards.card(card_id), self.owner)
        return kind


def kinds_of(cards: CardSet, owner: int) -> dict[str, UnitKind]:
    """A mapping card id -> :class:`UnitKind` for ``owner`` in ``cards`` (cached)."""
    key = (id(cards), owner)
    entry = _KINDS_BY_ID.get(key)
    if entry is None or entry[0] is not cards:
        entry = _KINDS_BY_ID[key] = (cards, _KindsById(cards, owner))
    return entry[1]


def unit_kind(card: Card, owner: int) -> UnitKind:
    """The shared :class:`UnitKind` of ``card`` for ``owner``."""
    key = (id(card), owner)
    kind = _KINDS.get(key)
    if kind is None or kind.card is not card:
        kind = _KINDS[key] = UnitKind(card, owner)
    return kind


@dataclass(slots=True)
class AdvanceRound:
    """A berserker advance round being resolved (clarifications 6)."""

    owners: list[int]
    """Owners still to resolve, the one resolving now first (active player first)."""
    candidates: dict[int, list[int]]
    """Waiting berserker square -> squares of enemy units it helped eliminate."""
    taken: set[int] = field(default_factory=set)
    advanced: bool = False

    def copy(self) -> AdvanceRound:
        return AdvanceRound(
            list(self.owners), {b: list(ts) for b, ts in self.candidates.items()}, set(self.taken), self.advanced
        )


class BasePosition:
    """The game state at a decision point (notation.md section 3), mid-turn state included.

    ``hands[p]``, ``decks[p]`` and ``lost[p]`` are card-id lists for players 1 and 2 (index 0
    is unused). In a view, hidden cards are ``None``. ``decks`` list the top card first.

    The engine's functions take a ``BasePosition``; positions are made as
    :class:`lordsofwar.rules.state.Position`, which has those functions as methods.
    """

    __slots__ = (
        "cards",
        "variant",
        "turn",
        "to_move",
        "quiet_turns",
        "board",
        "hands",
        "decks",
        "lost",
        "armies",
        "result",
        "phase",
        "flags",
        "shot_damage",
        "shot_target",
        "generals_lost",
        "eliminated",
        "forced",
        "advance",
        "in_turn",
        "deploys",
        "legal",
        "attackers",
        "near",
        "ranged",
        "command_counts",
    )

    def __init__(
        self,
        cards: CardSet = CORE,
        variant: Variant | None = None,
        turn: int = 1,
        to_move: int = 1,
        quiet_turns: int = 0,
    ):
        self.cards = cards
        self.variant = variant or Variant()
        self.turn = turn
        self.to_move = to_move
        self.quiet_turns = quiet_turns
        self.board: dict[int, UnitKind] = {}
        self.hands: list[list[str | None]] = [[], [], []]
        self.decks: list[list[str | None]] = [[], [], []]
        self.lost: list[list[str]] = [[], [], []]
        self.armies: list[str] = ["", "", ""]
        self.result: Result | None = None
        # The turn under way.
        self.phase = "pre"
        self.flags: dict[int, int] = {}
        self.shot_damage: dict[int, int] = {}
        self.shot_target: dict[int, int] = {}
        self.generals_lost = 0
        self.eliminated = False
        self.forced = False
        self.advance: AdvanceRound | None = None
        self.in_turn = False
        self.deploys: list[Action] | None = None
        """This turn's legal deployments (computed once, at the first need)."""
        self.legal: list[Action] | None = None
        """Cache of the legal actions at this decision point."""
        self.near: list[dict[int, int]] = [{}, {}, {}]
        """Per player: for every square next to that player's units, the directions (bits of
        ``mat.NEIGHBOUR_DELTAS``) in which those units stand. Kept with the board."""
        self.ranged: list[set[int]] = [set(), set(), set()]
        """Per player: the squares of that player's units with a ranged weapon."""
        self.attackers: dict[int, tuple[tuple[int, int], ...]] = {}
        """The engagement map (clarifications 2.2), kept with the board: for every engaged unit's
        square, the ``(square, arrow value)`` of each enemy unit whose arrow points at it."""
        self.command_counts: list[tuple[int, int]] = [(0, 0), (0, 0), (0, 0)]
        """Per player: (length of ``lost`` counted, command units among them)."""

    def copy(self) -> Self:
        """An independent copy of the same class (kinds and card data are shared, being immutable)."""
        cls = self.__class__
        new = cls.__new__(cls)
        new.cards = self.cards
        new.variant = self.variant
        new.turn = self.turn
        new.to_move = self.to_move
        new.quiet_turns = self.quiet_turns
        new.board = dict(self.board)
        new.hands = [[], list(self.hands[1]), list(self.hands[2])]
        new.decks = [[], list(self.decks[1]), list(self.decks[2])]
        new.lost = [[], list(self.lost[1]), list(self.lost[2])]
        new.armies = list(self.armies)
        new.result = self.result
        new.phase = self.phase
        new.flags = dict(self.flags)
        new.shot_damage = dict(self.shot_damage)
        new.shot_target = dict(self.shot_target)
        new.generals_lost = self.generals_lost
        new.eliminated = self.eliminated
        new.forced = self.forced
        new.advance = self.advance.copy() if self.advance else None
        new.in_turn = self.in_turn
        new.deploys = self.deploys
        new.legal = self.legal
        new.attackers = dict(self.attackers)
        new.near = [{}, dict(self.near[1]), dict(self.near[2])]
        new.ranged = [set(), set(self.ranged[1]), set(self.ranged[2])]
        new.command_counts = list(self.command_counts)
        return new

    # --- the board: every change goes through these, which keep ``attackers``, ``near`` and
    # ``ranged`` up to date -----------------------------------------------------------------

    def place(self, sq: int, kind: UnitKind) -> None:
        """Put a unit on an empty square."""
        board = self.board
        attackers = self.attackers
        board[sq] = kind
        owner = kind.owner
        near = self.near[owner]
        for t, bit in mat.neighbours_back(sq, self.variant.bordered):
            near[t] = near.get(t, 0) | bit
        if kind.targets:
            self.ranged[owner].add(sq)
        for d, v in kind.attacks:
            t = sq + d
            w = board.get(t)
            if w is not None and w.owner != owner:
                attackers[t] = attackers.get(t, ()) + ((sq, v),)
        for d in mat.NEIGHBOUR_DELTAS:
            n = sq + d
            w = board.get(n)
            if w is not None and w.owner != owner:
                value = w.attack_at.get(-d, 0)
                if value:
                    attackers[sq] = attackers.get(sq, ()) + ((n, value),)

    def remove(self, sq: int) -> UnitKind:
        """Take the unit off ``sq`` and return it."""
        kind = self.board.pop(sq)
        near = self.near[kind.owner]
        for t, bit in mat.neighbours_back(sq, self.variant.bordered):
            mask = near[t] & ~bit
            if mask:
                near[t] = mask
            else:
                del near[t]
        if kind.targets:
            self.ranged[kind.owner].discard(sq)
        attackers = self.attackers
        attackers.pop(sq, None)
        for d, _ in kind.attacks:
            t = sq + d
            found = attackers.get(t)
            if found is not None:
                rest = tuple(e for e in found if e[0] != sq)
                if rest:
                    attackers[t] = rest
                else:
                    del attackers[t]
        return kind

    # --- questions about the position -----------------------------------------------------

    @property
    def decider(self) -> int:
        """The player who must act now: ``to_move``, or the owner of berserkers being placed."""
        if self.advance is not None and self.phase == "advance":
            return self.advance.owners[0]
        return self.to_move

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def is_view(self) -> bool:
        """True when some card is hidden (a player's view)."""
        return any(c is None for p in (1, 2) for c in (*self.hands[p], *self.decks[p]))

    def unit_at(self, square: str) -> Card | None:
        """The card on a square written as in notation (``d3``), or None."""
        kind = self.board.get(mat.parse(square, self.variant.bordered))
        return kind.card if kind else None
