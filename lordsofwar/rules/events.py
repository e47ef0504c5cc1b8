"""Events: what an action (or an ending off the board) caused, one typed dictionary per kind.

Every event is a plain dict with a ``"type"`` tag; :data:`Event` is the union of the kinds,
discriminated by that tag, so a reader narrows on ``event["type"]`` and a type checker knows the
fields of each kind. The Python engine (:mod:`lordsofwar.rules.engine`) and the native core
(``src/core/bindings.cpp``) build exactly these keys; docs/notation.md (Events) lists them and the
browser client's ``model.d.ts`` has the same union. Squares are in notation (``"d4"``), players
are 1 or 2, cards are card ids.

Events are public: a draw never names its card, and only a forced deployment reveals a hand.
The module has no ``from __future__ import annotations``: ``NotRequired`` must be evaluated when a
kind is defined for its key to count as optional.
"""

from typing import Literal, NotRequired, get_args

from typing_extensions import TypedDict

# Kinds whose fields include ``from`` (a keyword) are written in the functional form.

ShotEvent = TypedDict(
    "ShotEvent",
    {
        "type": Literal["shot"],
        "from": str,
        "target": str,
        "damage": int,
        "declared": bool,
        "card": str,
        "target_card": str,
    },
)
"""A ranged unit shoots (5.3-5.4): ``declared`` when the shot waits for the turn's deployment
(before it), else fired at once; ``card`` is the shooter's card, ``target_card`` its target's."""


class DeployEvent(TypedDict):
    """A card from the hand is placed on ``square`` (3); ``forced`` for a forced deployment (no
    hand card had a legal square, 3.4)."""

    type: Literal["deploy"]
    card: str
    square: str
    player: int
    forced: bool


class RevealEvent(TypedDict):
    """A forced deployment shows the whole hand first (3.4), the card about to be placed included.
    A card the applying side cannot see (a view's hidden hand) is ``None``."""

    type: Literal["reveal"]
    player: int
    hand: list[str | None]


class EliminatedEvent(TypedDict):
    """A check removed ``owner``'s unit from ``square`` (4)."""

    type: Literal["eliminated"]
    square: str
    card: str
    owner: int


AdvanceEvent = TypedDict(
    "AdvanceEvent",
    {"type": Literal["advance"], "from": str, "to": str, "owner": int, "card": str},
)
"""A berserker advances into a square it helped to empty (6)."""

MoveEvent = TypedDict(
    "MoveEvent",
    {"type": Literal["move"], "from": str, "to": str, "owner": int, "card": str},
)
"""A unit moves one step (7.1)."""


class RecallEvent(TypedDict):
    """A unit goes back to its player's hand, face up, as the turn's reinforcement (7.2)."""

    type: Literal["recall"]
    square: str
    card: str
    player: int


class DrawEvent(TypedDict):
    """A player draws the top card of the deck (7.2); the card stays unnamed."""

    type: Literal["draw"]
    player: int


class PassEvent(TypedDict):
    """A player ends the turn with no reinforcement, having none left (7.2)."""

    type: Literal["pass"]
    player: int


class ExtraTurnEvent(TypedDict):
    """``player`` eliminated the enemy general and plays again (7.4)."""

    type: Literal["extra_turn"]
    player: int


class ResignEvent(TypedDict):
    """``player`` resigned."""

    type: Literal["resign"]
    player: int


class TimeoutEvent(TypedDict):
    """``player`` ran out of time or missed the turn deadline (a platform's ending)."""

    type: Literal["timeout"]
    player: int


class DrawAgreedEvent(TypedDict):
    """Both players agreed to a draw (a platform's ending)."""

    type: Literal["draw_agreed"]


class AbortEvent(TypedDict):
    """``player`` aborted the game before both players had made their first turn."""

    type: Literal["abort"]
    player: int


class ResultEvent(TypedDict):
    """The game is over, always the last event of a game: the position's result as JSON
    (:meth:`lordsofwar.rules.result.Result.to_json`) with its tag. ``winner`` is None for a draw
    or an aborted game, ``reason`` the ending in English, ``termination`` its code; the facts the
    code needs follow where it needs them: ``count`` (units, command units or quiet turns), ``player`` (who
    resigned, ran out of time, missed the deadline or aborted), ``threshold`` (the threshold both
    reached, a code) and ``ending`` (the ending that aborted the game, a code)."""

    type: Literal["result"]
    winner: int | None
    reason: str
    termination: str
    count: NotRequired[int]
    player: NotRequired[int]
    threshold: NotRequired[str]
    ending: NotRequired[str]


Event = (
    ShotEvent
    | DeployEvent
    | RevealEvent
    | EliminatedEvent
    | AdvanceEvent
    | MoveEvent
    | RecallEvent
    | DrawEvent
    | PassEvent
    | ExtraTurnEvent
    | ResignEvent
    | TimeoutEvent
    | DrawAgreedEvent
    | AbortEvent
    | ResultEvent
)
"""One event, discriminated by ``"type"``."""

EVENT_TYPES: tuple[type, ...] = get_args(Event)
"""Every kind's TypedDict, in the order of :data:`Event`."""

EventType = Literal[
    "shot",
    "deploy",
    "reveal",
    "eliminated",
    "advance",
    "move",
    "recall",
    "draw",
    "pass",
    "extra_turn",
    "resign",
    "timeout",
    "draw_agreed",
    "abort",
    "result",
]
"""The tags of :data:`Event`, in its order."""


class LogEntry(TypedDict):
    """One step of a game's log: ``n`` (1 for the first), the ``turn`` it was taken in, the
    ``player`` who took it (None when no one did), the ``action`` in notation (None for an ending
    off the board) and the ``events`` it caused."""

    n: int
    turn: int
    player: int | None
    action: str | None
    events: list[Event]


def squares(event: Event) -> list[str]:
    """The squares ``event`` names, in notation: where a unit was deployed, eliminated or
    recalled, where one moved or advanced from and to, a shot's shooter and target."""
    if event["type"] in ("deploy", "eliminated", "recall"):
        return [event["square"]]
    if event["type"] in ("advance", "move"):
        return [event["from"], event["to"]]
    if event["type"] == "shot":
        return [event["from"], event["target"]]
    return []


__all__ = [
    "EVENT_TYPES",
    "AbortEvent",
    "AdvanceEvent",
    "DeployEvent",
    "DrawAgreedEvent",
    "DrawEvent",
    "EliminatedEvent",
    "Event",
    "EventType",
    "ExtraTurnEvent",
    "LogEntry",
    "MoveEvent",
    "PassEvent",
    "RecallEvent",
    "ResignEvent",
    "ResultEvent",
    "RevealEvent",
    "ShotEvent",
    "TimeoutEvent",
    "squares",
]
