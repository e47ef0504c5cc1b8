"""Swiss and round-robin tournaments: registration, the start, each round paired exactly once
with its games created, results from the games' ends, standings (docs/community.md).

A round is paired by the process whose conditional update raises the tournament's
``current_round`` from the round just finished: a second process (or a second call) finds the
round moved on and does nothing. The round's pairings and games are written in that same
transaction. Every change to the entrants (a join, a withdrawal, a bot entered or taken out),
the start and the pairing of each round first lock the tournament's row (:func:`_locked`), so
each of them sees the others whole, whatever the number of server processes: a join is paired
or refused, and a withdrawal comes before a round's pairing (the player is left out of it) or
after it (the round's game goes on), never half of each. Results reach the pairings in the
transactions that end the games (:mod:`lordsofwar.web.tournaments.results`); after each, and at
every sweep of the server, the next round is paired when the current one is complete.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterable
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import Row, Table, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar import decks as deckrules
from lordsofwar.bots import BOTS, ladder
from lordsofwar.i18n import N_, _
from lordsofwar.rules.cards import CORE
from lordsofwar.rules.events import LogEntry
from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.decks import service as deckweb
from lordsofwar.web.fields import Declared, WholeNumber
from lordsofwar.web.games.runtime import Runtime
from lordsofwar.web.games.schemas import Army, GameOptions
from lordsofwar.web.games.service import GameService
from lordsofwar.web.lobby.schemas import DeckNumber, some_army
from lordsofwar.web.models import Game, Tournament, TournamentEntry, TournamentPairing, User, utcnow
from lordsofwar.web.problem import Problem
from lordsofwar.web.ratings import service as ratings
from lordsofwar.web.tasks import stop_tasks
from lordsofwar.web.tournaments.pairing import (
    Entrant,
    Pairing,
    arena_standings,
    pair_arena,
    pair_round,
    round_robin_rounds,
    standings,
)
from lordsofwar.web.words import bot_name

log = logging.getLogger(__name__)

KINDS = {"swiss": N_("Swiss"), "round_robin": N_("Round robin"), "arena": N_("Arena")}


def kind_names() -> dict[str, str]:
    """Each kind of tournament by its name in the current language."""
    return {kind: _(name) for kind, name in KINDS.items()}


MAX_ENTRANTS = 500
ANCHOR_RATING = 1000
"""A bot level missing from the stored ladder is seeded as greedy, the ladder's anchor."""
TOURNAMENTS: Table = Tournament.__table__  # type: ignore[assignment]
PAIRINGS: Table = TournamentPairing.__table__  # type: ignore[assignment]
ENTRIES: Table = TournamentEntry.__table__  # type: ignore[assignment]
USERS: Table = User.__table__  # type: ignore[assignment]


def _no_hints_declared() -> dict[str, Any]:
    """The options' rules in a tournament: at least one army, and no hints."""
    return {**some_army(), "properties": {"hints": {"const": False}}}


class NewTournament(BaseModel):
    """A tournament to create: its name, kind, rounds (Swiss) and the options of its games."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(min_length=1, max_length=60, pattern=r"\S")
    kind: Literal["swiss", "round_robin", "arena"] = "swiss"
    rounds: WholeNumber = Field(default=5, ge=1, le=20, description="Swiss rounds (a round robin plays everyone once)")
    minutes: WholeNumber = Field(default=60, ge=5, le=1440, description="an arena's length, from its start")
    options: Annotated[GameOptions, Declared(_no_hints_declared)] = Field(default_factory=lambda: GameOptions())

    @field_validator("options")
    @classmethod
    def _no_hints(cls, value: GameOptions) -> GameOptions:
        if value.hints:
            raise ValueError(_("hints are for casual games against a bot, not for tournament games"))
        return value

    @field_validator("name")
    @classmethod
    def _one_line(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError(_("a name is needed"))
        return value


class Join(BaseModel):
    """Registration: the army you play (or random), or your custom deck when the games allow it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    army: Army = "random"
    deck: DeckNumber | None = Field(None, description="your custom deck (when the games allow custom decks)")


async def create(db: AsyncSession, user: User, body: NewTournament) -> Tournament:
    t = Tournament(
        name=body.name,
        kind=body.kind,
        status="upcoming",
        options=body.options.model_dump(),
        rounds=body.rounds if body.kind == "swiss" else 0,
        current_round=0,
        minutes=body.minutes if body.kind == "arena" else 0,
        created_by=user.id,
        created_at=utcnow(),
    )
    db.add(t)
    await db.commit()
    return t


async def _tournament(db: AsyncSession, tid: int) -> Tournament:
    t = await db.get(Tournament, tid)
    if t is None:
        raise Problem(404, _("there is no tournament {tournament}").format(tournament=tid))
    return t


async def _locked(db: AsyncSession, tid: int) -> Tournament:
    """The tournament, read under a lock on its row that this transaction holds until it ends.

    Joins, withdrawals, bots entered or taken out, the start and the pairing of every round take
    it first, so they happen one after the other: a join either comes before the start (and its
    player is paired in round 1) or finds registration closed; a withdrawal either comes before
    a round is paired (and the player is left out of it) or after. PostgreSQL locks the row
    (``SELECT ... FOR NO KEY UPDATE``: inserts that only refer to the tournament still go on);
    SQLite, one writer at a time, takes its write lock with an update of the row that changes
    nothing, the transaction's first statement (reads before it run outside any transaction)."""
    if db.get_bind().dialect.name == "postgresql":
        query = select(Tournament).where(Tournament.id == tid).with_for_update(key_share=True)
    else:
        await db.execute(
            update(TOURNAMENTS).where(TOURNAMENTS.c.id == tid).values(current_round=TOURNAMENTS.c.current_round)
        )
        query = select(Tournament).where(Tournament.id == tid)
    t = await db.scalar(query.execution_options(populate_existing=True))
    if t is None:
        raise Problem(404, _("there is no tournament {tournament}").format(tournament=tid))
    return t


def _closed() -> Problem:
    return Problem(409, _("registration is closed: the tournament has started"), code="closed")


async def join(db: AsyncSession, user: User, tid: int, body: Join) -> Tournament:
    t = await _locked(db, tid)
    if not _open(t):
        raise _closed()
    if await db.get(TournamentEntry, (tid, user.id)) is not None:
        raise Problem(409, _("you are registered already"))
    count = await db.scalar(select(func.count()).select_from(TournamentEntry).where(TournamentEntry.tournament_id == tid))
    if (count or 0) >= MAX_ENTRANTS:
        raise Problem(409, _("the tournament is full ({n} players)").format(n=MAX_ENTRANTS))
    options = GameOptions.model_validate(t.options)
    deck = None
    if body.deck is not None:
        deck = await deckweb.pick(db, user, body.deck, options.custom_decks, list(options.custom_armies))
    rating = (await ratings.player_ratings(db, user.id))[options.mode]["rating"]
    db.add(TournamentEntry(tournament_id=tid, user_id=user.id, rating=rating, army=body.army, deck=deck, withdrawn=False))
    await db.commit()
    return t


class EnterBot(BaseModel):
    """A built-in bot level entered by the tournament's creator, with the army it plays."""

    model_config = ConfigDict(extra="forbid", strict=True)

    level: Annotated[str, Declared(lambda: {"enum": list(BOTS)})] = Field(max_length=20, description="a bot level")
    army: Army = "random"


def _open(t: Tournament) -> bool:
    return t.status == "upcoming" or (t.kind == "arena" and t.status == "running")


async def _organiser(db: AsyncSession, user: User, tid: int) -> Tournament:
    t = await _locked(db, tid)
    if t.created_by != user.id:
        raise Problem(403, _("only the tournament's creator enters and removes bots"))
    return t


async def enter_bot(db: AsyncSession, user: User, tid: int, body: EnterBot) -> Tournament:
    """The creator enters a bot level (one entry per level), seeded by its measured rating; its
    games are played by the bot in the worker pool and are never rated."""
    if body.level not in BOTS:
        raise Problem(422, _("unknown bot {bot!r} (known: {known})").format(bot=body.level[:20], known=", ".join(BOTS)))
    t = await _organiser(db, user, tid)
    if not _open(t):
        raise _closed()
    bot = await accounts.bot_account(db, body.level)
    entry = await db.get(TournamentEntry, (tid, bot.id))
    if entry is not None and not entry.withdrawn:
        raise Problem(409, _("{bot} is entered already").format(bot=bot_name(body.level)))
    count = await db.scalar(select(func.count()).select_from(TournamentEntry).where(TournamentEntry.tournament_id == tid))
    if entry is None and (count or 0) >= MAX_ENTRANTS:
        raise Problem(409, _("the tournament is full ({n} players)").format(n=MAX_ENTRANTS))
    rating = ladder.ratings().get(body.level, ANCHOR_RATING)
    if entry is None:
        db.add(TournamentEntry(tournament_id=tid, user_id=bot.id, rating=rating, army=body.army, deck=None, withdrawn=False))
    else:  # back in a running arena after being taken out (a new joined_at: see _fingerprint)
        entry.withdrawn, entry.army, entry.joined_at = False, body.army, utcnow()
    await db.commit()
    return t


async def remove_bot(db: AsyncSession, user: User, tid: int, level: str) -> Tournament:
    """The creator takes a bot out: as a player's withdrawal (before the start its entry goes;
    after it, the bot is left out of the coming rounds and a game under way goes on)."""
    t = await _organiser(db, user, tid)
    bot = await accounts.find_user(db, accounts.BOT_ACCOUNTS.get(level, ""))
    entry = None if bot is None else await db.get(TournamentEntry, (tid, bot.id))
    if bot is None or entry is None or entry.withdrawn:
        raise Problem(409, _("{bot} is not entered in this tournament").format(bot=bot_name(level[:20])))
    await _leave(db, t, entry)
    return t


async def deck_choices(db: AsyncSession, user: User | None, tid: int) -> list[dict[str, Any]] | None:
    """For the join form: the user's decks with why each cannot be played here (None: it can),
    or None when the tournament's games do not allow custom decks."""
    t = await _tournament(db, tid)
    options = GameOptions.model_validate(t.options)
    if not options.custom_decks or user is None:
        return None
    allowed = list(options.custom_armies)
    return [
        {"id": d.id, "name": d.name, "problem": deckrules.game_problem(d.cards, CORE, allowed)}
        for d in await deckweb.list_decks(db, user)
    ]


async def join_running(sessions: async_sessionmaker[AsyncSession], games: GameService, t: Tournament) -> None:
    """A player who joins a running arena is paired as soon as someone else waits."""
    if t.kind == "arena" and t.status == "running":
        await advance(sessions, games, t.id)


async def withdraw(db: AsyncSession, user: User, tid: int) -> Tournament:
    """Before the start the entry goes; after it the player is left out of the coming rounds
    (a round robin forfeits their games); a game under way goes on."""
    t = await _locked(db, tid)
    entry = await db.get(TournamentEntry, (tid, user.id))
    if entry is None or entry.withdrawn:
        raise Problem(409, _("you are not registered in this tournament"))
    await _leave(db, t, entry)
    return t


async def _leave(db: AsyncSession, t: Tournament, entry: TournamentEntry) -> None:
    """An entrant leaves: before the start the entry goes; after it, it is marked withdrawn."""
    if t.status == "finished":
        raise Problem(409, _("the tournament is over"), code="over")
    if t.status == "upcoming":
        await db.delete(entry)
    else:
        entry.withdrawn = True
    await db.commit()


async def start(db: AsyncSession, sessions: async_sessionmaker[AsyncSession], games: GameService, user: User, tid: int) -> Tournament:
    """The creator starts the tournament: registration closes and round 1 is paired (with the
    tournament locked while its entrants are counted and its status changes: see :func:`_locked`)."""
    t = await _locked(db, tid)
    if t.created_by != user.id:
        raise Problem(403, _("only the tournament's creator can start it"))
    if t.status != "upcoming":
        raise Problem(409, _("the tournament has started already"), code="started")
    entries = await _entry_rows(db, tid)
    if len(entries) < 2:
        raise Problem(409, _("a tournament needs at least two players"))
    rounds = {"swiss": t.rounds, "round_robin": round_robin_rounds(len(entries)), "arena": 0}[t.kind]
    now = utcnow()
    ends_at = now + timedelta(minutes=t.minutes) if t.kind == "arena" else None
    started = await db.execute(
        update(TOURNAMENTS)
        .where(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.status == "upcoming")
        .values(status="running", started_at=now, rounds=rounds, ends_at=ends_at)
    )
    await db.commit()
    if started.rowcount != 1:  # type: ignore[attr-defined]
        raise Problem(409, _("the tournament has started already"), code="started")
    await advance(sessions, games, tid)
    await db.refresh(t)
    return t


async def _entry_rows(db: AsyncSession, tid: int) -> list[Row[Any]]:
    """The tournament's entries as plain rows (``user_id``, ``rating``, ``army``, ``deck``,
    ``withdrawn``...): reading hundreds of them on every look at a running arena, rows cost a
    fraction of what ORM objects do, in the event loop."""
    return list((await db.execute(select(ENTRIES).where(ENTRIES.c.tournament_id == tid))).all())


async def _pairing_rows(db: AsyncSession, tid: int) -> list[Row[Any]]:
    """The tournament's boards as plain rows, in the order they were paired."""
    query = select(PAIRINGS).where(PAIRINGS.c.tournament_id == tid).order_by(PAIRINGS.c.round, PAIRINGS.c.board)
    return list((await db.execute(query)).all())


async def _bots(db: AsyncSession, ids: Iterable[int]) -> dict[int, str]:
    """The bot level of each of these users that is a bot's account."""
    query = select(USERS.c.id, USERS.c.bot).where(USERS.c.id.in_(list(ids)), USERS.c.bot.is_not(None))
    return dict((await db.execute(query)).all())


async def _users(db: AsyncSession, ids: Iterable[int]) -> dict[int, User]:
    wanted = list(set(ids))
    return {u.id: u for u in await db.scalars(select(User).where(User.id.in_(wanted)))} if wanted else {}


def _entrants(entries: Iterable[Any], names: dict[int, str]) -> list[Entrant]:
    return [Entrant(e.user_id, names.get(e.user_id, "?"), e.rating, e.withdrawn) for e in entries]


def _pairings(rows: Iterable[Any]) -> list[Pairing]:
    return [Pairing(p.round, p.white_id, p.black_id, None if p.result == "bye" else p.result) for p in rows]


async def _names(db: AsyncSession, ids: Iterable[int]) -> dict[int, str]:
    wanted = set(ids)
    if not wanted:
        return {}
    return dict((await db.execute(select(USERS.c.id, USERS.c.name).where(USERS.c.id.in_(wanted)))).all())


async def advance(sessions: async_sessionmaker[AsyncSession], games: GameService, tid: int) -> bool:
    """Pair the next round when the current one is complete (or finish the tournament after its
    last round); in an arena, pair the players waiting (or finish once its time is up and its
    games are over). True when this call did it. Safe to call any number of times from any
    process."""
    created: list[Game] = []
    async with sessions() as db:
        t = await db.get(Tournament, tid)
        if t is None or t.status != "running":
            return False
        if t.kind == "arena":
            return await _arena_wave(db, games, t)
        if await _pending(db, t):
            return False  # seen without the lock: most calls stop here
        # The entrants read below are the ones the round is paired with: joins, withdrawals and
        # bots entered or taken out wait until this transaction ends (see _locked).
        t = await _locked(db, tid)
        if t.status != "running" or await _pending(db, t):
            await db.rollback()
            return False
        r = t.current_round
        if r >= t.rounds:
            done = await db.execute(
                update(TOURNAMENTS)
                .where(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.current_round == r, TOURNAMENTS.c.status == "running")
                .values(status="finished", finished_at=utcnow())
            )
            await db.commit()
            return bool(done.rowcount == 1)  # type: ignore[attr-defined]
        moved = await db.execute(
            update(TOURNAMENTS)
            .where(TOURNAMENTS.c.id == tid, TOURNAMENTS.c.current_round == r)
            .values(current_round=r + 1)
        )
        if moved.rowcount != 1:  # type: ignore[attr-defined]  # another call paired this round
            await db.rollback()
            return False
        entries = {e.user_id: e for e in await _entry_rows(db, tid)}
        names = await _names(db, entries)
        previous = await _pairing_rows(db, tid)
        boards = pair_round(t.kind, _entrants(entries.values(), names), _pairings(previous), r + 1, t.rounds)
        users = await _users(db, (u for b in boards for u in (b.white, b.black) if u is not None))
        base = GameOptions.model_validate(t.options)
        for number, b in enumerate(boards, start=1):
            row = TournamentPairing(tournament_id=tid, round=r + 1, board=number, white_id=b.white, black_id=b.black)
            white, black = entries[b.white], entries.get(b.black) if b.black is not None else None
            if black is None:
                row.result = "bye"
            elif white.withdrawn or black.withdrawn:  # a round robin keeps its schedule: forfeited
                row.result = "-+" if white.withdrawn else "+-"
            else:
                game = await _new_game(db, games, t, base, (white, black), users)
                row.game_id = game.id
                created.append(game)
            db.add(row)
        await db.commit()
    for game in created:
        games.started(game)
    if not created:  # a round of byes and forfeits only: it is complete already
        await advance(sessions, games, tid)
    return True


async def _pending(db: AsyncSession, t: Tournament) -> bool:
    """Whether a Swiss or round robin's current round has games still being played."""
    if t.current_round == 0:
        return False
    pending = await db.scalar(
        select(func.count()).select_from(PAIRINGS).where(
            PAIRINGS.c.tournament_id == t.id, PAIRINGS.c.round == t.current_round, PAIRINGS.c.result.is_(None)
        )
    )
    return bool(pending)


async def _new_game(
    db: AsyncSession,
    games: GameService,
    t: Tournament,
    base: GameOptions,
    seats: tuple[Any, Any],
    users: dict[int, User],
) -> Game:
    """A tournament game: the event's options, each side's army or deck, player 1 ``seats[0]``."""
    white, black = seats
    options = base.model_copy(update={"creator_side": "1", "creator_army": white.army, "opponent_army": black.army})
    custom = (white.deck["cards"] if white.deck else None, black.deck["cards"] if black.deck else None)
    game = await games.create(db, options, users[white.user_id], users[black.user_id], None, custom)
    game.tournament_id = t.id
    return game


async def _arena_wave(db: AsyncSession, games: GameService, t: Tournament, locked: bool = False) -> bool:
    """One pairing wave of an arena: every waiting player paired with another, in one
    transaction with the raise of its wave number (so no player is paired twice at once).

    The wave is worked out without the tournament's lock (a busy arena's players would wait for
    it), then made under it (see :func:`_locked`) if the wave is still the current one and none
    of the players it pairs withdrew meanwhile; otherwise it is worked out again, ``locked``."""
    wave = t.current_round
    rows = await _pairing_rows(db, t.id)
    playing = {u for p in rows if p.result is None for u in (p.white_id, p.black_id) if u is not None}
    now = utcnow()
    if t.ends_at is not None and now >= t.ends_at:
        if playing:
            return False  # games started in time are played out
        done = await db.execute(
            update(TOURNAMENTS)
            .where(TOURNAMENTS.c.id == t.id, TOURNAMENTS.c.current_round == wave, TOURNAMENTS.c.status == "running")
            .values(status="finished", finished_at=now)
        )
        await db.commit()
        return bool(done.rowcount == 1)  # type: ignore[attr-defined]
    entries = {e.user_id: e for e in await _entry_rows(db, t.id)}
    table = {s.id: s for s in arena_standings(_entrants(entries.values(), {}), _pairings(rows))}
    waiting = [table[u] for u, e in entries.items() if u not in playing and not e.withdrawn]
    last: dict[int, int] = {}
    for p in sorted(rows, key=lambda p: (p.round, p.board)):
        if p.black_id is not None:
            last[p.white_id], last[p.black_id] = p.black_id, p.white_id
    pairs = pair_arena(waiting, last, apart=set(await _bots(db, (s.id for s in waiting))))
    if not pairs:
        return False
    if not locked:
        t = await _locked(db, t.id)
        if t.status != "running" or t.current_round != wave:  # another call paired this wave
            await db.rollback()
            return False
        paired = [u for pair in pairs for u in pair]
        left = await db.scalar(
            select(func.count()).select_from(ENTRIES).where(
                ENTRIES.c.tournament_id == t.id, ENTRIES.c.user_id.in_(paired), ENTRIES.c.withdrawn.is_(True)
            )
        )
        if left:  # withdrawn since the wave was worked out: work it out again
            return await _arena_wave(db, games, t, locked=True)
    moved = await db.execute(
        update(TOURNAMENTS).where(TOURNAMENTS.c.id == t.id, TOURNAMENTS.c.current_round == wave).values(current_round=wave + 1)
    )
    if moved.rowcount != 1:  # type: ignore[attr-defined]  # another call paired this wave
        await db.rollback()
        return False
    users = await _users(db, (u for pair in pairs for u in pair))
    base = GameOptions.model_validate(t.options)
    created = []
    for number, (white_id, black_id) in enumerate(pairs, start=1):
        game = await _new_game(db, games, t, base, (entries[white_id], entries[black_id]), users)
        db.add(TournamentPairing(tournament_id=t.id, round=wave + 1, board=number, white_id=white_id, black_id=black_id, game_id=game.id))
        created.append(game)
    await db.commit()
    for game in created:
        games.started(game)
    return True


async def advance_all(sessions: async_sessionmaker[AsyncSession], games: GameService) -> int:
    """Pair every running tournament whose round is complete (the sweep's safety net)."""
    async with sessions() as db:
        ids = list(await db.scalars(select(Tournament.id).where(Tournament.status == "running")))
    count = 0
    for tid in ids:
        try:
            count += await advance(sessions, games, tid)
        except Exception:
            log.exception("pairing tournament %s failed", tid)
    return count


class Advancer:
    """After a tournament game ends, pair the next round when it is due (in the background).

    Games of one tournament ending close together (an arena's) make one pairing at a time: an
    end that arrives while the tournament is being paired asks for one more pass after it,
    instead of a pass of its own reading every board at the same moment."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], games: GameService):
        self.sessions = sessions
        self.games = games
        self.tasks: set[asyncio.Task[Any]] = set()
        self.again: dict[int, bool] = {}  # tournaments being paired: True when asked once more
        games.listeners.append(self.changed)

    async def changed(self, rt: Runtime, entries: list[LogEntry]) -> None:
        tid = rt.game.tournament_id
        if tid is None or rt.game.status != "over":
            return
        if tid in self.again:
            self.again[tid] = True
            return
        self.again[tid] = False
        task = asyncio.get_running_loop().create_task(self._advance(tid))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _advance(self, tid: int) -> None:
        try:
            while True:
                try:
                    await advance(self.sessions, self.games, tid)
                except Exception:
                    log.exception("pairing tournament %s failed", tid)
                if not self.again.get(tid):
                    return
                self.again[tid] = False
        finally:
            self.again.pop(tid, None)

    async def close(self) -> None:
        await stop_tasks(list(self.tasks))


def summary(t: Tournament, entrants: int) -> dict[str, Any]:
    options = GameOptions.model_validate(t.options)
    return {
        "id": t.id,
        "name": t.name,
        "kind": t.kind,
        "kind_name": _(KINDS[t.kind]),
        "status": t.status,
        "rounds": t.rounds,
        "current_round": t.current_round,
        "entrants": entrants,
        "summary": options.summary(),
        "created_at": t.created_at.isoformat(),
        "started_at": None if t.started_at is None else t.started_at.isoformat(),
        "finished_at": None if t.finished_at is None else t.finished_at.isoformat(),
        "minutes": t.minutes,
        "ends_at": None if t.ends_at is None else t.ends_at.isoformat(),
    }


async def listing(db: AsyncSession) -> dict[str, list[dict[str, Any]]]:
    """Upcoming, running and finished tournaments (the 50 latest of each)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for status in ("upcoming", "running", "finished"):
        rows = list(await db.scalars(select(Tournament).where(Tournament.status == status).order_by(Tournament.id.desc()).limit(50)))
        counts = dict(
            (
                await db.execute(
                    select(TournamentEntry.tournament_id, func.count())
                    .where(TournamentEntry.tournament_id.in_([t.id for t in rows]))
                    .group_by(TournamentEntry.tournament_id)
                )
            ).all()
        )
        out[status] = [summary(t, counts.get(t.id, 0)) for t in rows]
    return out


DETAIL_CACHE = 64
"""Tournaments whose entrants, standings and boards each process keeps worked out."""
_details: OrderedDict[tuple[str, int], tuple[tuple[Any, ...], dict[str, Any]]] = OrderedDict()
"""Keyed by the database as well as the tournament: one process may serve several (tests do)."""


async def _fingerprint(db: AsyncSession, t: Tournament) -> tuple[Any, ...]:
    """What the entrants, standings and boards depend on, in two small aggregate queries. It
    changes with every change to them: an entry is added (a later ``joined_at``) or deleted (one
    fewer), or withdrawn (one more), and a bot entered again gets a new ``joined_at``; a board is
    added (one more) or gets its result (one more finished), and results never change."""
    entries = (
        await db.execute(
            select(func.count(), func.max(ENTRIES.c.joined_at), func.count().filter(ENTRIES.c.withdrawn.is_(True))).where(
                ENTRIES.c.tournament_id == t.id
            )
        )
    ).one()
    boards = (
        await db.execute(
            select(func.count(), func.count(PAIRINGS.c.result)).where(PAIRINGS.c.tournament_id == t.id)
        )
    ).one()
    return (t.kind, *entries, *boards)


async def _table(db: AsyncSession, t: Tournament) -> dict[str, Any]:
    """The entrants, standings and boards of ``t``, the same for every viewer: worked out again
    only when its :func:`_fingerprint` changed (a running arena's page is read by its players
    every few seconds, and each working-out reads every board)."""
    key = await _fingerprint(db, t)
    slot = (str(db.get_bind().engine.url), t.id)
    cached = _details.get(slot)
    if cached is not None and cached[0] == key:
        _details.move_to_end(slot)
        return cached[1]
    entries = await _entry_rows(db, t.id)
    rows = await _pairing_rows(db, t.id)
    names = await _names(db, [e.user_id for e in entries])
    bots = await _bots(db, (e.user_id for e in entries))
    arena = arena_standings(_entrants(entries, names), _pairings(rows)) if t.kind == "arena" else None
    table = standings(_entrants(entries, names), _pairings(rows)) if arena is None else []
    rounds: dict[int, list[dict[str, Any]]] = {}
    for p in rows:
        rounds.setdefault(p.round, []).append(
            {
                "board": p.board,
                "white": names.get(p.white_id, "?"),
                "black": None if p.black_id is None else names.get(p.black_id, "?"),
                "game": p.game_id,
                "result": p.result,
            }
        )
    doc = {
        "entries": [
            {
                "name": names.get(e.user_id, "?"),
                "bot": bots.get(e.user_id),
                "rating": e.rating,
                "army": e.army,
                "deck": e.deck is not None,
                "withdrawn": e.withdrawn,
            }
            for e in sorted(entries, key=lambda e: (-e.rating, names.get(e.user_id, "")))
        ],
        "standings": [
            {
                "rank": s.rank,
                "name": s.name,
                "bot": bots.get(s.id),
                "score": s.score,
                "buchholz": s.buchholz,
                "sonneborn_berger": s.sonneborn_berger,
                "wins": s.wins,
                "played": s.played,
                "byes": s.byes,
                "withdrawn": s.withdrawn,
            }
            for s in table
        ]
        if arena is None
        else [
            {
                "rank": s.rank,
                "name": s.name,
                "bot": bots.get(s.id),
                "points": s.points,
                "games": s.games,
                "wins": s.wins,
                "on_fire": s.on_fire,
                "playing": s.playing,
                "sheet": s.sheet,
                "withdrawn": s.withdrawn,
            }
            for s in arena
        ],
        "rounds_played": [{"round": r, "boards": boards} for r, boards in sorted(rounds.items())],
        "withdrawn": {e.user_id: e.withdrawn for e in entries},
        "entered_bots": {bots[e.user_id] for e in entries if e.user_id in bots and not e.withdrawn},
        "finished": sum(1 for p in rows if p.result is not None),
    }
    _details[slot] = (key, doc)
    while len(_details) > DETAIL_CACHE:
        _details.popitem(last=False)
    return doc


async def detail(db: AsyncSession, tid: int, user: User | None) -> dict[str, Any]:
    """Everything the tournament page shows: entrants, standings, every round's boards."""
    t = await _tournament(db, tid)
    table = await _table(db, t)
    count = len(table["entries"])
    mine = None if user is None else table["withdrawn"].get(user.id)
    measured = ladder.ratings()
    return {
        **summary(t, count),
        "options": t.options,
        "creator": (await _names(db, [t.created_by] if t.created_by else [])).get(t.created_by or 0),
        "entries": table["entries"],
        "standings": table["standings"],
        "rounds_played": table["rounds_played"],
        "you": None if mine is None else {"withdrawn": mine},
        "can_start": user is not None and t.created_by == user.id and t.status == "upcoming" and count >= 2,
        "can_enter_bots": user is not None and t.created_by == user.id and _open(t),
        "can_remove_bots": user is not None and t.created_by == user.id and t.status != "finished",
        "bot_levels": [
            {"level": level, "name": bot_name(level), "rating": measured.get(level)}
            for level in BOTS
            if level not in table["entered_bots"]
        ],
        "progress": f"{t.status}:{t.current_round}:{count}:{table['finished']}",
    }
