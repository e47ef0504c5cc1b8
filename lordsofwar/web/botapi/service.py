"""The bot API's rules: personal access tokens (made, listed, revoked; kept as SHA-256), bot
accounts, the per-token rate limit, and the two ndjson streams (a bot's events, a game's
messages).

A game stream is one more watcher of the game in the hub: it gets exactly the messages a player's
WebSocket gets (a ``state``, then an ``update`` per change, a fresh ``state`` when another process
changed the game), built for the bot's seat by the same code, so it never holds a hidden card.
The event streams are told by the hub when the bot's lobby changed (challenges to it, its games
starting and ending), in this process or another through Redis, and only then look at the
database, once for all the streams of an account (lordsofwar.web.botapi.streams). How many
streams a token and an account may hold open is capped (429 past it), across processes with Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from limits import RateLimitItem, RateLimitItemPerMinute
from sqlalchemy import delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lordsofwar.i18n import N_, _
from lordsofwar.web.accounts.limits import Guard
from lordsofwar.web.botapi.streams import EventNews, StreamSlots
from lordsofwar.web.games.hub import Hub, queue_message
from lordsofwar.web.games.service import GameService, state_doc
from lordsofwar.web.models import ApiToken, Game, User, utcnow
from lordsofwar.web.problem import Problem
from lordsofwar.web.settings import Settings

log = logging.getLogger("lordsofwar.web")

SCOPES = {
    "bot:play": N_(
        "play as a bot: the streams, moves, resigning, draws, accepting and declining challenges, "
        "turning the account into a bot account"
    ),
    "challenge:write": N_("challenge players"),
}
TOKEN_PREFIX = "low_"
TOKENS_PER_USER = 20
FEED_QUEUE = 256


class _End(Exception):
    """A stream's source has nothing more to send."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_json(row: ApiToken) -> dict[str, Any]:
    return {
        "id": row.id,
        "description": row.description,
        "scopes": list(row.scopes),
        "created_at": row.created_at,
        "last_used_at": row.last_used_at,
    }


async def create_token(db: AsyncSession, user: User, description: str, scopes: list[str]) -> tuple[ApiToken, str]:
    """A new token of ``user``'s with these scopes: the row (holding only the hash) and the token,
    which is never stored nor shown again."""
    count = len(list(await db.scalars(select(ApiToken.id).where(ApiToken.user_id == user.id))))
    if count >= TOKENS_PER_USER:
        raise Problem(409, _("you have {n} tokens; revoke one first").format(n=TOKENS_PER_USER))
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(
        user_id=user.id,
        token_hash=token_hash(token),
        description=description.strip()[:60] or "token",
        scopes=sorted(set(scopes)),
        created_at=utcnow(),
    )
    db.add(row)
    await db.commit()
    return row, token


async def list_tokens(db: AsyncSession, user: User) -> list[dict[str, Any]]:
    rows = await db.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id))
    return [token_json(r) for r in rows]


async def revoke_token(db: AsyncSession, user: User, token_id: int) -> None:
    done = await db.execute(delete(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user.id))
    await db.commit()
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise Problem(404, _("you have no token {token}").format(token=token_id))


@dataclass
class Bearer:
    """The user a bearer token stands for, and the token's id and scopes."""

    user: User
    token_id: int
    scopes: frozenset[str]


async def bearer_user(sessions: async_sessionmaker[AsyncSession], token: str) -> Bearer | None:
    """The user and token of ``Authorization: Bearer <token>``, or None (unknown or revoked)."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 100:
        return None
    async with sessions() as db:
        row = (
            await db.execute(
                select(User, ApiToken)
                .join(ApiToken, ApiToken.user_id == User.id)
                .where(ApiToken.token_hash == token_hash(token))
            )
        ).first()
        if row is None:
            return None
        user, tok = row
        now = utcnow()
        if tok.last_used_at is None or (now - tok.last_used_at).total_seconds() > 60:
            await db.execute(update(ApiToken).where(ApiToken.id == tok.id).values(last_used_at=now))
            await db.commit()
        return Bearer(user, tok.id, frozenset(tok.scopes))


async def upgrade(db: AsyncSession, user: User) -> User:
    """Turn a player's account into a bot account: only an account that has played no game."""
    fresh = await db.get(User, user.id)
    if fresh is None:
        raise Problem(404, _("your account no longer exists"))
    if fresh.bot is not None:
        raise Problem(409, _("a built-in bot's account cannot be changed"))
    played = await db.scalar(
        select(Game.id).where(or_(Game.player1_id == user.id, Game.player2_id == user.id)).limit(1)
    )
    if played is not None:
        raise Problem(
            409, _("an account that has played games cannot become a bot account: make a new account for the bot")
        )
    fresh.bot_account = True
    await db.commit()
    return fresh


class BotApi:
    """The bot API's long-lived parts in one server process: the rate limiter (the accounts'
    limiter, shared through Redis when configured) and the streams, ended at shutdown."""

    def __init__(
        self, settings: Settings, sessions: async_sessionmaker[AsyncSession], games: GameService, hub: Hub, guard: Guard
    ):
        self.settings = settings
        self.sessions = sessions
        self.games = games
        self.hub = hub
        self.guard = guard
        self.rate: RateLimitItem = RateLimitItemPerMinute(max(1, settings.bot_api_rate))
        self.stopping = asyncio.Event()
        self._restore: list[tuple[int, Any]] = []
        self.slots = StreamSlots(settings, hub)
        self.news = EventNews(settings, sessions, hub)

    async def hit(self, token_id: int) -> None:
        if not await self.guard.limiter.hit(self.rate, "bot-token", str(token_id)):
            raise Problem(
                429, _("too many requests with this token (at most {n} a minute); slow down").format(n=self.rate.amount)
            )

    def start(self) -> None:
        """Streams end at once when the server is told to stop (SIGTERM, SIGINT), not only when
        Uvicorn's grace period runs out: the server's own signal handlers are chained."""
        self.stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                previous = signal.getsignal(sig)
            except ValueError:
                continue
            if not callable(previous):  # no server's handler to chain (the default stays)
                continue

            def handler(signum: int, frame: Any, previous: Any = previous) -> None:
                loop.call_soon_threadsafe(self._end_streams)
                previous(signum, frame)

            try:
                signal.signal(sig, handler)
            except ValueError:  # not the main thread (a test client): shutdown() ends them
                return
            self._restore.append((sig, previous))

    def _end_streams(self) -> None:
        self.stopping.set()
        self.news.stop()

    def stop(self) -> None:
        self._end_streams()
        self.slots.stop()
        for sig, previous in self._restore:
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, previous)
        self._restore.clear()

    # --- streams ------------------------------------------------------------------------------------

    async def _lines(self, source: Callable[[float], Any]) -> AsyncIterator[str]:
        """Lines from ``source(timeout)`` (lines, None for silence, or raising _End to end),
        with a keep-alive empty line after each silence, until the server stops."""
        keepalive = max(0.05, self.settings.bot_stream_keepalive)
        stop = asyncio.ensure_future(self.stopping.wait())
        try:
            while not self.stopping.is_set():
                work = asyncio.ensure_future(source(keepalive))
                done, _pending = await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
                if work not in done:
                    work.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await work
                    return
                try:
                    lines = work.result()
                except _End:
                    return
                if lines is None:
                    yield "\n"
                    continue
                for line in lines:
                    yield line
        finally:
            stop.cancel()

    def game_stream(self, game_id: int, seat: int, user_id: int) -> tuple[Feed, AsyncIterator[str]]:
        feed = Feed(game_id, seat, None)  # no user: signing out of the site leaves the bot's streams

        async def source(timeout: float) -> list[str] | None:
            if feed.over or feed.closed:  # closed: its client did not read (it reconnects for a fresh state)
                raise _End
            try:
                text = await asyncio.wait_for(feed.queue.get(), timeout)
            except TimeoutError:
                return None
            if text is None:  # closed
                raise _End
            try:
                doc = json.loads(text)
                if doc.get("game", {}).get("status") == "over":
                    feed.over = True  # the last message: the stream ends after it
            except ValueError:
                pass
            return [text + "\n"]

        async def lines() -> AsyncIterator[str]:
            try:
                rt = await self.games.runtime(game_id)
                async with rt.lock:  # no change slips between the state and the first update
                    self.hub.join(feed)
                    feed.send({"type": "state", **state_doc(rt, seat)})
                async for line in self._lines(source):
                    yield line
            finally:
                self.hub.leave(feed)
                feed.closed = True

        return feed, lines()

    def event_stream(self, user: User) -> AsyncIterator[str]:
        keepalive = max(0.05, self.settings.bot_stream_keepalive)
        return self.news.lines(user, self.stopping, keepalive)


@dataclass(eq=False)
class Feed:
    """A game stream as the hub sees it: a watcher whose messages wait in a bounded queue."""

    game_id: int
    seat: int | None
    user_id: int | None
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(FEED_QUEUE))
    closed: bool = False
    over: bool = False

    def send(self, doc: dict[str, Any] | str) -> None:
        if not self.closed and not queue_message(self.queue, doc):
            log.warning("closing a bot's game stream of game %s: its client does not read", self.game_id)
            self.close(1013)

    def close(self, code: int) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)
