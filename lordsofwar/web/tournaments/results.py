"""A tournament game's result, written into its pairing in the transaction that ends the game
(web.games.service): so a result counts once, and only when the game really ended.

**Aborted boards** (a game that ended before both players made their first turn:
rules.engine.ABORT_TURNS). Ratings ignore them (web.ratings); a tournament cannot, because its
rounds go on. What a board gives then depends on the event:

- *Swiss and round robin*: the round cannot wait for a replay, so the board is decided as an
  organiser decides a board that was not played: the player who ended it (resigned, pressed
  *Abort*, let the clock or the deadline run out) loses by forfeit (``+-`` / ``-+``: a point for
  the opponent, who was there to play, none for them; the pair is not paired again). A draw
  agreed before the first turns is a double forfeit (``--``: no point for either), so that two
  players cannot share points without playing.
- *Arena*: as on lichess, an aborted game counts nothing for either player (``--``, left out of
  points, games and fire streaks); both are paired again.
"""

from __future__ import annotations

from sqlalchemy import Connection, Table, select, update

from lordsofwar.rules.events import LogEntry
from lordsofwar.rules.state import Result, Termination
from lordsofwar.web.models import Tournament, TournamentPairing
from lordsofwar.web.tournaments.pairing import DOUBLE_FORFEIT, FORFEIT_LOSS, FORFEIT_WIN

PAIRINGS: Table = TournamentPairing.__table__  # type: ignore[assignment]
TOURNAMENTS: Table = Tournament.__table__  # type: ignore[assignment]


def result_code(result: Result, log: list[LogEntry], kind: str = "swiss") -> str:
    """The pairing's result, in a tournament of ``kind``, for a game that ended with ``result``
    after the moves in ``log``: ``1-0``, ``1/2``, ``0-1``, a forfeit (``+-``, ``-+``) when the
    loser lost on time or by the deadline without having played a single action, and for an
    aborted game as the module says."""
    t = result.termination
    if t is Termination.ABORTED:
        if kind == "arena" or result.player is None:
            return DOUBLE_FORFEIT
        return FORFEIT_LOSS if result.player == 1 else FORFEIT_WIN
    if result.winner is None:
        return "1/2"
    if t in (Termination.TIMEOUT, Termination.DEADLINE):
        loser = result.player
        if not any(e["player"] == loser and e["action"] is not None for e in log):
            return FORFEIT_WIN if result.winner == 1 else FORFEIT_LOSS
    return "1-0" if result.winner == 1 else "0-1"


def record_result(conn: Connection, game_id: int, code: str) -> int:
    """Write ``code`` into the pairing of ``game_id`` (once: a pairing with a result is left)."""
    done = conn.execute(
        update(PAIRINGS).where(PAIRINGS.c.game_id == game_id, PAIRINGS.c.result.is_(None)).values(result=code)
    )
    return int(done.rowcount)


def record_game(conn: Connection, game_id: int, tournament_id: int, result: Result, log: list[LogEntry]) -> int:
    """Write the result of the game ``game_id`` of tournament ``tournament_id`` into its pairing,
    as :func:`result_code` makes it for the tournament's kind (read in the same transaction)."""
    kind = conn.execute(select(TOURNAMENTS.c.kind).where(TOURNAMENTS.c.id == tournament_id)).scalar()
    return record_result(conn, game_id, result_code(result, log, kind or "swiss"))
