"""Bots' turns and players' hints: the decisions the bot workers (games.botpool) make for the
games of this process.

A bot plays from its own view (``notation.view(pos, seat)``), the opponent's hand cards shown in
the open and its own deck list, never from the real position; in a live game it keeps to its
clock (:func:`decision_budget`). A hint is the top search level's preferred action for a player's
decision, searched from that player's view alone, in a game against a bot created with hints
allowed. The seeds of both come from the server key (games.runtime.job_seed), never from the
deal's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from typing import Any, Protocol

from lordsofwar.bots import make_bot
from lordsofwar.i18n import _, result_reason
from lordsofwar.rules import notation
from lordsofwar.rules.knowledge import known_hands
from lordsofwar.web.games import clock
from lordsofwar.web.games.botpool import BotPool, BotPoolError
from lordsofwar.web.games.runtime import Behind, GameError, Runtime
from lordsofwar.web.models import utcnow
from lordsofwar.web.settings import Settings
from lordsofwar.web.tasks import stop_tasks

log = logging.getLogger("lordsofwar.web")

LIVE_DECISIONS_LEFT = 30
"""A bot in a live game spends at most its clock divided by this (plus half the increment) on a
decision, and never more than its level's budget."""


class Games(Protocol):
    """What bots and hints use of the game service (games.service.GameService), which owns them."""

    settings: Settings
    bots: BotPool
    runtimes: dict[int, Runtime]

    async def runtime(self, game_id: int) -> Runtime: ...

    async def reload(self, game_id: int) -> Runtime: ...

    async def _apply(self, rt: Runtime, seat: int, text: str, version: int) -> Runtime: ...

    def job_seed(self, label: str, game_id: int, version: int, seat: int = 0) -> int: ...


def decision_budget(rt: Runtime, seat: int, now: datetime) -> float | None:
    """The seconds a bot may think on its decision at ``now``: in a live game once its clock runs,
    at most 1/LIVE_DECISIONS_LEFT of what is left on it, plus half the increment (at least 20 ms);
    None elsewhere (the level's own budget)."""
    g = rt.game
    if not clock.clock_runs(g.mode, rt.pos.turn):
        return None
    left = clock.remaining_ms(getattr(g, f"clock{seat}_ms"), g.mode, rt.pos.turn, g.since, now)
    return max(0.02, (left / LIVE_DECISIONS_LEFT + g.increment_ms / 2) / 1000)


class BotTurns:
    """The bots' turns in this process's games, each a task of its own."""

    def __init__(self, games: Games):
        self.games = games
        self.tasks: set[asyncio.Task[None]] = set()
        self.times: list[float] = []  # seconds of the latest bot decisions in the workers (for benchmarks)

    def schedule(self, game_id: int) -> None:
        """Start the bot's turn in the game, if a bot is to act in it."""
        rt = self.games.runtimes.get(game_id)
        if rt is not None and (rt.game.status != "running" or rt.bot_of(rt.pos.decider) is None):
            return
        task = asyncio.get_running_loop().create_task(self._turn(game_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _turn(self, game_id: int, attempt: int = 0) -> None:
        """The bot to act chooses from its own view (it never sees hidden cards) and acts.

        Should the bot fail, a random legal action of its view is played instead; should that
        fail too, the turn is tried again a little later (a bot never loses on time).
        """
        try:
            if self.games.settings.bot_delay > 0:
                await asyncio.sleep(self.games.settings.bot_delay)
            rt = await self.games.runtime(game_id)
            if rt.game.status != "running":
                return
            seat = rt.pos.decider
            name = rt.bot_of(seat)
            if name is None:
                return
            version = rt.game.version
            view = notation.view(rt.pos, seat)
            seed = self.games.job_seed("bot", game_id, version, seat)  # never from the deal's seed
            known = known_hands((e for entry in rt.log for e in entry["events"]), seat)
            try:
                budget = decision_budget(rt, seat, utcnow())
                asked = time.perf_counter()
                text, spent = await self.games.bots.choose(
                    name, seed, notation.view_json(rt.pos, seat), known, rt.game.decks[seat - 1], budget
                )
                self._note_time(name, spent, time.perf_counter() - asked, budget)
                action: Any = text
            except BotPoolError:
                raise  # no worker to think (one died, or the server is stopping): later, never a random move
            except Exception:
                log.exception("bot %s failed in game %s; a random action instead", name, game_id)
                action = make_bot("random", seed).choose(view)
            async with rt.lock:
                if rt.game.version != version or rt.game.status != "running":
                    return
                await self.games._apply(rt, seat, str(action), version)
        except asyncio.CancelledError:
            raise
        except Behind:
            # another process moved the game on (it may have played this very turn): catch up
            # and let the bot look again; a race lost is no error
            log.info("bot turn in game %s lost a race; looking again", game_id)
            if attempt < 5:
                await self.games.reload(game_id)
                await self._turn(game_id, attempt + 1)
        except GameError as exc:
            log.warning("bot turn in game %s refused: %s", game_id, exc)
        except BotPoolError as exc:
            # A worker died (the pool starts new ones) or the pool is closing with the server:
            # the turn is tried again a little later; a server that stops leaves it to its next
            # start (resume_bots). The bot never plays a move it did not choose because of it.
            log.warning("bot turn in game %s: %s; trying again (attempt %s)", game_id, exc, attempt + 1)
            if attempt < 5:
                await asyncio.sleep(2.0 * (attempt + 1))
                await self._turn(game_id, attempt + 1)
        except Exception:
            log.exception("bot turn in game %s failed (attempt %s)", game_id, attempt + 1)
            if attempt < 5:
                await asyncio.sleep(2.0 * (attempt + 1))
                await self._turn(game_id, attempt + 1)

    def _note_time(self, name: str, spent: float, wall: float, budget: float | None) -> None:
        self.times.append(spent)
        del self.times[:-10_000]
        if self.games.settings.bot_times_file:
            try:
                with open(self.games.settings.bot_times_file, "a") as out:
                    out.write(f"{name} {spent:.4f} {wall:.4f} {'-' if budget is None else f'{budget:.3f}'}\n")
            except OSError:
                log.warning("cannot write the bot times to %s", self.games.settings.bot_times_file)

    async def close(self) -> None:
        """Stop every bot turn under way (a server that stops leaves them to its next start)."""
        await stop_tasks(list(self.tasks))


class Hints:
    """The hints asked in this process's games: one search per decision."""

    def __init__(self, games: Games):
        self.games = games
        self.searches: dict[int, tuple[int, asyncio.Future[dict[str, Any]]]] = {}  # game -> (version, search)

    async def ask(self, game_id: int, user_id: int) -> dict[str, Any]:
        """The top search level's preferred action for ``user_id``'s decision now, from that
        player's view alone, in a game against a bot created with hints allowed. One search per
        decision: asking again gives the same answer without searching again."""
        rt = await self.games.runtime(game_id)
        seat = rt.player_seat(user_id)
        g = rt.game
        if rt.bot_of(3 - seat) is None or not (g.options or {}).get("hints"):
            raise GameError(
                _("hints are off in this game: they are allowed only in games against a bot created with hints"), 403
            )
        if g.status != "running":
            raise GameError(_("the game is over ({reason}): no more hints").format(reason=result_reason(g.result)), 409)
        if rt.pos.decider != seat:
            raise GameError(_("it is not your turn: {name} must act now").format(name=rt.names[rt.pos.decider]), 409)
        version = g.version
        cached = self.searches.get(game_id)
        if cached is not None and cached[0] == version:
            return {**(await asyncio.shield(cached[1])), "version": version}
        events = (e for entry in rt.log for e in entry["events"])
        seed = self.games.job_seed("hint", game_id, version, seat)
        job = asyncio.ensure_future(
            self.games.bots.hint(notation.view_json(rt.pos, seat), known_hands(events, seat), g.decks[seat - 1], seed)
        )
        self.searches[game_id] = (version, job)
        try:
            found = await asyncio.shield(job)
        except Exception:
            self.searches.pop(game_id, None)
            log.exception("hint for game %s failed", game_id)
            raise GameError(_("the hint could not be computed; try again"), 503) from None
        return {**found, "version": version}
