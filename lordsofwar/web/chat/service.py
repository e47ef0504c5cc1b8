"""Game chat (docs/community.md, "Chat"): who may read and write which room, the abuse limits,
the stored messages, and their delivery over the game's socket.

A game has two rooms. ``players``: its two players only, during the game and in its replay.
``spectators``: everyone else who may watch the game; its players do not see it while the game
runs, and may read it (not write in it) once the game is over. Games against a bot (a built-in
level or a bot API account) have no chat.

A message is either a player's own text (at most :data:`MAX_LENGTH` characters, one line,
bidirectional controls and other control characters removed) or a quick phrase's key
(:data:`PHRASES`), which each reader's page shows in its own language. Texts are never HTML: the
pages put them in with ``textContent``, so a link or a tag is shown as the characters typed.

The limits: per player a few messages in a few seconds and more in some minutes, per game and
room a number in a few seconds (the accounts' limiter, in Redis when configured, so they hold
across processes), and no message the same as one of the writer's last few in the game.
Blocked pairs (lordsofwar.web.social's ``blocked_either``) cannot chat with each other, and a
muted player (lordsofwar.web.moderation's ``muted_until``) is told when the mute ends.

Delivery: a new message goes to this process's sockets of the game that may read its room and
whose user has chat on, and through Redis (the hub's ``chat`` channel) to the other processes,
which deliver it to theirs alike.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from babel.dates import format_datetime
from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.aio.storage import Storage
from sqlalchemy import Connection as DbConnection
from sqlalchemy import Engine, Integer, Row, Select, Table, bindparam, insert, select, true
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from lordsofwar import i18n
from lordsofwar.i18n import N_, _
from lordsofwar.web.accounts import limits
from lordsofwar.web.db import sqlite_engine, upsert
from lordsofwar.web.games.hub import Connection, Hub
from lordsofwar.web.games.runtime import Runtime
from lordsofwar.web.models import ChatMessage, ChatSettings, Game, User, UTCDateTime, utcnow
from lordsofwar.web.moderation import service as moderation
from lordsofwar.web.problem import Problem
from lordsofwar.web.social import service as social

Room = Literal["players", "spectators"]
ROOMS: tuple[Room, ...] = ("players", "spectators")
MAX_LENGTH = 300
"""Characters of one message, after cleaning."""
HISTORY = 200
"""Messages of a room sent with the history (the newest)."""
PHRASES: dict[str, str] = {
    "hello": N_("Hello"),
    "good_luck": N_("Good luck"),
    "good_game": N_("Good game"),
    "thanks": N_("Thanks"),
    "well_played": N_("Well played"),
}
"""The quick phrases: their keys (sent and stored) and English words (the catalogues translate them)."""
PER_PLAYER: tuple[RateLimitItem, ...] = (RateLimitItemPerSecond(5, 10), RateLimitItemPerMinute(30, 5))
"""A player's messages over all games: 5 in 10 seconds, 30 in 5 minutes."""
PER_ROOM: RateLimitItem = RateLimitItemPerSecond(20, 10)
"""A game room's messages from all its writers: 20 in 10 seconds."""
REPEAT_LOOKBACK = 3
"""A message may not be the same as any of its writer's last this many in the game..."""
REPEAT_WINDOW = timedelta(minutes=5)
"""...written in this time."""
ENABLED_CACHE = 100_000
"""Users whose setting a process remembers before it forgets them all (and reads them again)."""
CHANNEL = "chat"
"""The hub's channel for messages and setting changes between processes."""
LOCK_WAIT_S = 20.0
"""On SQLite: how long a post waits for another connection's write lock before it fails."""

STRIPPED = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
"""The characters a text loses (a regular expression's class): the control characters but the
line breaks and tabs, the bidirectional marks, embeddings, overrides and isolates (U+061C,
U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), and the invisible joiners and word joiners."""
VISIBLE = rf"[^\s{STRIPPED}]"
"""A text must hold a character of this class (the API's schema says so too)."""
_STRIP = re.compile(f"[{STRIPPED}]")
_SPACES = re.compile(r"\s+")


def clean(text: str) -> str:
    """The text as kept: the :data:`STRIPPED` characters removed (a right-to-left override cannot
    turn the page's text round), line breaks and every run of spaces made one space, the ends
    trimmed. Never longer than the text sent."""
    return _SPACES.sub(" ", _STRIP.sub("", text)).strip()


def _same_key(text: str) -> str:
    return text.casefold()


def _stamp(when: datetime) -> str:
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def message_doc(m: ChatMessage, name: str) -> dict[str, Any]:
    """A message as the API and the socket send it (ChatMessageOut)."""
    return {
        "id": m.id,
        "room": m.room,
        "user": name,
        "text": m.text,
        "phrase": m.phrase,
        "at": _stamp(m.created_at),
    }


def has_chat(rt: Runtime) -> bool:
    """Whether the game has a chat at all: not against a built-in bot (bot API accounts are
    checked with the players' rows: :meth:`ChatService.players`)."""
    return (
        rt.game.bot1 is None
        and rt.game.bot2 is None
        and rt.game.player1_id is not None
        and rt.game.player2_id is not None
    )


def readable_rooms(game: Game, seat: int | None) -> list[Room]:
    """The rooms a reader in ``seat`` (None: a spectator) may read."""
    if seat is not None:
        return ["players", "spectators"] if game.status == "over" else ["players"]
    return ["spectators"]


def writable_room(seat: int | None) -> Room:
    return "players" if seat is not None else "spectators"


_MESSAGES: Table = ChatMessage.__table__  # type: ignore[assignment]


def post_checks() -> Select[Any]:
    """One statement for the rules of a post that need the database: the end of the writer's
    mute (moderation's ``mute_end``), whether the writer and the other player block each other
    (social's ``block_between``; ``other`` is NULL in the spectators' room: no block), and the
    writer's last :data:`REPEAT_LOOKBACK` messages in the game. One row per recent message (at
    least one row), each carrying the mute and the block. Its parameters: ``user``, ``game``,
    ``other``, ``now``; built once (:data:`POST_CHECKS`)."""
    user = bindparam("user", type_=Integer)
    game = bindparam("game", type_=Integer)
    other = bindparam("other", type_=Integer)
    now = bindparam("now", type_=UTCDateTime())
    flags = select(
        moderation.mute_end(user, now).scalar_subquery().label("muted"),
        social.block_between(user, other).exists().label("blocked"),
    ).subquery()
    recent = (
        select(ChatMessage.text, ChatMessage.phrase, ChatMessage.created_at)
        .where(ChatMessage.game_id == game, ChatMessage.user_id == user)
        .order_by(ChatMessage.id.desc())
        .limit(REPEAT_LOOKBACK)
        .subquery()
    )
    return select(flags.c.muted, flags.c.blocked, recent.c.text, recent.c.phrase, recent.c.created_at).select_from(
        flags.outerjoin(recent, true())
    )


POST_CHECKS = post_checks()
INSERT_MESSAGE = insert(_MESSAGES).returning(_MESSAGES.c.id)
"""A message's insert (its columns as parameters), answering its id."""


def refuse(rows: Sequence[Row[Any]], body: str, phrase: str | None, now: datetime) -> None:
    """Refuse (raise a Problem) a post that :func:`post_checks` answered: muted (403, saying
    until when), a block between the players (403), the same as one of the writer's last
    messages within :data:`REPEAT_WINDOW` (409)."""
    muted, blocked = rows[0].muted, rows[0].blocked
    if muted is not None and muted > now:
        when = format_datetime(muted, format="medium", tzinfo=UTC, locale=i18n.current())
        raise Problem(403, _("you are muted until {until} (UTC)").format(until=when), "muted")
    if blocked:
        raise Problem(403, _("you cannot chat with this player"), "blocked")
    key = _same_key(body)
    since = now - REPEAT_WINDOW
    for row in rows:
        if row.text is not None and row.created_at >= since and row.phrase == phrase and _same_key(row.text) == key:
            raise Problem(409, _("you sent this message a moment ago"), "repeat")


class ChatService:
    """The chat of one server process: posting, history, settings and delivery."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], hub: Hub, storage: Storage):
        self.sessions = sessions
        self.hub = hub
        self.storage = storage
        """The accounts' limiter storage (Redis when configured), where the rates are counted."""
        bind = sessions.kw.get("bind")
        self.local: Engine | None = None
        """On SQLite: the chat's own synchronous engine, used in the event loop's thread (:meth:`_keep`)."""
        if isinstance(bind, AsyncEngine) and bind.dialect.name == "sqlite":
            self.local = sqlite_engine(bind.url.set(drivername="sqlite").render_as_string(hide_password=False))
        self.local_conn: DbConnection | None = None
        self.enabled: dict[int, bool] = {}
        """Each user's chat setting as this process last read or heard it (Redis tells changes)."""
        self.chat_games: dict[int, bool] = {}
        """Whether each game has a chat (False: against a bot), as this process found it."""
        self._tasks: set[asyncio.Task[None]] = set()
        hub.subscribe(CHANNEL, self._remote)

    # --- settings -----------------------------------------------------------------------------

    async def is_enabled(self, db: AsyncSession, user_id: int) -> bool:
        row = await db.get(ChatSettings, user_id)
        on = True if row is None else bool(row.enabled)
        self.enabled[user_id] = on
        return on

    async def set_enabled(self, db: AsyncSession, user_id: int, on: bool) -> bool:
        table: Any = ChatSettings.__table__
        await upsert(
            db, table, {"user_id": user_id, "enabled": on, "updated_at": utcnow()}, "user_id", ["enabled", "updated_at"]
        )
        await db.commit()
        self.enabled[user_id] = on
        self.hub.publish(CHANNEL, {"kind": "setting", "user": user_id, "enabled": on})
        return on

    # --- posting ------------------------------------------------------------------------------

    async def players(self, db: AsyncSession, rt: Runtime) -> list[User]:
        ids = [uid for uid in (rt.game.player1_id, rt.game.player2_id) if uid is not None]
        return list((await db.scalars(select(User).where(User.id.in_(ids)))).all())

    async def check_game(self, db: AsyncSession, rt: Runtime) -> None:
        """Refuses (409) a game against a bot: it has no chat. Remembered per game: a game's
        players never change, nor does an account with games become a bot's."""
        game_id = rt.game.id
        if game_id not in self.chat_games:
            if len(self.chat_games) > ENABLED_CACHE:
                self.chat_games.clear()
            bots = not has_chat(rt) or any(u.bot is not None or u.bot_account for u in await self.players(db, rt))
            self.chat_games[game_id] = not bots
        if not self.chat_games[game_id]:
            raise Problem(409, _("games against a bot have no chat"), "bot")

    async def post(
        self, db: AsyncSession, rt: Runtime, user: User, text: str | None, phrase: str | None
    ) -> dict[str, Any]:
        """Keep and deliver one message of ``user`` in the room of their seat; refused (Problem)
        with nothing kept when a limit or rule says no.

        The rules that need the database (a mute, a block between the two players, the same
        message again) are asked in one statement, in the transaction that keeps the message
        (:meth:`_keep`); the rates are counted in one step (``hit_all``: one round trip to
        Redis); a game's chat and each writer's setting are known in the process."""
        seat = rt.seat_of(user.id)
        room = writable_room(seat)
        if phrase is not None:
            if phrase not in PHRASES:
                raise Problem(400, _("unknown quick phrase"), "phrase")
            body = PHRASES[phrase]
        else:
            body = clean(text or "")
            if not body:
                raise Problem(400, _("the message is empty"), "empty")
            if len(body) > MAX_LENGTH:
                raise Problem(
                    400,
                    _("the message is too long ({length} characters, at most {max})").format(
                        length=len(body), max=MAX_LENGTH
                    ),
                    "length",
                )
        checks: list[tuple[RateLimitItem, tuple[str, ...]]] = [
            (item, ("chat-player", str(user.id))) for item in PER_PLAYER
        ]
        checks.append((PER_ROOM, ("chat-room", str(rt.game.id), room)))
        full = await limits.hit_all(self.storage, checks)
        if full is not None:
            if full < len(PER_PLAYER):
                raise Problem(429, _("you are writing too fast: wait a little"), "rate")
            raise Problem(429, _("this chat is too busy: wait a little"), "rate")
        await self.check_game(db, rt)
        known = self.enabled.get(user.id)  # this process's copy (set here, or told through Redis)
        if not (await self.is_enabled(db, user.id) if known is None else known):
            raise Problem(409, _("you turned chat off: turn it on to write"), "off")
        other = None
        if room == "players":
            other = rt.game.player2_id if seat == 1 else rt.game.player1_id
        now = utcnow()
        values = {
            "game_id": rt.game.id,
            "user_id": user.id,
            "room": room,
            "text": body,
            "phrase": phrase,
            "created_at": now,
        }
        asked = {"user": user.id, "game": rt.game.id, "other": other, "now": now}

        def judge(rows: Sequence[Row[Any]]) -> None:
            refuse(rows, body, phrase, now)

        message_id = await self._keep(db, asked, judge, values)
        doc = {"id": message_id, "room": room, "user": user.name, "text": body, "phrase": phrase, "at": _stamp(now)}
        over = rt.game.status == "over"
        self.deliver_known(rt.game.id, room, over, doc)
        self.hub.publish(CHANNEL, {"kind": "message", "game": rt.game.id, "over": over, "message": doc})
        return doc

    async def _keep(
        self,
        db: AsyncSession,
        asked: dict[str, Any],
        judge: Callable[[Sequence[Row[Any]]], None],
        values: dict[str, Any],
    ) -> int:
        """Ask :data:`POST_CHECKS` (with ``asked``), let ``judge`` refuse (it raises), and insert
        the message (``values``): one transaction; the new message's id.

        On SQLite on a connection of the chat's own, in the event loop's thread, as the game
        writer does (games.writer): both take a few tens of microseconds, less than a hop to a
        driver thread, and the write lock is never held while the loop serves others (a
        message's insert would otherwise hold it across a hop and make the game writer wait).
        While another connection holds the lock, the loop gets a turn and it tries again."""
        if self.local is None:
            judge((await db.execute(POST_CHECKS, asked)).all())
            message_id = int((await db.execute(INSERT_MESSAGE, values)).scalar_one())
            await db.commit()
            return message_id
        deadline = time.monotonic() + LOCK_WAIT_S
        pause = 0.001
        while True:
            if self.local_conn is None:
                self.local_conn = self.local.connect()
            conn = self.local_conn
            try:
                with conn.begin():
                    judge(conn.execute(POST_CHECKS, asked).all())
                    return int(conn.execute(INSERT_MESSAGE, values).scalar_one())
            except OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    self.local_conn = None
                    conn.close()
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)

    # --- reading ------------------------------------------------------------------------------

    async def history(self, db: AsyncSession, game: Game, seat: int | None) -> dict[Room, list[dict[str, Any]]]:
        """The newest messages of each room the reader may read (oldest first)."""
        rooms: dict[Room, list[dict[str, Any]]] = {}
        for room in readable_rooms(game, seat):
            rows = (
                await db.execute(
                    select(ChatMessage, User.name)
                    .join(User, User.id == ChatMessage.user_id)
                    .where(ChatMessage.game_id == game.id, ChatMessage.room == room)
                    .order_by(ChatMessage.id.desc())
                    .limit(HISTORY)
                )
            ).all()
            rooms[room] = [message_doc(m, name) for m, name in reversed(rows)]
        return rooms

    # --- delivery -----------------------------------------------------------------------------

    async def deliver(self, game_id: int, room: Room, over: bool, doc: dict[str, Any]) -> None:
        """Send a message to this process's sockets of the game that may read its room and whose
        user has chat on (signed-out spectators read the spectators' room)."""
        conns = self._readers(game_id, room, over)
        if len(self.enabled) > ENABLED_CACHE:
            self.enabled.clear()
        unknown = {c.user_id for c in conns if c.user_id is not None and c.user_id not in self.enabled}
        if unknown:
            async with self.sessions() as db:
                rows = await db.execute(
                    select(ChatSettings.user_id, ChatSettings.enabled).where(ChatSettings.user_id.in_(unknown))
                )
                found = {int(uid): bool(on) for uid, on in rows}
            for uid in unknown:
                self.enabled[uid] = bool(found.get(uid, True))
        self._send(conns, doc)

    def deliver_known(self, game_id: int, room: Room, over: bool, doc: dict[str, Any]) -> None:
        """:meth:`deliver` without waiting: the readers whose setting this process does not know
        yet (rare: one who opened the game's socket in this process and never read or changed
        the setting) get the message once it is read, in a task of its own."""
        conns = self._readers(game_id, room, over)
        if any(c.user_id is not None and c.user_id not in self.enabled for c in conns):
            task = asyncio.get_running_loop().create_task(self.deliver(game_id, room, over, doc))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        self._send(conns, doc)

    def _readers(self, game_id: int, room: Room, over: bool) -> list[Connection]:
        return [
            c
            for c in list(self.hub.games.get(game_id, ()))
            if isinstance(c, Connection) and (c.seat is not None if room == "players" else c.seat is None or over)
        ]

    def _send(self, conns: list[Connection], doc: dict[str, Any]) -> None:
        """Queue the message for each reader with chat on, made JSON once for all."""
        payload = json.dumps({"type": "chat", "message": doc}, separators=(",", ":"))
        for conn in conns:
            if conn.user_id is None or self.enabled.get(conn.user_id, True):
                conn.send(payload)

    async def _remote(self, doc: dict[str, Any]) -> None:
        """A message or setting change from another process (the hub's chat channel)."""
        if doc.get("kind") == "setting":
            self.enabled[int(doc["user"])] = bool(doc["enabled"])
        elif doc.get("kind") == "message":
            message = doc["message"]
            room: Room = "players" if message.get("room") == "players" else "spectators"
            await self.deliver(int(doc["game"]), room, bool(doc.get("over")), message)


async def messages_for_report(db: AsyncSession, message_id: int, context: int = 10) -> dict[str, Any] | None:
    """A reported message with up to ``context`` messages of its room before and after it, for
    the moderators' queue: ``{"message", "before", "after", "game_id", "user_id"}`` (each message
    as :func:`message_doc` gives it, with ``user_id``), or None when there is no such message."""
    message = await db.get(ChatMessage, message_id)
    if message is None:
        return None
    base = (
        select(ChatMessage, User.name)
        .join(User, User.id == ChatMessage.user_id)
        .where(ChatMessage.game_id == message.game_id, ChatMessage.room == message.room)
    )
    before = (
        await db.execute(base.where(ChatMessage.id < message.id).order_by(ChatMessage.id.desc()).limit(context))
    ).all()
    after = (await db.execute(base.where(ChatMessage.id > message.id).order_by(ChatMessage.id).limit(context))).all()
    author = await db.get(User, message.user_id)

    def doc(m: ChatMessage, name: str) -> dict[str, Any]:
        return {**message_doc(m, name), "user_id": m.user_id}

    return {
        "message": doc(message, author.name if author else "?"),
        "before": [doc(m, name) for m, name in reversed(before)],
        "after": [doc(m, name) for m, name in after],
        "game_id": message.game_id,
        "user_id": message.user_id,
    }
