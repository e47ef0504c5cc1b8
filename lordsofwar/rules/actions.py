"""Actions and events: what a player does, and what it causes (notation.md section 4).

An :class:`Action` names one step of a turn; ``str(action)`` is its notation and
:func:`parse_action` reads that notation back. Events are the plain dicts the engine returns
for every action applied (``{"type": "deploy", ...}``), typed in :mod:`lordsofwar.rules.events`.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from lordsofwar.rules import mat
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.errors import InvalidActionError, NotationError, UnknownCardError, json_excerpt
from lordsofwar.rules.events import Event as Event  # re-exported: the engine and the core import it from here
from lordsofwar.rules.i18n import _


class Action(NamedTuple):
    """One action (notation.md section 4). Squares are integer squares of :mod:`mat`."""

    kind: str
    card: str | None = None
    frm: int | None = None
    to: int | None = None

    def __str__(self) -> str:
        k = self.kind
        if k == "deploy":
            return f"deploy {self.card} {mat.name(self.to)}"  # type: ignore[arg-type]
        if k in ("shoot", "advance", "move"):
            return f"{k} {mat.name(self.frm)} {mat.name(self.to)}"  # type: ignore[arg-type]
        if k == "recall":
            return f"recall {mat.name(self.frm)}"  # type: ignore[arg-type]
        return k


DRAW = Action("draw")
PASS = Action("pass")


class _Mat(Protocol):
    @property
    def bordered(self) -> bool: ...


class ActionContext(Protocol):
    """What reading an action needs of a position: its card set, and whether its mat is bordered
    (off-mat squares such as ``-1,2`` exist only on the unbordered mat)."""

    @property
    def cards(self) -> CardSet: ...

    @property
    def variant(self) -> _Mat: ...


_VERBS = {"shoot": 2, "deploy": 2, "advance": 2, "move": 2, "recall": 1, "draw": 0, "pass": 0}


def parse_action(text: Any, pos: ActionContext | None = None, cards: CardSet | None = None) -> Action:
    """Read one action string (notation.md section 4); errors name the bad token.

    Squares and card ids are read against ``pos`` (its mat and card set) when given, else on
    the unbordered mat against ``cards`` (the core set by default). Whether the action is legal
    is the engine's question, not this reader's.
    """
    if not isinstance(text, str):
        raise InvalidActionError(_("action: expected a string, got {value}").format(value=json_excerpt(text)))
    if len(text) > 200:
        raise InvalidActionError(_("action {action}...: longer than 200 characters").format(action=repr(text[:40])))
    if not text.strip():
        raise InvalidActionError(
            _("action: empty; expected a verb (shoot, deploy, advance, move, recall, draw or pass)")
        )
    tokens = text.split(" ")
    if any(t == "" for t in tokens):
        raise InvalidActionError(
            _("action {action}: tokens must be separated by single spaces, with none before or after").format(
                action=repr(text)
            )
        )
    verb = tokens[0]
    if verb not in _VERBS:
        raise InvalidActionError(
            _(
                "action {action}: unknown verb {verb} (expected shoot, deploy, advance, move, recall, draw or pass)"
            ).format(action=repr(text), verb=repr(verb))
        )
    need = _VERBS[verb]
    if len(tokens) - 1 < need:
        missing = ["card", "square"] if verb == "deploy" else (["square"] if verb == "recall" else ["from", "to"])
        raise InvalidActionError(
            _("action {action}: missing token <{token}> after {previous}").format(
                action=repr(text), token=missing[len(tokens) - 1], previous=repr(tokens[-1])
            )
        )
    if len(tokens) - 1 > need:
        raise InvalidActionError(
            _("action {action}: unexpected token {token}").format(action=repr(text), token=repr(tokens[need + 1]))
        )
    bordered = pos.variant.bordered if pos is not None else False
    cardset = pos.cards if pos is not None else (cards or CORE)

    def sq(token: str) -> int:
        try:
            return mat.parse(token, bordered)
        except NotationError as exc:
            raise InvalidActionError(_("action {action}: {problem}").format(action=repr(text), problem=exc)) from None

    if verb == "deploy":
        card = tokens[1]
        try:
            cardset.card(card)
        except UnknownCardError:
            raise InvalidActionError(
                _("action {action}: unknown card {card}").format(action=repr(text), card=repr(card))
            ) from None
        return Action("deploy", card, None, sq(tokens[2]))
    if verb == "recall":
        return Action("recall", None, sq(tokens[1]))
    if need == 0:
        return Action(verb)
    return Action(verb, None, sq(tokens[1]), sq(tokens[2]))
