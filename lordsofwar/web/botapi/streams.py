"""The bot API's streams at scale: how many each token and account may hold open, and the event
streams' news pushed to them rather than looked for by each stream.

**The cap.** Each token may hold ``bot_streams_per_token`` event streams open at once and each
account ``bot_streams_per_account``; the next is refused with 429 (code ``streams``). Game
streams are counted the same way for each game (``game:<id>``): a bot may follow all its games,
but not open a thousand streams on one. Without Redis the count is this process's own. With Redis it is one sorted
set per token and per account (``<prefix>:bot-streams:<kind>:token:<id>``, ``...:account:<id>``):
each open stream is a member whose score is the time its place runs out; its process renews the
places of its streams every third of ``bot_stream_lease`` and removes them when they close, so
a killed process's places run out after at most one lease. Taking a place is one Lua script
(drop the expired members, count, add), so two processes never both take the last one.

**The news.** Every event stream of one account (and language) in a process shares one
:class:`Group`. A group looks at the database only when the hub says the account's lobby
changed (:meth:`Hub.tell_users`: a challenge made, cancelled, declined or accepted, a game
started or ended, in this process or another through Redis), when a stream joins it, and every
``bot_stream_poll`` seconds as a safety net; several of these at once make one look. A look
opens a database session, reads the account's open challenges and running games, closes the
session, and hands each stream what it has not yet told. An idle stream holds no database
connection and costs one queue and one waiting task.

What changed is seen where it is written: each session of the server's sessionmaker notes the
players of every challenge and game it adds or changes (and, for a bulk UPDATE of those tables,
that any player's lobby may have changed) and tells the hub after its commit.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import json
import logging
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import ORMExecuteState, Session

from lordsofwar import i18n
from lordsofwar.i18n import _
from lordsofwar.web.lobby.service import game_json, invitation_json
from lordsofwar.web.models import Game, Invitation, User
from lordsofwar.web.problem import Problem
from lordsofwar.web.settings import Settings

if TYPE_CHECKING:
    from lordsofwar.web.games.hub import Hub

log = logging.getLogger("lordsofwar.web")
TRIM_AFTER = 64
"""When at least this many streams were open and half of them have closed, the freed memory is
handed back to the system (:func:`release_memory`)."""
EVENT_QUEUE = 256

_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[2 + i]) then return i end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now + lease, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], lease * 2)
end
return 0
"""

_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + lease, ARGV[1 + i])
  redis.call('PEXPIRE', KEYS[i], lease * 2)
end
return 0
"""


@dataclass(eq=False)
class Slot:
    """One open stream's place in its token's and its account's counts."""

    keys: tuple[str, str]
    member: str
    shared: bool  # counted in Redis (else in this process)
    released: bool = False


class StreamSlots:
    """The cap on open bot API streams per token and per account (module docstring)."""

    def __init__(self, settings: Settings, hub: Hub):
        self.settings = settings
        self.hub = hub
        self.per_token = max(1, settings.bot_streams_per_token)
        self.per_account = max(1, settings.bot_streams_per_account)
        self.lease_ms = max(1000, int(settings.bot_stream_lease * 1000))
        self.local: dict[str, int] = {}
        self.held: set[Slot] = set()
        self.peak = 0
        self._renewer: asyncio.Task[None] | None = None
        self._trimmer: asyncio.Task[None] | None = None

    def _keys(self, kind: str, token_id: int, user_id: int) -> tuple[str, str]:
        base = f"{self.hub.prefix}:bot-streams:{kind}"
        return f"{base}:token:{token_id}", f"{base}:account:{user_id}"

    async def take(self, kind: str, token_id: int, user_id: int) -> Slot:
        """A place for a new stream, or Problem 429 (code ``streams``) when the token or the
        account holds as many as it may."""
        keys = self._keys(kind, token_id, user_id)
        caps = (self.per_token, self.per_account)
        redis = self.hub.redis
        if redis is None:
            full = next((i + 1 for i, key in enumerate(keys) if self.local.get(key, 0) >= caps[i]), 0)
            if not full:
                for key in keys:
                    self.local[key] = self.local.get(key, 0) + 1
                slot = Slot(keys, "", shared=False)
                self._hold(slot)
                return slot
        else:
            member = uuid.uuid4().hex
            full = int(await redis.eval(_TAKE, 2, *keys, self.lease_ms, member, *caps))
            if not full:
                slot = Slot(keys, member, shared=True)
                self._hold(slot)
                self._renew_soon()
                return slot
        if full == 1:
            message = _("this token has as many streams of this kind open as it may ({n}); close one first")
        else:
            message = _("this account has as many streams of this kind open as it may ({n}); close one first")
        raise Problem(429, message.format(n=caps[full - 1]), code="streams")

    def _hold(self, slot: Slot) -> None:
        self.held.add(slot)
        self.peak = max(self.peak, len(self.held))

    async def release(self, slot: Slot) -> None:
        if slot.released:
            return
        slot.released = True
        self.held.discard(slot)
        if self.peak >= TRIM_AFTER and len(self.held) <= self.peak // 2:
            self.peak = len(self.held)
            self._trim_soon()
        if not slot.shared:
            for key in slot.keys:
                left = self.local.get(key, 0) - 1
                if left > 0:
                    self.local[key] = left
                else:
                    self.local.pop(key, None)
            return
        redis = self.hub.redis
        if redis is None:
            return
        try:
            async with redis.pipeline(transaction=False) as pipe:
                for key in slot.keys:
                    pipe.zrem(key, slot.member)
                await pipe.execute()
        except Exception:  # the place runs out by itself after its lease
            log.warning("a bot stream's place could not be freed on Redis; it runs out in %s ms", self.lease_ms)

    def _trim_soon(self) -> None:
        """Many streams closed: hand the memory they used back to the system a moment later."""
        if self._trimmer is None or self._trimmer.done():
            self._trimmer = asyncio.get_running_loop().create_task(self._trim())

    async def _trim(self) -> None:
        await asyncio.sleep(1.0)  # the streams' tasks and buffers are gone by then
        await asyncio.to_thread(release_memory)

    def _renew_soon(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew())

    async def _renew(self) -> None:
        """Renew this process's places in Redis while it holds any."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            shared = [s for s in self.held if s.shared]
            redis = self.hub.redis
            if not shared or redis is None:
                return
            try:
                async with redis.pipeline(transaction=False) as pipe:
                    for slot in shared:
                        pipe.eval(_RENEW, 2, *slot.keys, self.lease_ms, slot.member, slot.member)
                    await pipe.execute()
            except Exception:
                log.exception("renewing %s bot stream places on Redis failed", len(shared))

    def stop(self) -> None:
        """At shutdown: no more renewing (the streams free their places as they end; what is
        left runs out after one lease)."""
        for task in (self._renewer, self._trimmer):
            if task is not None:
                task.cancel()


def release_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing where
    there is none). Many streams' buffers freed together leave pages the allocator would
    otherwise keep: without this the server's memory stays at its peak after they close."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass


# --- the event streams' news ------------------------------------------------------------------------


@dataclass(eq=False)
class EventStream:
    """One event stream: what it has told its bot (challenges open, games running), and the
    lines waiting for it."""

    queue: asyncio.Queue[list[str] | None] = field(default_factory=lambda: asyncio.Queue(EVENT_QUEUE))
    challenges: set[int] = field(default_factory=set)
    running: set[int] = field(default_factory=set)
    closed: bool = False

    def send(self, lines: list[str]) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(lines)
        except asyncio.QueueFull:  # its client does not read: end it (the bot reconnects)
            log.warning("closing a bot's event stream: its client does not read")
            self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        while True:  # room for the end mark
            try:
                self.queue.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.queue.get_nowait()


@dataclass(eq=False)
class Group:
    """The event streams of one account in one language, in this process."""

    user: User
    locale: str
    streams: set[EventStream] = field(default_factory=set)
    wanted: bool = False
    task: asyncio.Task[None] | None = None


def _line(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"), default=str) + "\n"


class EventNews:
    """The event streams of one server process, told by the hub when an account's lobby changed."""

    def __init__(self, settings: Settings, sessions: async_sessionmaker[AsyncSession], hub: Hub):
        self.settings = settings
        self.sessions = sessions
        self.hub = hub
        self.groups: dict[tuple[int, str], Group] = {}
        self.looks = 0  # database looks made (for tests and benchmarks)
        self._safety: asyncio.Task[None] | None = None
        hub.user_listeners.append(self.changed)
        _watch_sessions(sessions, hub)

    def changed(self, user_ids: list[int] | None) -> None:
        """The hub's news: these accounts' lobbies (None: every account's) changed."""
        wanted = set(user_ids) if user_ids is not None else None
        for (uid, _locale), group in list(self.groups.items()):
            if wanted is None or uid in wanted:
                self._look_soon(group)

    def _look_soon(self, group: Group) -> None:
        group.wanted = True
        if group.task is None or group.task.done():
            group.task = asyncio.get_running_loop().create_task(self._looks(group))

    async def _looks(self, group: Group) -> None:
        while group.wanted and group.streams:
            group.wanted = False
            try:
                with i18n.use(group.locale):
                    await self._look(group)
            except Exception:
                log.exception("a look for the bot events of account %s failed", group.user.id)
                await asyncio.sleep(1)
                group.wanted = True

    async def _look(self, group: Group) -> None:
        """One look at the database for all the group's streams: the session is closed before
        any stream is told."""
        user, uid = group.user, group.user.id
        streams = list(group.streams)
        told_challenges = set().union(*(s.challenges for s in streams))
        told_running = set().union(*(s.running for s in streams))
        self.looks += 1
        async with self.sessions() as db:
            rows = await db.execute(
                select(Invitation, User.name)
                .join(User, User.id == Invitation.creator_id)
                .where(Invitation.status == "open", Invitation.opponent_id == uid)
                .order_by(Invitation.id)
            )
            challenges = {
                inv.id: _line({"type": "challenge", "challenge": invitation_json(inv, creator, user.name)})
                for inv, creator in rows
            }
            gone_challenges: dict[int, str] = {}
            gone = sorted(told_challenges - challenges.keys())
            if gone:
                statuses = dict(
                    (await db.execute(select(Invitation.id, Invitation.status).where(Invitation.id.in_(gone))))
                    .tuples()
                    .all()
                )
                for inv_id in gone:
                    status = statuses.get(inv_id)
                    if status != "accepted":
                        doc = {"type": "challengeCanceled", "challenge": {"id": inv_id, "status": status}}
                        gone_challenges[inv_id] = _line(doc)
            games = list(
                await db.scalars(
                    select(Game)
                    .where(Game.status == "running", or_(Game.player1_id == uid, Game.player2_id == uid))
                    .order_by(Game.id)
                )
            )
            starts = {g.id: g for g in games}
            start_lines: dict[int, str] = {}
            for g in games:
                if any(g.id not in s.running for s in streams):
                    start_lines[g.id] = _line({"type": "gameStart", "game": await game_json(db, g, user)})
            finish_lines: dict[int, str] = {}
            for gone_id in sorted(told_running - starts.keys()):
                ended = await db.get(Game, gone_id)
                if ended is not None:
                    finish_lines[gone_id] = _line({"type": "gameFinish", "game": await game_json(db, ended, user)})
        for stream in streams:
            lines = [text for inv_id, text in challenges.items() if inv_id not in stream.challenges]
            lines += [gone_challenges[i] for i in sorted(stream.challenges - challenges.keys()) if i in gone_challenges]
            lines += [start_lines[g] for g in starts if g not in stream.running]
            lines += [finish_lines[g] for g in sorted(stream.running - starts.keys()) if g in finish_lines]
            stream.challenges = set(challenges)
            stream.running = set(starts)
            if lines:
                stream.send(lines)

    def open(self, user: User) -> tuple[Group, EventStream]:
        """A new stream of ``user``'s: it gets everything at the group's next look (made now)."""
        key = (user.id, i18n.current())
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = Group(user, key[1])
        stream = EventStream()
        group.streams.add(stream)
        self._look_soon(group)
        self._safety_net()
        return group, stream

    def leave(self, group: Group, stream: EventStream) -> None:
        stream.closed = True
        group.streams.discard(stream)
        if not group.streams and self.groups.get((group.user.id, group.locale)) is group:
            del self.groups[(group.user.id, group.locale)]

    def _safety_net(self) -> None:
        if self._safety is None or self._safety.done():
            self._safety = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        """Every ``bot_stream_poll`` seconds, one look per group (while there are any)."""
        every = max(0.05, self.settings.bot_stream_poll)
        while self.groups:
            await asyncio.sleep(every)
            for group in list(self.groups.values()):
                self._look_soon(group)

    async def lines(self, user: User, stopping: asyncio.Event, keepalive: float) -> AsyncIterator[str]:
        """One event stream's lines, with a keep-alive after ``keepalive`` seconds of silence,
        until the server stops (:meth:`stop` ends every stream). No task of its own: a stream
        waits on its queue only."""
        if stopping.is_set():
            return
        group, stream = self.open(user)
        try:
            while True:
                try:
                    async with asyncio.timeout(keepalive):
                        found = await stream.queue.get()
                except TimeoutError:
                    yield "\n"
                    continue
                if found is None:
                    return
                for line in found:
                    yield line
        finally:
            self.leave(group, stream)

    def stop(self) -> None:
        """At shutdown: the looks stop and every stream ends."""
        for task in [self._safety, *(g.task for g in self.groups.values())]:
            if task is not None:
                task.cancel()
        for group in self.groups.values():
            for stream in group.streams:
                stream.close()


# --- what a session changed --------------------------------------------------------------------------


def _players(obj: Any) -> Iterable[int | None]:
    if isinstance(obj, Invitation):
        return (obj.creator_id, obj.opponent_id)
    if isinstance(obj, Game):
        return (obj.player1_id, obj.player2_id)
    return ()


def _watch_sessions(sessions: async_sessionmaker[AsyncSession], hub: Hub) -> None:
    """Let every session of ``sessions`` tell ``hub`` whose lobby its commit changed: the
    players of each challenge and game it added, changed or deleted, or everyone's after a
    bulk UPDATE or DELETE of those tables (rare: the lobby's answer to a challenge)."""
    base: type[Session] = sessions.kw.get("sync_session_class") or Session

    class Watched(base):  # type: ignore[valid-type, misc]
        """A session that notes the players whose lobby it changed."""

    def noted(session: Session) -> dict[str, Any]:
        found: dict[str, Any] = session.info.setdefault("lordsofwar_lobby", {"users": set(), "all": False})
        return found

    @event.listens_for(Watched, "after_flush")
    def after_flush(session: Session, _context: Any) -> None:
        touched = [o for o in (*session.new, *session.dirty, *session.deleted) if isinstance(o, Invitation | Game)]
        if touched:
            users = noted(session)["users"]
            for obj in touched:
                users.update(uid for uid in _players(obj) if uid is not None)

    @event.listens_for(Watched, "do_orm_execute")
    def on_execute(state: ORMExecuteState) -> None:
        mapper = state.bind_mapper
        if (state.is_update or state.is_delete) and mapper is not None and mapper.class_ in (Invitation, Game):
            noted(state.session)["all"] = True

    @event.listens_for(Watched, "after_commit")
    def after_commit(session: Session) -> None:
        found = session.info.pop("lordsofwar_lobby", None)
        if not found or not (found["all"] or found["users"]):
            return
        ids = None if found["all"] else sorted(found["users"])
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop.call_soon(hub.tell_users, ids)

    @event.listens_for(Watched, "after_rollback")
    def after_rollback(session: Session) -> None:
        session.info.pop("lordsofwar_lobby", None)

    sessions.configure(sync_session_class=Watched)
