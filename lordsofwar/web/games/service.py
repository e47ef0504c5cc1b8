"""The game service: every change to a game, and the documents its players and spectators get.

A game row keeps the deal (decks, seed, variant) and the list of actions; the position is
rebuilt from them with the rules engine and cached per process (games.runtime). The service
creates games, applies actions, resignations, aborts and draw offers, ends games whose time ran
out (with the clock rules of games.clock) and keeps the server's heartbeat. Every change is
written with a version check (``UPDATE ... WHERE version = old``, games.writer), so two tabs or
two server processes can never both apply an action to the same version of a game, and is
announced to the listeners (the hub) only once committed. Bots' turns and hints are in
games.bots, analyses in games.analysis.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Table, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from lordsofwar import decks
from lordsofwar.bots import BOTS
from lordsofwar.i18n import _, result_reason
from lordsofwar.learn import guide
from lordsofwar.rules import engine, notation
from lordsofwar.rules.cards import CORE, CORE_ARMIES, CardSet
from lordsofwar.rules.errors import IllegalActionError, LordsOfWarError
from lordsofwar.rules.events import LogEntry
from lordsofwar.rules.knowledge import deck_cards
from lordsofwar.rules.state import Position
from lordsofwar.web.db import upsert
from lordsofwar.web.games import clock
from lordsofwar.web.games.analysis import Analyses
from lordsofwar.web.games.botpool import BotPool
from lordsofwar.web.games.bots import BotTurns, Hints
from lordsofwar.web.games.runtime import Behind, GameError, Runtime, Stale, build, job_seed
from lordsofwar.web.games.schemas import ACTION_MAX, GameOptions
from lordsofwar.web.games.writer import CHANGING, BatchWriter, Then, run_steps
from lordsofwar.web.models import Game, Heartbeat, User, result_columns, utcnow
from lordsofwar.web.ratings import service as ratings
from lordsofwar.web.settings import Settings
from lordsofwar.web.tournaments import results as tournament_results
from lordsofwar.web.words import BOT_NAMES
from lordsofwar.web.workers.remote import remote_pool

log = logging.getLogger("lordsofwar.web")

RUNTIME_CACHE = 5000


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat().replace("+00:00", "Z")


def view_doc(rt: Runtime, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see of the position (clarifications 9.2)."""
    return notation.view_json(rt.pos, seat)


def game_meta(rt: Runtime, seat: int | None, now: datetime | None = None) -> dict[str, Any]:
    """The game's meta data for ``seat`` (None: a spectator): players, time control, the clocks
    as they read at ``now`` and which one runs (games.clock), the result, what the seat may do."""
    g = rt.game
    now = now or utcnow()
    running = g.status == "running"
    waiting = g.waiting_for if running else None
    clocks = {"1": g.clock1_ms, "2": g.clock2_ms}
    if waiting is not None:
        clocks[str(waiting)] = clock.remaining_ms(clocks[str(waiting)], g.mode, rt.pos.turn, g.since, now)
    tc: dict[str, Any] = (
        {"mode": "live", "initial_s": g.initial_ms // 1000, "increment_s": g.increment_ms // 1000}
        if g.mode == "live"
        else {"mode": "turn", "days": g.turn_ms // 86_400_000}
    )
    return {
        "id": g.id,
        "version": g.version,
        "status": g.status,
        "public": g.public,
        "you": seat,
        "players": {str(p): {"name": rt.names[p], "bot": rt.bot_of(p)} for p in (1, 2)},
        "time_control": tc,
        "clocks": clocks if g.mode == "live" else None,
        "clock_running": waiting if clock.time_runs(g.mode, rt.pos.turn) else None,
        "deadline": _iso(g.deadline_at) if running else None,
        "server_time": _iso(now),
        "draw_offer": g.draw_offer,
        "result": None if g.result is None else g.result.to_json(),
        "aborted": aborted(g),
        "abortable": seat is not None and running and engine.abortable(rt.pos),
        "rated": g.rated,
        "hints": bool((g.options or {}).get("hints")) and (g.bot1 is not None or g.bot2 is not None),
        "pool": g.mode,
        "ratings": None
        if rt.ratings is None
        else {
            str(seat): {k: v for k, v in change.items() if k != "user_id"} for seat, change in enumerate(rt.ratings, 1)
        },
    }


def aborted(g: Game) -> bool:
    """Whether the game was aborted: it ended before both players had made their first turn
    (rules.engine.ABORT_TURNS). An aborted game changes no rating, counts in no player's results
    and gives tournament points only as tournaments/results.py says."""
    return engine.is_aborted(g.result)


def legal_for(rt: Runtime, seat: int | None) -> list[str]:
    """The actions ``seat`` may play now, in notation (none unless it is that seat's decision)."""
    pos = rt.pos
    if seat is None or rt.game.status != "running" or pos.result is not None or pos.decider != seat:
        return []
    return sorted(str(a) for a in pos.legal_actions())


def state_doc(rt: Runtime, seat: int | None, log: list[LogEntry] | None = None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) gets of the game: its meta data, the view, the legal
    actions, the log (``log``: only these entries) and what it may know of each deck."""
    standard = [army in CORE_ARMIES for army in rt.game.armies]  # a core army's name: its standard deck
    return {
        "game": game_meta(rt, seat),
        "view": view_doc(rt, seat),
        "legal": legal_for(rt, seat),
        "log": rt.log if log is None else log,
        "deck_cards": deck_cards(rt.pos, seat, rt.game.decks, standard),
    }


def update_doc(rt: Runtime, seat: int | None, entries: list[LogEntry]) -> dict[str, Any]:
    return {"type": "update", **state_doc(rt, seat, entries)}


Listener = Callable[[Runtime, list[LogEntry]], Awaitable[None]]


class _Opening:
    """Stands for the opening position of a new game in :meth:`GameService.deadline`."""

    decider = 1
    turn = 1


class GameService:
    """Owns the runtimes of this process and every change to a game."""

    def __init__(self, settings: Settings, sessions: async_sessionmaker[AsyncSession], cards: CardSet = CORE):
        self.settings = settings
        self.sessions = sessions
        self.engine: AsyncEngine = sessions.kw["bind"]
        self.writer = BatchWriter(settings, self.engine)
        self.cards = cards
        self.runtimes: dict[int, Runtime] = {}
        self.listeners: list[Listener] = []
        self._load_locks: dict[int, asyncio.Lock] = {}
        self.watched: Callable[[int], bool] = lambda _game_id: False
        self.bots = BotPool(settings.bot_workers) if settings.bot_workers > 0 else remote_pool(settings)
        self.analyses = Analyses(self)
        self.bot_turns = BotTurns(self)
        self.hints = Hints(self)
        self.key: bytes | None = None
        """The server key (accounts.server_key), set when the application starts: bots', hints' and
        analyses' seeds are derived from it (:func:`job_seed`)."""

    def job_seed(self, label: str, game_id: int, version: int, seat: int = 0) -> int:
        """:func:`job_seed` with the server key."""
        if self.key is None:
            raise RuntimeError("the server key is loaded when the application starts")
        return job_seed(self.key, label, game_id, version, seat)

    # --- loading ---------------------------------------------------------------------------------

    async def runtime(self, game_id: int) -> Runtime:
        rt = self.runtimes.get(game_id)
        if rt is not None:
            return rt
        lock = self._load_locks.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                rt = self.runtimes.get(game_id)
                if rt is None:
                    rt = await self._load(game_id)
                    self.runtimes[game_id] = rt
                    self._evict()
        finally:
            if not lock.locked():
                self._load_locks.pop(game_id, None)
        return rt

    def _evict(self) -> None:
        """Keep at most RUNTIME_CACHE games in memory: drop the oldest-loaded that nobody
        watches and no request is changing (finished ones first); they reload when asked."""
        if len(self.runtimes) <= RUNTIME_CACHE:
            return
        idle = [gid for gid, r in self.runtimes.items() if not r.lock.locked() and not self.watched(gid)]
        idle.sort(key=lambda gid: self.runtimes[gid].game.status == "running")
        for gid in idle[: len(self.runtimes) - RUNTIME_CACHE]:
            del self.runtimes[gid]

    async def _load(self, game_id: int) -> Runtime:
        async with self.sessions() as db:
            game = await db.get(Game, game_id)
            if game is None:
                raise GameError(_("there is no game {game}").format(game=game_id), 404)
            names = {
                1: await self._name(db, game.player1_id, game.bot1),
                2: await self._name(db, game.player2_id, game.bot2),
            }
            changes = None
            if game.rated and game.status == "over":
                changes = await ratings.game_changes(db, game.id, (game.player1_id, game.player2_id))
        rt = build(game, names, self.cards)
        rt.ratings = changes
        return rt

    async def apply_remote(self, game_id: int, version: int, action: str) -> LogEntry | None:
        """Another process applied ``action`` as change ``version``: apply it to this process's
        cached position too, with the game's fields read back from the database. None (and the
        caller reloads the game) unless the cache is exactly one change behind and the database
        agrees."""
        rt = self.runtimes.get(game_id)
        if rt is None:
            return None
        async with rt.lock:
            g = rt.game
            if g.version != version - 1 or g.status != "running":
                return None
            table: Table = Game.__table__  # type: ignore[assignment]
            async with self.sessions() as db:
                row = (
                    await db.execute(select(*[table.c[name] for name in CHANGING]).where(table.c.id == game_id))
                ).first()
            if row is None:
                return None
            values = dict(zip(CHANGING, row, strict=True))
            if values["version"] != version or values["actions"] != [*g.actions, action]:
                return None
            try:
                new = rt.pos.copy()
                player, turn = new.decider, new.turn
                events = new.push(notation.parse_action(action, new))
            except LordsOfWarError:
                return None
            entry: LogEntry = {"n": len(rt.log) + 1, "turn": turn, "player": player, "action": action, "events": events}
            if g.rated and values["status"] == "over":
                async with self.sessions() as db:
                    rt.ratings = await ratings.game_changes(db, game_id, (g.player1_id, g.player2_id))
            for key, value in values.items():
                setattr(g, key, value)
            rt.pos = new
            rt.log.append(entry)
            rt.action_version = version
            return entry

    async def reload(self, game_id: int) -> Runtime:
        """Forget this process's copy (another process changed the game) and read it again."""
        self.runtimes.pop(game_id, None)
        return await self.runtime(game_id)

    @staticmethod
    async def _name(db: AsyncSession, user_id: int | None, bot: str | None) -> str:
        if bot is not None:
            return BOT_NAMES.get(bot, f"{bot} bot")
        if user_id is None:
            return "?"
        user = await db.get(User, user_id)
        return user.name if user else "?"

    # --- creating ---------------------------------------------------------------------------------

    async def create(
        self,
        db: AsyncSession,
        options: GameOptions,
        creator: User,
        opponent: User | None,
        bot: str | None = None,
        custom: tuple[list[str] | None, list[str] | None] = (None, None),
    ) -> Game:
        """A new running game between ``creator`` and ``opponent`` (or a bot), added to ``db``.

        ``custom`` holds the creator's and the opponent's custom decks (already checked against
        the options), copied into the game; a side without one plays its army's standard deck.
        A bot's account (a tournament's entrant, :func:`accounts.bot_account`) is played by its
        bot; a game with a bot is never rated."""
        if bot is not None and bot not in BOTS:
            raise GameError(_("unknown bot {bot!r} (known: {known})").format(bot=bot, known=", ".join(BOTS)), 400)
        if bot is None and opponent is not None:
            bot = opponent.bot
        side = int(options.creator_side) if options.creator_side != "random" else 1 + secrets.randbelow(2)
        armies: list[str] = [options.creator_army, options.opponent_army]
        armies = [a if a != "random" else secrets.choice(CORE_ARMIES) for a in armies]
        dealt = [
            list(deck) if deck else self.cards.standard_deck(army) for deck, army in zip(custom, armies, strict=True)
        ]
        armies = [
            army if deck is None else decks.kind(deck, self.cards) for deck, army in zip(custom, armies, strict=True)
        ]
        if side == 2:
            armies.reverse()
            dealt.reverse()
        seats: list[int | None] = [creator.id, opponent.id if opponent else None]
        bots: list[str | None] = [creator.bot, bot]
        if side == 2:
            seats.reverse()
            bots.reverse()
        variant = options.variant()
        now = utcnow()
        initial = options.minutes * 60_000
        game = Game(
            player1_id=seats[0],
            player2_id=seats[1],
            bot1=bots[0],
            bot2=bots[1],
            public=options.public,
            rated=options.rated and bots == [None, None] and opponent is not None,
            options=options.model_dump(),
            variant=variant.to_json(),
            decks=dealt,
            armies=armies,
            seed=secrets.randbelow(2**63),
            actions=[],
            version=0,
            status="running",
            waiting_for=1,
            mode=options.mode,
            initial_ms=initial if options.mode == "live" else 0,
            increment_ms=options.increment * 1000 if options.mode == "live" else 0,
            turn_ms=options.days * 86_400_000 if options.mode == "turn" else 0,
            clock1_ms=initial if options.mode == "live" else 0,
            clock2_ms=initial if options.mode == "live" else 0,
            since=now,
            created_at=now,
        )
        game.deadline_at = self.deadline(game, _Opening(), now, initial)  # type: ignore[arg-type]
        db.add(game)
        await db.flush()
        return game

    def started(self, game: Game) -> None:
        """Call after the new game is committed: a bot that moves first starts thinking."""
        self.bot_turns.schedule(game.id)

    # --- changes ----------------------------------------------------------------------------------

    async def act(self, game_id: int, user_id: int, text: Any, version: Any) -> Runtime:
        """Apply one action of ``user_id``'s; GameError (nothing changed) when it is refused."""
        if not isinstance(text, str):
            raise GameError(_("action: expected a string such as 'deploy orcs:07 d3'"), 400)
        if len(text) > ACTION_MAX:
            raise GameError(
                _("action: {length} characters, at most {max}").format(length=len(text), max=ACTION_MAX), 413
            )
        if type(version) is not int:
            raise GameError(_("version: expected the integer version of the game you saw"), 400)

        async def attempt(rt: Runtime) -> Runtime:
            seat = rt.player_seat(user_id)
            return await self._apply(rt, seat, text, version)

        rt = await self.runtime(game_id)
        if version > rt.game.version:  # the client saw a change this process has not heard of yet
            rt = await self.reload(game_id)
        return await self._judged(game_id, rt, attempt)

    async def _judged(self, game_id: int, rt: Runtime, attempt: Callable[[Runtime], Awaitable[Runtime]]) -> Runtime:
        """Run ``attempt`` under the game's lock; when this process's copy turns out to be behind
        the database (another process changed the game), catch up and judge it again."""
        for _attempt in range(3):
            async with rt.lock:
                try:
                    return await attempt(rt)
                except Behind:
                    pass
            rt = await self.reload(game_id)
        raise Behind()

    async def _apply(self, rt: Runtime, seat: int, text: str, version: int) -> Runtime:
        g, pos = rt.game, rt.pos
        if g.status != "running":
            raise GameError(_("the game is over ({reason})").format(reason=result_reason(g.result)))
        if not rt.action_version <= version <= g.version:  # a draw offer alone leaves it current
            raise Stale(
                _(
                    "stale request: you acted on version {version} but the game is at version {current}; "
                    "your board is refreshed"
                ).format(version=version, current=g.version)
            )
        if pos.decider != seat:
            raise GameError(_("it is not your turn: {name} must act now").format(name=rt.names[pos.decider]))
        now = utcnow()
        if await self._expire(rt, now):
            raise GameError(_("too late: {reason}").format(reason=result_reason(rt.game.result)))
        new = pos.copy()  # the engine refuses an illegal action (explaining why) and changes nothing
        try:
            action = notation.parse_action(text, pos)
            events = new.push(action)
        except LordsOfWarError as exc:  # not one of this position's actions: a refusal of state
            kind = exc.kind if isinstance(exc, IllegalActionError) else None
            raise GameError(str(exc), 409, rule=guide.rule_link(kind)) from None
        turn = pos.turn
        entry: LogEntry = {
            "n": len(g.actions) + 1,
            "turn": turn,
            "player": seat,
            "action": str(action),
            "events": events,
        }
        values = self._clock_after(rt, seat, new, now)
        values["actions"] = [*g.actions, str(action)]
        if g.draw_offer is not None and g.draw_offer != seat:
            values["draw_offer"] = None  # acting instead of answering declines the offer
        await self._commit(rt, new, values, [entry])
        return rt

    def _clock_after(self, rt: Runtime, seat: int, new: Position, now: datetime) -> dict[str, Any]:
        g, pos = rt.game, rt.pos
        values: dict[str, Any] = {}
        if g.mode == "live":
            key = f"clock{seat}_ms"
            turn_ended = new.turn != pos.turn and new.result is None
            values[key] = clock.after_action(
                getattr(g, key), g.increment_ms, g.mode, pos.turn, g.since, now, turn_ended
            )
            values["since"] = now
        elif new.decider != pos.decider or new.turn != pos.turn:
            values["since"] = now
        return values

    def deadline(self, g: Game, pos: Position, since: datetime, left_ms: int) -> datetime | None:
        """When the player to act loses on time (None: a bot, never out of time)."""
        if (g.bot1 if pos.decider == 1 else g.bot2) is not None:
            return None
        return clock.deadline(g.mode, pos.turn, since, left_ms, g.turn_ms)

    def _finish_values(self, new: Position, now: datetime) -> dict[str, Any]:
        assert new.result is not None
        return {
            "status": "over",
            **result_columns(new.result),
            "waiting_for": None,
            "deadline_at": None,
            "draw_offer": None,
            "ended_at": now,
        }

    async def _commit(self, rt: Runtime, new: Position, values: dict[str, Any], entries: list[LogEntry]) -> None:
        g = rt.game
        now = values.get("since") or utcnow()
        if new.result is not None:
            values.update(self._finish_values(new, now))
        else:
            values["waiting_for"] = new.decider
            left = values.get(f"clock{new.decider}_ms", getattr(g, f"clock{new.decider}_ms"))
            values["deadline_at"] = self.deadline(g, new, values.get("since", g.since), left)
        values["version"] = g.version + 1
        params = {name: values.get(name, getattr(g, name)) for name in CHANGING}
        params["b_id"], params["b_old"] = g.id, g.version
        # What else changes when the game ends, in the same transaction and only if it does: the
        # ratings of a rated game, the result of a tournament's pairing.
        steps: dict[str, Then] = {}
        counts = new.result is not None and not engine.is_aborted(new.result)  # an aborted game rates nothing
        if new.result is not None and counts and g.rated and g.player1_id is not None and g.player2_id is not None:
            steps["ratings"] = functools.partial(
                ratings.rate_game,
                game_id=g.id,
                pool=g.mode,
                players=(g.player1_id, g.player2_id),
                winner=new.result.winner,
                now=now,
            )
        if new.result is not None and g.tournament_id is not None:
            steps["tournament"] = functools.partial(
                tournament_results.record_game,
                game_id=g.id,
                tournament_id=g.tournament_id,
                result=new.result,
                log=[*rt.log, *entries],
            )
        then: Then | None = None
        if steps:
            then = functools.partial(run_steps, steps)
        try:
            changed, done = await self.writer.execute_with(params, then)
            rated = None if done is None else done.get("ratings")
        except Exception as exc:
            log.exception("writing game %s failed", g.id)
            raise GameError(
                _("the server could not save this action ({error}); nothing changed; try again").format(
                    error=type(exc).__name__
                ),
                503,
            ) from None
        if changed != 1:
            if self.runtimes.get(g.id) is rt:
                self.runtimes.pop(g.id, None)
            raise Behind()
        for key, value in values.items():
            setattr(g, key, value)
        if rated is not None:
            rt.ratings = rated
        if new is not rt.pos:
            rt.action_version = g.version
        rt.pos = new
        rt.log.extend(entries)
        await self._notify(rt, entries)
        if new.result is None:
            self.bot_turns.schedule(g.id)

    async def _notify(self, rt: Runtime, entries: list[LogEntry]) -> None:
        for listener in self.listeners:
            try:
                await listener(rt, entries)
            except Exception:  # a listener's fault must not undo a committed change
                log.exception("game listener failed")

    async def resign(self, game_id: int, user_id: int) -> Runtime:
        """Resign: judged on the newest state, so a resignation racing an action (on another
        process) is applied after it, never lost."""

        async def attempt(rt: Runtime) -> Runtime:
            seat = rt.player_seat(user_id)
            await self._end(rt, ("resign", seat), seat)
            return rt

        return await self._judged(game_id, await self.runtime(game_id), attempt)

    async def abort(self, game_id: int, user_id: int) -> Runtime:
        """Abort the game: either player may while neither ending would count (before both have
        made their first turn); refused (409) after that, and once the game is over."""

        async def attempt(rt: Runtime) -> Runtime:
            seat = rt.player_seat(user_id)
            if rt.game.status != "running":
                raise GameError(_("the game is over ({reason})").format(reason=result_reason(rt.game.result)))
            if not engine.abortable(rt.pos):
                raise GameError(
                    _("the game can no longer be aborted: both players have made their first turn; resign instead")
                )
            await self._end(rt, ("abort", seat), seat)
            return rt

        return await self._judged(game_id, await self.runtime(game_id), attempt)

    async def draw(self, game_id: int, user_id: int, op: Any) -> Runtime:
        return await self._judged(game_id, await self.runtime(game_id), lambda rt: self._draw(rt, user_id, op))

    async def _draw(self, rt: Runtime, user_id: int, op: Any) -> Runtime:
        seat = rt.player_seat(user_id)
        g = rt.game
        if g.status != "running":
            raise GameError(_("the game is over ({reason})").format(reason=result_reason(g.result)))
        if op == "offer":
            if g.draw_offer == seat:
                raise GameError(_("you have already offered a draw"))
            if g.draw_offer == 3 - seat:
                await self._end(rt, ("agreed", None), seat)
            elif rt.bot_of(3 - seat) is not None:
                raise GameError(_("bots do not accept draws; play on or resign"))
            else:
                await self._commit(rt, rt.pos, {"draw_offer": seat}, [])
        elif op in ("accept", "decline"):
            if g.draw_offer != 3 - seat:
                raise GameError(_("there is no draw offer to answer"))
            if op == "accept":
                await self._end(rt, ("agreed", None), seat)
            else:
                await self._commit(rt, rt.pos, {"draw_offer": None}, [])
        else:
            raise GameError(_("op: expected 'offer', 'accept' or 'decline'"), 400)
        return rt

    async def _end(
        self, rt: Runtime, ending: tuple[str, int | None], by: int | None, now: datetime | None = None
    ) -> None:
        if rt.game.status != "running":
            raise GameError(_("the game is over ({reason})").format(reason=result_reason(rt.game.result)))
        g = rt.game
        now = now or utcnow()
        new = rt.pos.copy()
        # before both players have made their first turn, any ending aborts the game
        events = engine.abort(new, ending) if engine.abortable(rt.pos) else engine.end_early(new, ending)
        entry: LogEntry = {"n": len(rt.log) + 1, "turn": new.turn, "player": by, "action": None, "events": events}
        values: dict[str, Any] = {"since": now}
        if g.waiting_for is not None and clock.clock_runs(g.mode, rt.pos.turn):
            key = f"clock{g.waiting_for}_ms"  # the clock that was running stops where it is
            values[key] = clock.remaining_ms(getattr(g, key), g.mode, rt.pos.turn, g.since, now)
        if ending[0] == "time" and ending[1] is not None:
            values[f"clock{ending[1]}_ms"] = 0
        await self._commit(rt, new, values, [entry])

    async def _expire(self, rt: Runtime, now: datetime) -> bool:
        """End the game when the player who must act is out of time; True if it ended."""
        g = rt.game
        if g.status != "running" or not clock.timed_out(g.deadline_at, now) or g.waiting_for is None:
            return False
        if rt.bot_of(g.waiting_for) is not None:
            return False  # a bot is never out of time: it answers as soon as it runs
        loser = g.waiting_for
        await self._end(rt, (clock.timeout_reason(g.mode, rt.pos.turn), loser), loser, now)
        return True

    async def sweep(self) -> int:
        """End every running game whose player to act ran out of time; the number ended."""
        now = utcnow()
        async with self.sessions() as db:
            ids = list(
                await db.scalars(select(Game.id).where(Game.status == "running", Game.deadline_at <= now).limit(500))
            )
        ended = 0
        for game_id in ids:
            try:
                rt = await self.runtime(game_id)
                async with rt.lock:
                    if await self._expire(rt, utcnow()):
                        ended += 1
            except GameError:
                continue
        return ended

    async def heartbeat(self) -> None:
        """Note that a server is up (each sweep): after a restart, the time it was down is
        credited to the running games instead of the players' clocks."""
        now = utcnow()
        table: Table = Heartbeat.__table__  # type: ignore[assignment]
        async with self.sessions() as db:
            await upsert(db, table, {"name": "server", "at": now}, "name", update=["at"])
            await db.commit()

    async def credit_downtime(self, grace_s: float = 5.0) -> float:
        """At start-up: when no server was up for a while, move every running game's clock start
        and deadline on by that time (nobody loses on time while the server was down)."""
        now = utcnow()
        async with self.sessions() as db:
            last = await db.scalar(select(Heartbeat.at).where(Heartbeat.name == "server"))
            if last is None or (now - last).total_seconds() <= grace_s:
                return 0.0
            down = now - last
            games = await db.scalars(select(Game).where(Game.status == "running"))
            for game in games:
                game.since = game.since + down
                if game.deadline_at is not None:
                    game.deadline_at = game.deadline_at + down
            await db.commit()
        self.runtimes.clear()
        log.info("the server was down for %s; running games' clocks moved on by that", down)
        return down.total_seconds()

    async def resume_bots(self) -> None:
        """After a restart: every running game waiting for a bot gets its bot going again."""
        async with self.sessions() as db:
            rows = await db.execute(
                select(Game.id, Game.waiting_for, Game.bot1, Game.bot2).where(
                    Game.status == "running", (Game.bot1.is_not(None)) | (Game.bot2.is_not(None))
                )
            )
            for game_id, waiting, bot1, bot2 in rows:
                if (waiting == 1 and bot1) or (waiting == 2 and bot2):
                    self.bot_turns.schedule(game_id)

    async def close(self) -> None:
        await self.analyses.close()
        await self.bots.aclose()
        await self.bot_turns.close()
        await self.writer.close()
