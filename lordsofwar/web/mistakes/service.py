"""Exercises made from a player's own mistakes (docs/learn.md, "Learning from your mistakes").

Once a finished game has its analysis (lordsofwar.web.games.analysis), every decision of a player
that the analysis marked a mistake or a blunder becomes an exercise for that player, and for no
one else: the position before it, as that player saw it then (their view: the opponent's hand
hidden, the decks as counts, exactly what the analysis judged from), the legal actions there,
and the action they played. A try is judged as follows:

- the analysis' preferred action: right;
- the action played in the game: wrong (it is the mistake);
- any other legal action: scored by the analysis' own search of that decision (the same level,
  seed and iterations, :mod:`lordsofwar.web.mistakes.judging`), run in the bot pool at the hint
  priority, once per decision (the scores are kept for every action the search tried); right
  when its win probability is less than :data:`~lordsofwar.bots.analysis.MISTAKE` below the
  search's best, wrong otherwise. An action that search never tried gets no verdict ("unjudged")
  and the try is not counted: the search has no estimate of it and a longer one is not run.

The analysis' preferred action is given only with a judged try.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar.bots.analysis import MISTAKE, decisions_of, squares_of
from lordsofwar.i18n import _
from lordsofwar.rules import notation
from lordsofwar.rules.cards import CardSet
from lordsofwar.web.games.botpool import HINT, BotPool
from lordsofwar.web.games.runtime import GameError, Runtime, record_of
from lordsofwar.web.mistakes.judging import scores_job
from lordsofwar.web.models import GameAnalysis, User
from lordsofwar.web.problem import Problem
from lordsofwar.web.settings import Settings

GAMES_KEPT = 32
"""Games whose decisions (a replay of the record) are kept in memory."""

SCORES_KEPT = 256
"""Decisions whose search scores are kept in memory."""


class Games(Protocol):
    """What the exercises use of the game service (games.service.GameService)."""

    settings: Settings
    cards: CardSet
    bots: BotPool

    async def runtime(self, game_id: int) -> Runtime: ...

    def job_seed(self, label: str, game_id: int, version: int, seat: int = 0) -> int: ...


def _legal(view: dict[str, Any]) -> list[str]:
    return sorted({str(a) for a in notation.parse_position(view).legal_actions()})


class Mistakes:
    """The exercises of one server process, with its caches."""

    def __init__(self, games: Games, sessions: async_sessionmaker[AsyncSession]):
        self.games = games
        self.sessions = sessions
        self._decisions: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self._scores: OrderedDict[tuple[int, int], dict[str, Any]] = OrderedDict()
        self._running: dict[tuple[int, int], asyncio.Future[dict[str, Any]]] = {}

    async def _game(self, game_id: int, user: User) -> tuple[Runtime, int, dict[str, Any]]:
        """The game, the user's seat in it and its analysis; refused unless the user played it
        and it is over and analysed."""
        try:
            rt = await self.games.runtime(game_id)
        except GameError as exc:
            raise Problem(exc.status, str(exc)) from None
        seat = rt.seat_of(user.id)
        if seat is None:
            raise Problem(403, _("only the player who made these mistakes can practise them"))
        if rt.game.status != "over":
            raise Problem(
                409, _("the game is still running: its mistakes can be practised once it is over and analysed")
            )
        async with self.sessions() as db:
            row = await db.get(GameAnalysis, game_id)
        if row is None or row.status != "done" or not row.result:
            raise Problem(409, _("this game has no finished analysis yet: have it analysed on its replay page first"))
        return rt, seat, row.result

    async def _decisions_of(self, rt: Runtime) -> list[dict[str, Any]]:
        gid = rt.game.id
        found = self._decisions.get(gid)
        if found is None:
            found = await asyncio.to_thread(decisions_of, record_of(rt), self.games.cards)
            self._decisions[gid] = found
            while len(self._decisions) > GAMES_KEPT:
                self._decisions.popitem(last=False)
        else:
            self._decisions.move_to_end(gid)
        return found

    async def _flagged(
        self, game_id: int, user: User
    ) -> tuple[Runtime, int, dict[str, Any], list[tuple[dict[str, Any], dict[str, Any]]]]:
        """(game, seat, analysis, [(analysis entry, decision)]) for the user's marked decisions."""
        rt, seat, analysis = await self._game(game_id, user)
        entries = [
            d
            for d in analysis.get("decisions", [])
            if d.get("verdict") and d.get("player") == seat and not d.get("forced")
        ]
        decisions = await self._decisions_of(rt) if entries else []
        pairs = []
        for e in entries:
            n = int(e["n"])
            if (
                1 <= n <= len(decisions)
                and decisions[n - 1]["view"] is not None
                and decisions[n - 1]["played"] == e["played"]
            ):
                pairs.append((e, decisions[n - 1]))
        return rt, seat, analysis, pairs

    async def exercises(self, game_id: int, user: User) -> dict[str, Any]:
        """The user's exercises of the game (see the module text): no preferred action in them."""
        rt, seat, analysis, pairs = await self._flagged(game_id, user)
        items = []
        for entry, decision in pairs:
            items.append(
                {
                    "n": decision["n"],
                    "turn": decision["turn"],
                    "verdict": entry["verdict"],
                    "played": decision["played"],
                    "played_squares": _squares(decision["played"], decision["view"]),
                    "drop": entry.get("drop"),
                    "view": decision["view"],
                    "legal": await asyncio.to_thread(_legal, decision["view"]),
                }
            )
        return {
            "game": game_id,
            "player": seat,
            "names": {str(p): rt.names[p] for p in (1, 2)},
            "level": analysis.get("level"),
            "margin": MISTAKE,
            "exercises": items,
        }

    async def judge(self, game_id: int, n: int, action: str, user: User) -> dict[str, Any]:
        """The verdict on a try at exercise ``n`` (see the module text)."""
        _rt, _seat, analysis, pairs = await self._flagged(game_id, user)
        pair = next(((e, d) for e, d in pairs if d["n"] == n), None)
        if pair is None:
            raise Problem(404, _("this game has no exercise at step {n} for you").format(n=n))
        entry, decision = pair
        if action not in await asyncio.to_thread(_legal, decision["view"]):
            raise Problem(422, _("{action} is not a legal action in this position").format(action=action))
        out: dict[str, Any] = {"n": n, "action": action, "margin": MISTAKE}
        best = str(entry["best"])
        if action == best:
            out.update(verdict="best", correct=True, win=entry.get("win_best"), drop=0.0)
        elif action == decision["played"]:
            out.update(verdict="played", correct=False, win=entry.get("win_played"), drop=entry.get("drop"))
        else:
            scores = await self._search(game_id, decision, str(analysis.get("level")))
            win = scores["scores"].get(action)
            if win is None:
                out.update(
                    verdict="unjudged", correct=None, win=None, drop=None, best=None, best_squares=[], win_best=None
                )
                return out
            drop = round(max(0.0, scores["win_best"] - win), 4)
            good = drop < MISTAKE
            out.update(verdict="good" if good else "worse", correct=good, win=win, drop=drop)
        out.update(best=best, best_squares=_squares(best, decision["view"]), win_best=entry.get("win_best"))
        return out

    async def _search(self, game_id: int, decision: dict[str, Any], level: str) -> dict[str, Any]:
        key = (game_id, int(decision["n"]))
        found = self._scores.get(key)
        if found is not None:
            self._scores.move_to_end(key)
            return found
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(self._run(key, decision, level))
            self._running[key] = running
            running.add_done_callback(lambda _f: self._running.pop(key, None))
        return await asyncio.shield(running)

    async def _run(self, key: tuple[int, int], decision: dict[str, Any], level: str) -> dict[str, Any]:
        games = self.games
        seed = games.job_seed("analysis", key[0], 0) & (2**31 - 1)  # the analysis' own seed
        found = await games.bots.run(
            scores_job, decision, level, seed, games.settings.analysis_iterations, priority=HINT
        )
        self._scores[key] = found
        while len(self._scores) > SCORES_KEPT:
            self._scores.popitem(last=False)
        return found


def _squares(action: str, view: dict[str, Any]) -> list[str]:
    return squares_of(notation.parse_action(action, notation.parse_position(view)))
