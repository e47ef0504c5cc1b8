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

import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from babel.dates import format_datetime
from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar import i18n
from lordsofwar.i18n import N_, _
from lordsofwar.web.db import upsert
from lordsofwar.web.games.hub import Connection, Hub
from lordsofwar.web.games.runtime import Runtime
from lordsofwar.web.models import ChatMessage, ChatSettings, Game, User, utcnow
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


class ChatService:
    """The chat of one server process: posting, history, settings and delivery."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], hub: Hub, storage: Storage):
        self.sessions = sessions
        self.hub = hub
        self.limiter = MovingWindowRateLimiter(storage)
        """Counts in the accounts' limiter storage (Redis when configured)."""
        self.enabled: dict[int, bool] = {}
        """Each user's chat setting as this process last read or heard it (Redis tells changes)."""
        self.chat_games: dict[int, bool] = {}
        """Whether each game has a chat (False: against a bot), as this process found it."""
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
        with nothing kept when a limit or rule says no."""
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
        for item in PER_PLAYER:
            if not await self.limiter.hit(item, "chat-player", str(user.id)):
                raise Problem(429, _("you are writing too fast: wait a little"), "rate")
        if not await self.limiter.hit(PER_ROOM, "chat-room", str(rt.game.id), room):
            raise Problem(429, _("this chat is too busy: wait a little"), "rate")
        await self.check_game(db, rt)
        known = self.enabled.get(user.id)  # this process's copy (set here, or told through Redis)
        if not (await self.is_enabled(db, user.id) if known is None else known):
            raise Problem(409, _("you turned chat off: turn it on to write"), "off")
        until = await moderation.muted_until(db, user.id)
        if until is not None and until > datetime.now(UTC):
            when = format_datetime(until, format="medium", tzinfo=UTC, locale=i18n.current())
            raise Problem(403, _("you are muted until {until} (UTC)").format(until=when), "muted")
        if room == "players":
            other = rt.game.player2_id if seat == 1 else rt.game.player1_id
            if other is not None and await social.blocked_either(db, user.id, other):
                raise Problem(403, _("you cannot chat with this player"), "blocked")
        since = datetime.now(UTC) - REPEAT_WINDOW
        recent = (
            await db.scalars(
                select(ChatMessage)
                .where(ChatMessage.game_id == rt.game.id, ChatMessage.user_id == user.id)
                .order_by(ChatMessage.id.desc())
                .limit(REPEAT_LOOKBACK)
            )
        ).all()
        key = _same_key(body)
        if any(m.created_at >= since and m.phrase == phrase and _same_key(m.text) == key for m in recent):
            raise Problem(409, _("you sent this message a moment ago"), "repeat")
        message = ChatMessage(
            game_id=rt.game.id, user_id=user.id, room=room, text=body, phrase=phrase, created_at=utcnow()
        )
        db.add(message)
        await db.commit()
        doc = message_doc(message, user.name)
        await self.deliver(rt.game.id, room, rt.game.status == "over", doc)
        self.hub.publish(
            CHANNEL, {"kind": "message", "game": rt.game.id, "over": rt.game.status == "over", "message": doc}
        )
        return doc

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
        conns = [
            c
            for c in list(self.hub.games.get(game_id, ()))
            if isinstance(c, Connection) and (c.seat is not None if room == "players" else c.seat is None or over)
        ]
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
        payload = {"type": "chat", "message": doc}
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
