"""Who is online: a player counts as online while any of their live sockets to the site is open
(a game's socket, a bot API stream, the presence socket every signed-in page opens) and for
``presence_fade`` seconds after the last one closed, so that going from page to page never
blinks them out.

One process keeps a count of sockets per player. With Redis (``LOW_REDIS_URL``) every process
also writes each of its players into one sorted set, ``<prefix>:presence``, scored by the time
(Unix seconds) their presence runs out: now + fade while a socket is open, renewed every third of
the fade, and now + fade once more when the last socket closes. A player is online while their
score lies ahead; a process that dies stops renewing, and its players fade out on their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lordsofwar.web.tasks import stop_tasks

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("lordsofwar.web")
KEY = "presence"
"""The sorted set's name after the installation's prefix (``<prefix>:presence``)."""


@dataclass(eq=False)
class Listener:
    """A presence socket of this process: closed by :meth:`Presence.drop` when its session ends."""

    user_id: int
    session: str | None
    close: Callable[[], None] = field(repr=False)


class Presence:
    def __init__(self, fade: float, redis_url: str | None = None, prefix: str = "lordsofwar"):
        self.fade = fade
        self.redis_url = redis_url
        self.redis: Redis | None = None
        self.key = f"{prefix}:{KEY}"
        self.sockets: dict[int, int] = {}
        """Open sockets per player in this process."""
        self.until: dict[int, float] = {}
        """Without Redis: when each player with no open socket here fades out."""
        self._writes: asyncio.Queue[int] = asyncio.Queue()
        self.listeners: set[Listener] = set()
        self._tasks: list[asyncio.Task[None]] = []

    # --- sockets ------------------------------------------------------------------------------

    def opened(self, user_id: int | None) -> None:
        if user_id is None:
            return
        self.sockets[user_id] = self.sockets.get(user_id, 0) + 1
        self.until.pop(user_id, None)
        if self.sockets[user_id] == 1 and self.redis is not None:
            self._writes.put_nowait(user_id)

    def closed(self, user_id: int | None) -> None:
        if user_id is None or user_id not in self.sockets:
            return
        self.sockets[user_id] -= 1
        if self.sockets[user_id] <= 0:
            del self.sockets[user_id]
            self.until[user_id] = time.time() + self.fade
            if self.redis is not None:
                self._writes.put_nowait(user_id)

    def listen(self, listener: Listener) -> None:
        """A presence socket opened: it counts, and is closed when its session is signed out."""
        self.listeners.add(listener)
        self.opened(listener.user_id)

    def unlisten(self, listener: Listener) -> None:
        if listener in self.listeners:
            self.listeners.discard(listener)
            self.closed(listener.user_id)

    def drop(self, user_id: int, sessions: set[str] | None) -> None:
        """Close the presence sockets of a user signed out (of these sessions; None: of all), as
        the hub closes their game sockets: a banned or signed-out player stops counting."""
        for listener in list(self.listeners):
            if listener.user_id == user_id and (sessions is None or listener.session in sessions):
                listener.close()

    # --- questions ----------------------------------------------------------------------------

    def _local(self, now: float) -> set[int]:
        for uid in [u for u, t in self.until.items() if t <= now]:
            del self.until[uid]
        return set(self.sockets) | set(self.until)

    async def online(self, user_ids: Iterable[int]) -> set[int]:
        """Which of these players are online now."""
        ids = list(dict.fromkeys(user_ids))
        if not ids:
            return set()
        now = time.time()
        if self.redis is None:
            return self._local(now) & set(ids)
        scores = await self.redis.zmscore(self.key, ids)  # type: ignore[arg-type]
        return {uid for uid, score in zip(ids, scores, strict=True) if score is not None and score > now}

    async def count(self) -> int:
        """How many players are online now."""
        now = time.time()
        if self.redis is None:
            return len(self._local(now))
        return int(await self.redis.zcount(self.key, f"({now}", "+inf"))

    # --- several processes --------------------------------------------------------------------

    async def start(self) -> None:
        if not self.redis_url:
            return
        from redis.asyncio import Redis

        self.redis = Redis.from_url(self.redis_url)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._writer()), loop.create_task(self._renewer())]

    async def _mark(self, user_ids: list[int]) -> None:
        assert self.redis is not None
        if user_ids:
            expiry = time.time() + self.fade
            # gt: a process never moves a player's fading back (another may hold a socket of theirs)
            await self.redis.zadd(self.key, {str(uid): expiry for uid in user_ids}, gt=True)

    async def _writer(self) -> None:
        while True:
            first = await self._writes.get()
            batch = {first}
            while not self._writes.empty():
                batch.add(self._writes.get_nowait())
            try:
                await self._mark(sorted(batch))
            except Exception:
                log.exception("presence could not be written to Redis")

    async def _renewer(self) -> None:
        assert self.redis is not None
        while True:
            await asyncio.sleep(self.fade / 3)
            try:
                await self._mark(sorted(self.sockets))
                await self.redis.zremrangebyscore(self.key, "-inf", time.time())  # the faded
            except Exception:
                log.exception("presence could not be renewed in Redis")

    async def close(self) -> None:
        await stop_tasks(self._tasks)
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self._mark(sorted(self.sockets))  # the players here fade from now, as on a close
            await self.redis.aclose()
