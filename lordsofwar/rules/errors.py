"""Errors a user can read. Every one is a ``ValueError`` whose message names the bad input."""

from __future__ import annotations

import json
from typing import Any

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


class IllegalActionError(LordsOfWarError):
    """A well-formed action that the rules forbid now; the message names the rule."""


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
