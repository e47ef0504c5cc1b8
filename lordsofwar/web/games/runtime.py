"""A game as this process knows it: the stored row, the position rebuilt from it with the rules
engine, and the log (:class:`Runtime`); the refusals of a request about a game; and the seeds of
the work done for a game (a bot's decision, a hint, an analysis).

The game service (games.service) keeps one runtime per game and changes it; the bots' turns and
hints (games.bots) and the analyses (games.analysis) read it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any

from lordsofwar.i18n import _
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CORE, CardSet
from lordsofwar.rules.events import LogEntry
from lordsofwar.rules.state import Position
from lordsofwar.web.models import Game


class GameError(Exception):
    """A request about a game that is refused; nothing changed. ``rule``: for an action the rules
    refuse, the rules guide's section that explains why (``/learn/rules#ranged-attacks``)."""

    def __init__(self, message: str, status: int = 409, rule: str | None = None):
        super().__init__(message)
        self.status = status
        self.rule = rule


class Stale(GameError):
    """The request was made on an older state of the game than the one there is: the client
    should be sent the current state."""


class Behind(Stale):
    """This process's copy of the game was behind the database when it wrote: nothing changed,
    and the request is judged again on a fresh copy."""

    def __init__(self) -> None:
        super().__init__(_("the game changed meanwhile (another tab or server); your board is refreshed"))


@dataclass
class Runtime:
    """A game as this process knows it: the row's fields, the position and the log."""

    game: Game
    pos: Position
    log: list[LogEntry]
    names: dict[int, str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    action_version: int = 0  # the version right after the last change to the position
    ratings: list[dict[str, Any]] | None = None  # a finished rated game: its players' changes

    @property
    def version(self) -> int:
        return self.game.version

    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        if self.game.player1_id == user_id:
            return 1
        if self.game.player2_id == user_id:
            return 2
        return None

    def bot_of(self, seat: int) -> str | None:
        return self.game.bot1 if seat == 1 else self.game.bot2

    def player_seat(self, user_id: int) -> int:
        """The seat of ``user_id``, who must be playing in this game (else GameError, 403)."""
        seat = self.seat_of(user_id)
        if seat is None:
            raise GameError(_("you are not playing in this game"), 403)
        return seat


def job_seed(key: bytes, label: str, game_id: int, version: int, seat: int = 0) -> int:
    """The seed of a bot's decision, a hint or an analysis (``label``: ``bot``, ``hint``,
    ``analysis``) of game ``game_id`` at ``version`` for ``seat``: the first 63 bits of
    HMAC-SHA256 of the server key over these. Independent of the deal's secret seed (nothing a
    worker is given lets it work the deal out), and the same for the same key, game, version and
    seat (a retried job decides alike)."""
    digest = hmac.new(key, f"lordsofwar {label} {game_id} {version} {seat}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def build(game: Game, names: dict[int, str], cards: CardSet = CORE) -> Runtime:
    """Rebuild the position and log of a stored game with the rules engine."""
    pos = notation.deal(game.decks, game.seed, notation.parse_variant(game.variant), cards, game.armies)
    result = game.result
    entries = list(notation.play_through(pos, game.actions, result))
    return Runtime(game, pos, entries, names, action_version=game.version)


def record_of(rt: Runtime) -> notation.GameRecord:
    """The game record (notation.md section 5) of a game."""
    g = rt.game
    return notation.GameRecord(
        [list(d) for d in g.decks],
        g.seed,
        notation.parse_variant(g.variant),
        [rt.names[1], rt.names[2]],
        list(g.actions),
        g.result,
    )
