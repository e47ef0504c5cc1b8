"""How a game ended, as a code: :class:`Termination` and :class:`Result` (as python-chess's
``Outcome`` and ``Termination``).

A result is data: the winner, the termination's code and the few facts its sentence needs (a
count, a player, the threshold both players reached, the ending that aborted a game). The English
sentence of records and logs (:attr:`Result.reason`) is written from them by :func:`reason_text`;
translations write theirs from the same fields (lordsofwar/i18n.py, web/static/js/i18n.js). No
code reads a sentence back, except :func:`legacy_result`, which reads the results of records and
rows written before the codes existed.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any


class Termination(enum.Enum):
    """Why a game ended; the values are the codes of records and the web API (docs/notation.md)."""

    UNITS = "units"
    """8.2: the winner eliminated the units the variant asks for (``count``: how many)."""
    COMMANDS = "commands"
    """8.2: the winner eliminated the command units the variant asks for (``count``: how many)."""
    BOTH_COMMAND_THRESHOLD = "both_command_threshold"
    """8.2: both reached a threshold in the same turn; only the winner reached the command threshold."""
    MORE_UNITS = "more_units"
    """8.2: both reached the same threshold (``threshold``); the winner eliminated more units."""
    MORE_COMMANDS = "more_commands"
    """8.2: both reached the same threshold (``threshold``); the winner eliminated more command units."""
    EQUAL = "equal"
    """8.2: both reached the same threshold (``threshold``) with equal units and command units: a draw."""
    NO_PROGRESS = "no_progress"
    """8.3 variant: no unit was eliminated in ``count`` turns: a draw."""
    NO_ACTION = "no_action"
    """8.3: neither player can deploy, draw or recall: a draw."""
    RESIGNATION = "resignation"
    """``player`` resigned."""
    DRAW_AGREED = "draw_agreed"
    """Both players agreed to a draw."""
    TIMEOUT = "timeout"
    """``player`` ran out of time (a live game's clock)."""
    DEADLINE = "deadline"
    """``player`` missed the turn deadline (a turn-based game)."""
    ABORTED = "aborted"
    """The game ended before both players made their first turn: no winner. ``ending`` is the
    ending that came first (resignation, timeout, deadline, draw_agreed), or None when ``player``
    aborted it."""


THRESHOLDS = frozenset({Termination.UNITS, Termination.COMMANDS})
"""The values of :attr:`Result.threshold`."""
PLAYER_ENDINGS = frozenset({Termination.RESIGNATION, Termination.TIMEOUT, Termination.DEADLINE})
"""Endings off the board that one player (``player``, the loser) brought about."""
ABORT_ENDINGS = PLAYER_ENDINGS | {Termination.DRAW_AGREED}
"""The endings that abort a game in its first turns (:attr:`Result.ending`)."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: the winner (1, 2, or None for a draw or an aborted game), the
    termination, and what its sentence needs (None where the termination needs nothing):

    - ``count``: the units (``units``) or command units (``commands``) the winner eliminated, or
      the turns without an elimination (``no_progress``);
    - ``player``: who resigned, ran out of time, missed the deadline, or aborted the game (or
      whose ending aborted it);
    - ``threshold``: the threshold both players reached (``Termination.UNITS`` or
      ``Termination.COMMANDS``) for ``more_units``, ``more_commands`` and ``equal``;
    - ``ending``: for ``aborted``, the ending that aborted the game (None: the player aborted it).
    """

    winner: int | None
    termination: Termination
    count: int | None = None
    player: int | None = None
    threshold: Termination | None = None
    ending: Termination | None = None

    @property
    def reason(self) -> str:
        """The ending as an English sentence (records, logs, the API's ``reason``)."""
        return reason_text(self)

    def to_json(self) -> dict[str, Any]:
        """The notation's ``result`` object: ``winner``, ``reason``, ``termination`` and the
        facts that are not None (``count``, ``player``, ``threshold``, ``ending``)."""
        doc: dict[str, Any] = {"winner": self.winner, "reason": self.reason, "termination": self.termination.value}
        doc.update(self.details())
        return doc

    def details(self) -> dict[str, Any]:
        """``count``, ``player``, ``threshold`` and ``ending`` where set, as JSON values."""
        doc: dict[str, Any] = {}
        if self.count is not None:
            doc["count"] = self.count
        if self.player is not None:
            doc["player"] = self.player
        if self.threshold is not None:
            doc["threshold"] = self.threshold.value
        if self.ending is not None:
            doc["ending"] = self.ending.value
        return doc


def check(result: Result) -> Result:
    """``result`` when its fields fit its termination, else ValueError saying what does not."""
    t, w = result.termination, result.winner
    if not isinstance(t, Termination):
        raise ValueError(f"termination: expected a Termination, got {t!r}")
    if w not in (None, 1, 2):
        raise ValueError(f"winner: expected 1, 2 or None, got {w!r}")
    needs_count = t in (Termination.UNITS, Termination.COMMANDS, Termination.NO_PROGRESS)
    if needs_count != (result.count is not None):
        raise ValueError(f"count: {t.value} {'needs' if needs_count else 'takes no'} count")
    if result.count is not None and (
        isinstance(result.count, bool) or not isinstance(result.count, int) or result.count < 0
    ):
        raise ValueError(f"count: expected a number of at least 0, got {result.count!r}")
    needs_player = t in PLAYER_ENDINGS or (t is Termination.ABORTED and result.ending is not Termination.DRAW_AGREED)
    if needs_player != (result.player is not None):
        raise ValueError(f"player: {t.value} {'needs' if needs_player else 'takes no'} player")
    if result.player is not None and result.player not in (1, 2):
        raise ValueError(f"player: expected 1 or 2, got {result.player!r}")
    needs_threshold = t in (Termination.MORE_UNITS, Termination.MORE_COMMANDS, Termination.EQUAL)
    if needs_threshold != (result.threshold is not None):
        raise ValueError(f"threshold: {t.value} {'needs' if needs_threshold else 'takes no'} threshold")
    if result.threshold is not None and result.threshold not in THRESHOLDS:
        raise ValueError(f"threshold: expected units or commands, got {result.threshold!r}")
    if result.ending is not None and (t is not Termination.ABORTED or result.ending not in ABORT_ENDINGS):
        raise ValueError(f"ending: {result.ending!r} does not fit {t.value}")
    draw = t in (
        Termination.EQUAL,
        Termination.NO_PROGRESS,
        Termination.NO_ACTION,
        Termination.DRAW_AGREED,
        Termination.ABORTED,
    )
    if draw != (w is None):
        raise ValueError(f"winner: {t.value} {'has no winner' if draw else 'needs a winner'}")
    if t in PLAYER_ENDINGS and w == result.player:
        raise ValueError(f"winner: player {w} cannot win by their own {t.value}")
    return result


_PLAYER_SENTENCES = {
    Termination.RESIGNATION: "player {p} resigned",
    Termination.TIMEOUT: "player {p} ran out of time",
    Termination.DEADLINE: "player {p} missed the turn deadline",
}
_WORDS = {Termination.UNITS: ("unit", "units"), Termination.COMMANDS: ("command", "command units")}


def reason_text(result: Result) -> str:
    """The English sentence of ``result`` (the records' language)."""
    t = result.termination
    if t is Termination.UNITS:
        return f"{result.count} units eliminated"
    if t is Termination.COMMANDS:
        return f"{result.count} command units eliminated"
    if t is Termination.BOTH_COMMAND_THRESHOLD:
        return f"both reached a threshold; player {result.winner} reached the command threshold"
    if t in (Termination.MORE_UNITS, Termination.MORE_COMMANDS):
        what = _WORDS[result.threshold or Termination.UNITS][0]
        more = _WORDS[Termination.UNITS if t is Termination.MORE_UNITS else Termination.COMMANDS][1]
        return f"both reached the {what} threshold; player {result.winner} eliminated more {more}"
    if t is Termination.EQUAL:
        what = _WORDS[result.threshold or Termination.UNITS][0]
        return f"both reached the {what} threshold with equal units and command units"
    if t is Termination.NO_PROGRESS:
        return f"no unit eliminated in {result.count} turns"
    if t is Termination.NO_ACTION:
        return "neither player can deploy, draw or recall"
    if t is Termination.DRAW_AGREED:
        return "draw agreed"
    if t in _PLAYER_SENTENCES:
        return _PLAYER_SENTENCES[t].format(p=result.player)
    # aborted
    if result.ending is None:
        return f"aborted by player {result.player}"
    inner = Result(None, result.ending, player=result.player)
    return f"aborted: {reason_text(inner)}"


# --- records written before the codes ----------------------------------------------------------

_LEGACY: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"(\d+) units eliminated"), lambda w, m: Result(w, Termination.UNITS, count=int(m[1]))),
    (re.compile(r"(\d+) command units eliminated"), lambda w, m: Result(w, Termination.COMMANDS, count=int(m[1]))),
    (
        re.compile(r"both reached a threshold; player ([12]) reached the command threshold"),
        lambda w, m: Result(w, Termination.BOTH_COMMAND_THRESHOLD),
    ),
    (
        re.compile(r"both reached the (unit|command) threshold; player ([12]) eliminated more (units|command units)"),
        lambda w, m: Result(
            w,
            Termination.MORE_UNITS if m[3] == "units" else Termination.MORE_COMMANDS,
            threshold=Termination.UNITS if m[1] == "unit" else Termination.COMMANDS,
        ),
    ),
    (
        re.compile(r"both reached the (unit|command) threshold with equal units and command units"),
        lambda w, m: Result(
            w, Termination.EQUAL, threshold=Termination.UNITS if m[1] == "unit" else Termination.COMMANDS
        ),
    ),
    (
        re.compile(r"no unit eliminated in (\d+) turns"),
        lambda w, m: Result(w, Termination.NO_PROGRESS, count=int(m[1])),
    ),
    (re.compile(r"neither player can deploy, draw or recall"), lambda w, m: Result(w, Termination.NO_ACTION)),
    (re.compile(r"draw agreed"), lambda w, m: Result(w, Termination.DRAW_AGREED)),
    (re.compile(r"player ([12]) resigned"), lambda w, m: Result(w, Termination.RESIGNATION, player=int(m[1]))),
    (re.compile(r"player ([12]) ran out of time"), lambda w, m: Result(w, Termination.TIMEOUT, player=int(m[1]))),
    (
        re.compile(r"player ([12]) missed the turn deadline"),
        lambda w, m: Result(w, Termination.DEADLINE, player=int(m[1])),
    ),
    (re.compile(r"aborted by player ([12])"), lambda w, m: Result(w, Termination.ABORTED, player=int(m[1]))),
]


def legacy_result(winner: int | None, reason: str) -> Result:
    """The result that a record or game row written before the codes meant by ``winner`` and its
    English ``reason`` (the one place that reads a sentence); ValueError for a sentence the
    engine never wrote, or one that does not fit the winner."""
    if reason.startswith("aborted: "):
        inner = reason[len("aborted: ") :]
        if inner == "draw agreed":
            return check(Result(winner, Termination.ABORTED, ending=Termination.DRAW_AGREED))
        for how, sentence in _PLAYER_SENTENCES.items():
            for p in (1, 2):
                if inner == sentence.format(p=p):
                    return check(Result(winner, Termination.ABORTED, player=p, ending=how))
        raise ValueError(f"unknown ending {reason!r}")
    for pattern, make in _LEGACY:
        m = pattern.fullmatch(reason)
        if m is None:
            continue
        result: Result = make(winner, m)
        if result.termination in (
            Termination.BOTH_COMMAND_THRESHOLD,
            Termination.MORE_UNITS,
            Termination.MORE_COMMANDS,
        ):
            named = int(m[1] if result.termination is Termination.BOTH_COMMAND_THRESHOLD else m[2])
            if named != winner:
                raise ValueError(f"reason {reason!r} names player {named}, the winner is {winner}")
        return check(result)
    raise ValueError(f"unknown ending {reason!r}")


def from_json(doc: dict[str, Any]) -> Result:
    """A result from its JSON fields (``winner``, ``termination`` and the facts it needs;
    ``reason`` is not read): ValueError naming the field that is wrong."""
    try:
        termination = Termination(doc["termination"])
    except (ValueError, TypeError):
        raise ValueError(f"termination: unknown code {doc['termination']!r}") from None

    def code(name: str) -> Termination | None:
        value = doc.get(name)
        if value is None:
            return None
        try:
            return Termination(value)
        except (ValueError, TypeError):
            raise ValueError(f"{name}: unknown code {value!r}") from None

    return check(
        Result(
            doc.get("winner"),
            termination,
            count=doc.get("count"),
            player=doc.get("player"),
            threshold=code("threshold"),
            ending=code("ending"),
        )
    )
