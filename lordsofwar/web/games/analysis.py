"""A finished game's analysis by the top search level, run once per game in the bot workers.

``POST /api/games/{id}/analysis`` stores a row (``game_analyses``, primary key the game) and
starts the work; a second request, from anyone, finds the row and starts nothing (two racing
requests: one insert wins, the other finds it). The work judges every decision of the record
(:mod:`lordsofwar.bots.analysis`: each from what its player knew then) in the worker pool, at
most ``LOW_BOT_WORKERS`` at once, writes the progress as it goes, and stores the result.

A server that stops mid-analysis leaves the row ``running``; the next request for it, on any
process, starts it again from the beginning when no task of this process runs it and the row
has not moved for :data:`STALE_S` seconds (a running analysis writes its progress at least every
second).

Only finished games are analysed: their record, seed included, is public to both players then
(clarifications 9.2); the judgement of each decision still uses only its player's view.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar.bots import TOP
from lordsofwar.bots.analysis import decisions_of, summary
from lordsofwar.i18n import _
from lordsofwar.rules.cards import CardSet
from lordsofwar.web.games.botpool import BotPool
from lordsofwar.web.games.runtime import GameError, Runtime, record_of
from lordsofwar.web.models import GameAnalysis, utcnow
from lordsofwar.web.settings import Settings
from lordsofwar.web.tasks import stop_tasks

log = logging.getLogger("lordsofwar.web")

STALE_S = 30.0
"""A ``running`` row unchanged for this long, with no task of this process on it, is restarted."""


class Games(Protocol):
    """What the analyses use of the game service (games.service.GameService), which owns them."""

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    cards: CardSet
    bots: BotPool

    async def runtime(self, game_id: int) -> Runtime: ...

    def job_seed(self, label: str, game_id: int, version: int, seat: int = 0) -> int: ...


def as_doc(row: GameAnalysis) -> dict[str, Any]:
    return {
        "status": row.status,
        "done": row.done,
        "total": row.total,
        "level": row.level,
        "result": row.result,
        "error": row.error,
    }


class Analyses:
    """The analyses this process runs (one task per game at most)."""

    def __init__(self, games: Games):
        self.games = games
        self.tasks: dict[int, asyncio.Task[None]] = {}

    async def get(self, game_id: int) -> dict[str, Any] | None:
        async with self.games.sessions() as db:
            row = await db.get(GameAnalysis, game_id)
            if row is None:
                return None
            self._resume_if_stale(row)
            return as_doc(row)

    async def start(self, game_id: int, user_id: int | None) -> tuple[dict[str, Any], bool]:
        """The game's analysis, started now if it has none; (its document, whether it started)."""
        rt = await self.games.runtime(game_id)
        if rt.game.status != "over":
            raise GameError(_("the game is still running: it can be analysed once it is over"), 409)
        async with self.games.sessions() as db:
            row = await db.get(GameAnalysis, game_id)
            if row is not None:
                self._resume_if_stale(row)
                return as_doc(row), False
            row = GameAnalysis(
                game_id=game_id, status="running", done=0, total=len(rt.game.actions), level=TOP, requested_by=user_id
            )
            db.add(row)
            try:
                await db.commit()
            except IntegrityError:  # another request (or process) made it first
                await db.rollback()
                found = await db.scalar(select(GameAnalysis).where(GameAnalysis.game_id == game_id))
                assert found is not None
                return as_doc(found), False
            doc = as_doc(row)
        self._launch(game_id)
        return doc, True

    def _resume_if_stale(self, row: GameAnalysis) -> None:
        if row.status != "running" or row.game_id in self.tasks:
            return
        if utcnow() - row.updated_at > timedelta(seconds=STALE_S):
            log.info("analysis of game %s was left running; starting it again", row.game_id)
            self._launch(row.game_id)

    def _launch(self, game_id: int) -> None:
        task = asyncio.get_running_loop().create_task(self._run(game_id))
        self.tasks[game_id] = task
        task.add_done_callback(lambda _t: self.tasks.pop(game_id, None))

    async def _write(self, game_id: int, **values: Any) -> None:
        async with self.games.sessions() as db:
            await db.execute(
                update(GameAnalysis).where(GameAnalysis.game_id == game_id).values(updated_at=utcnow(), **values)
            )
            await db.commit()

    async def _run(self, game_id: int) -> None:
        games = self.games
        try:
            rt = await games.runtime(game_id)
            record = record_of(rt)
            decisions = await asyncio.to_thread(decisions_of, record, games.cards)
            await self._write(game_id, status="running", done=0, total=len(decisions), result=None, error=None)
            entries: list[dict[str, Any] | None] = [None] * len(decisions)
            limit = asyncio.Semaphore(games.bots.workers)
            done = 0
            written = time.monotonic()
            seed = games.job_seed("analysis", game_id, 0) & (2**31 - 1)  # not the deal's seed

            async def one(i: int) -> None:
                nonlocal done, written
                async with limit:
                    entries[i] = await games.bots.judge(decisions[i], TOP, seed, games.settings.analysis_iterations)
                done += 1
                if time.monotonic() - written >= 0.5 or done == len(decisions):
                    written = time.monotonic()
                    await self._write(game_id, done=done)

            await asyncio.gather(*(one(i) for i in range(len(decisions))))
            result = summary(TOP, [e for e in entries if e is not None], record.result)
            await self._write(game_id, status="done", done=len(decisions), result=result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("analysis of game %s failed", game_id)
            await self._write(game_id, status="failed", error=f"{type(exc).__name__}: {exc}"[:200])

    async def close(self) -> None:
        await stop_tasks(list(self.tasks.values()))
