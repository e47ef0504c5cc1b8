"""A tournament game's result, written into its pairing in the transaction that ends the game
(web.games.service): so a result counts once, and only when the game really ended."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Table, update

from lordsofwar.rules import engine
from lordsofwar.rules.state import Result
from lordsofwar.web.models import TournamentPairing

PAIRINGS: Table = TournamentPairing.__table__  # type: ignore[assignment]


def result_code(result: Result, log: list[dict[str, Any]]) -> str:
    """The pairing's result for a game that ended with ``result`` after the moves in ``log``:
    ``1-0``, ``1/2``, ``0-1``, or a forfeit (``+-``, ``-+``) when the loser lost on time or by
    the deadline without having played a single action."""
    if result.winner is None:
        return "1/2"
    ending = engine.early_ending(result)
    if ending is not None and ending[0] in ("time", "deadline"):
        loser = ending[1]
        if not any(e.get("player") == loser and e.get("action") is not None for e in log):
            return "+-" if result.winner == 1 else "-+"
    return "1-0" if result.winner == 1 else "0-1"


def record_result(conn: Connection, game_id: int, code: str) -> int:
    """Write ``code`` into the pairing of ``game_id`` (once: a pairing with a result is left)."""
    done = conn.execute(
        update(PAIRINGS).where(PAIRINGS.c.game_id == game_id, PAIRINGS.c.result.is_(None)).values(result=code)
    )
    return int(done.rowcount)
