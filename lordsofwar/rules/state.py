"""Positions: the whole game state at a decision point, with the state of the turn under way.

A :class:`Position` is the data of :class:`~lordsofwar.rules.position.BasePosition` with the
rules of :mod:`lordsofwar.rules.engine` as methods. Positions are mutated only through ``push``
(in place, like python-chess) or ``apply`` (which returns a changed copy and leaves the
original untouched).

This is the import path for the state types: ``Action``, ``DRAW``, ``PASS``, ``Variant``,
``Result``, ``UnitKind`` and the turn flags are defined in :mod:`~lordsofwar.rules.actions`
and :mod:`~lordsofwar.rules.position` and can be imported from here.
"""

from __future__ import annotations

from lordsofwar.rules import engine
from lordsofwar.rules.actions import DRAW, PASS, Action, Event
from lordsofwar.rules.position import (
    DELTA_BIT,
    DEPLOYED,
    ENGAGED_AT_START,
    FLAG_NAMES,
    HAND_LIMIT,
    LENGTHS,
    MOVED,
    SHOT,
    SUPPORTED,
    TOOK_PART,
    AdvanceRound,
    BasePosition,
    Result,
    Termination,
    UnitKind,
    Variant,
    kinds_of,
    unit_kind,
)


class Position(BasePosition):
    """The game state at a decision point (notation.md section 3), mid-turn state included,
    with the engine's rules as methods.

    ``hands[p]``, ``decks[p]`` and ``lost[p]`` are card-id lists for players 1 and 2 (index 0
    is unused). In a view, hidden cards are ``None``. ``decks`` list the top card first.
    """

    __slots__ = ()

    def legal_actions(self) -> list[Action]:
        """The legal actions of :attr:`decider` at this decision point."""
        return engine.legal_actions(self)

    def push(self, action: Action | str) -> list[Event]:
        """Apply one action in place and return the events it caused; an illegal action raises
        :class:`~lordsofwar.rules.errors.IllegalActionError` and changes nothing."""
        return engine.push(self, action)

    def apply(self, action: Action | str) -> tuple[Position, list[Event]]:
        """A copy with the action applied, and the events; this position is unchanged."""
        new = self.copy()
        events = new.push(action)
        return new, events


__all__ = [
    "DELTA_BIT",
    "DEPLOYED",
    "DRAW",
    "ENGAGED_AT_START",
    "FLAG_NAMES",
    "HAND_LIMIT",
    "LENGTHS",
    "MOVED",
    "PASS",
    "SHOT",
    "SUPPORTED",
    "TOOK_PART",
    "Action",
    "AdvanceRound",
    "BasePosition",
    "Event",
    "Position",
    "Result",
    "Termination",
    "UnitKind",
    "Variant",
    "kinds_of",
    "unit_kind",
]
