"""The clocks of a game: pure rules over numbers and times, no database, no I/O.

A clock is stored as "milliseconds left at ``since``" (the moment the player to act began to
act), so the time shown, the time charged and the deadline all follow from those two numbers and
the present. As scalachess's ``Clock`` does, these functions take the time now as an argument and
never read it: the service passes ``utcnow()``, the tests any time they like.

Live games: the clock of the player to act runs, except in the openings (turns 1 and 2), which
use no clock time but must be played within :data:`OPENING_MS` (or the whole clock, if longer);
the increment is added when the player's turn ends. Turn-based games: the player to act has
``turn_ms`` from ``since``, openings included.

The browser shows the clocks from the server's ``clocks`` and ``clock_running``
(games.service.game_meta, built with these functions): it counts down only the clock the server
says is running, and never decides this rule itself.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

Mode = Literal["live", "turn"]

OPENING_TURNS = 2
"""Turns 1 and 2, each player's opening deployment: they use no clock time in a live game."""
OPENING_MS = 5 * 60_000
"""Live games: the openings use no clock time, but must be played within this (or the whole
clock, if longer): a player who accepted a challenge and left loses by deadline."""


def elapsed_ms(since: datetime, now: datetime) -> int:
    """Whole milliseconds from ``since`` to ``now`` (negative if ``now`` is earlier)."""
    return int((now - since).total_seconds() * 1000)


def clock_runs(mode: str, turn: int) -> bool:
    """Whether the player to act in ``turn`` spends clock time: in a live game, from the first
    turn after the openings on; never in a turn-based game (it has a deadline, not a clock)."""
    return mode == "live" and turn > OPENING_TURNS


def time_runs(mode: str, turn: int) -> bool:
    """Whether the player to act in ``turn`` is being timed in a way the players see: a live
    game's clock (:func:`clock_runs`), or a turn-based game's deadline, which runs from turn 1."""
    return mode == "turn" or clock_runs(mode, turn)


def spent_ms(mode: str, turn: int, since: datetime, now: datetime) -> int:
    """What the player to act has spent of their clock since ``since``: nothing in the
    openings or in a turn-based game."""
    return elapsed_ms(since, now) if clock_runs(mode, turn) else 0


def remaining_ms(left_ms: int, mode: str, turn: int, since: datetime, now: datetime) -> int:
    """The clock of the player to act as it reads at ``now`` (``left_ms`` at ``since``), never
    below zero."""
    return max(0, left_ms - spent_ms(mode, turn, since, now))


def after_action(
    left_ms: int, increment_ms: int, mode: str, turn: int, since: datetime, now: datetime, turn_ended: bool
) -> int:
    """The acting player's clock after an action at ``now``: the time spent taken off, and the
    increment added when the action ended their turn (``turn_ended``: a new turn began and the
    game goes on). Not floored at zero: a bot, never out of time, may run below it."""
    return left_ms - spent_ms(mode, turn, since, now) + (increment_ms if turn_ended else 0)


def deadline(mode: str, turn: int, since: datetime, left_ms: int, turn_ms: int) -> datetime:
    """When the player to act in ``turn`` (``left_ms`` on their clock at ``since``) loses on
    time: a turn-based game after ``turn_ms``; a live game when their clock is empty, in the
    openings after :data:`OPENING_MS` or the whole clock, whichever is longer."""
    if mode == "turn":
        return since + timedelta(milliseconds=turn_ms)
    if turn <= OPENING_TURNS:
        return since + timedelta(milliseconds=max(left_ms, OPENING_MS))
    return since + timedelta(milliseconds=left_ms)


def timed_out(deadline_at: datetime | None, now: datetime) -> bool:
    """Whether a deadline (None: none, as a bot's) has passed at ``now``."""
    return deadline_at is not None and now >= deadline_at


def timeout_reason(mode: str, turn: int) -> Literal["time", "deadline"]:
    """How a player who let their time pass in ``turn`` loses: ``time`` when their clock ran
    out, ``deadline`` when the openings' or a turn-based game's deadline passed."""
    return "time" if clock_runs(mode, turn) else "deadline"
