"""Errors a user can read. Every one is a ``ValueError`` whose message names the bad input."""

from __future__ import annotations

import json
from typing import Any, Literal, get_args

from lordsofwar.rules.i18n import _


class LordsOfWarError(ValueError):
    """Base of every error the rules package raises on bad input."""


class UnknownCardError(LordsOfWarError):
    """A card id (or army) that no loaded card set defines."""


class CardPackError(LordsOfWarError):
    """A malformed card file; the message names the file, the card and the field."""


class DeckError(LordsOfWarError):
    """A deck that breaks clarifications 8.4 (size, rank counts, allowed armies)."""


class NotationError(LordsOfWarError):
    """Malformed notation: a position, a view, an action or a game record."""


class InvalidActionError(NotationError):
    """An action string that does not parse (unknown verb, missing or bad token)."""


Refusal = Literal[
    "game-over", "abort-late",
    "advance-pending", "advance-square", "advance-order", "advance-none",
    "no-unit", "not-yours", "not-in-hand",
    "deploy-first", "deploy-done", "deploy-impossible", "deploy-occupied", "deploy-opening",
    "deploy-forced", "deploy-free", "deploy-support", "deploy-engagement",
    "shoot-no-weapon", "shoot-opening", "shoot-twice", "shoot-engaged-at-start", "shoot-took-part",
    "shoot-unsupported", "shoot-engaged", "shoot-out-of-grid", "shoot-empty", "shoot-friendly",
    "move-no-arrows", "move-twice", "move-engaged", "move-direction", "move-occupied", "move-off-mat",
    "hand-full", "deck-empty", "recall-deployed", "recall-cavalry-spear", "recall-took-part",
    "recall-engaged", "pass",
]  # fmt: skip
"""Why the rules refuse an action, as a code the same in every language: each kind of refusal
that the engine explains (``engine.refuse``). The rules guide links each to the section that
explains it (``lordsofwar.learn.guide.REFUSAL_SECTIONS``)."""

REFUSALS: tuple[Refusal, ...] = get_args(Refusal)


class IllegalActionError(LordsOfWarError):
    """A well-formed action that the rules forbid now; the message names the rule, ``kind`` says
    which refusal it is (None where the raiser gives none, e.g. an action id no list holds)."""

    def __init__(self, message: str, kind: Refusal | None = None):
        super().__init__(message)
        self.kind: Refusal | None = kind


class HiddenInformationError(LordsOfWarError):
    """An operation on a view that needs information the view hides."""


def read_json(text: str, error: type[LordsOfWarError], where: str = "") -> Any:
    """``json.loads``, with every way it can fail as one ``error`` whose message starts with
    ``where``: JSON that does not parse (with its line and column), a number with more digits
    than Python converts, nesting too deep."""
    prefix = f"{where}: " if where else ""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            prefix
            + _("line {line}: not valid JSON: {problem} (column {column})").format(
                line=exc.lineno, problem=exc.msg, column=exc.colno
            )
        ) from None
    except ValueError as exc:  # e.g. a number with more digits than Python converts
        raise error(prefix + _("not readable JSON: {problem}").format(problem=exc)) from None
    except RecursionError:
        raise error(prefix + _("not readable JSON: nested too deeply")) from None


def json_excerpt(value: Any) -> str:
    """A value as JSON for an error message, kept short and never failing."""
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        return "a value that cannot be shown (too large or too deep)"
    return text if len(text) <= 60 else text[:57] + "..."
