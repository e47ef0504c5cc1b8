"""Live updates: the WebSocket connections of each game, and (with Redis) across processes.

After every committed change the game service calls :meth:`Hub.changed`; each connection gets
an ``update`` built for its own seat (players their view, spectators a view with both hidden
hands hidden). With ``LOW_REDIS_URL`` set, every process also publishes the change on Redis;
the other processes drop their cached copy of that game, reload it from the database and send
their own connections a fresh ``state``.

The hub also tells which players' lobby changed (a challenge made or answered, a game started
or ended: :meth:`Hub.tell_users`) to the listeners of every process, the bot API's event
streams: they look at the database only then, never on a timer per stream.

Every Redis channel is named with the installation's prefix (``LOW_REDIS_PREFIX``, by default a
digest of the database URL: Settings.redis_namespace), so two sites on one Redis never hear each
other.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from starlette.websockets import WebSocket, WebSocketState

from lordsofwar.rules.events import LogEntry
from lordsofwar.web.games.runtime import Runtime
from lordsofwar.web.games.service import GameService, state_doc, update_doc
from lordsofwar.web.tasks import stop_tasks

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from lordsofwar.web.social.presence import Presence

log = logging.getLogger("lordsofwar.web")
CHANNEL = "games"
"""The games channel's name after the installation's prefix (``<prefix>:games``)."""
USERS_CHANNEL = "users"
"""The channel of players whose lobby changed (``<prefix>:users``): a list of user ids, or null for all."""
SESSIONS_CHANNEL = "sessions"
"""The channel of sessions signed out (``<prefix>:sessions``): a user id and token hashes."""
UserListener = Callable[[list[int] | None], None]


QUEUE_LIMIT = 256
SEND_TIMEOUT = 10.0


def queue_message(queue: asyncio.Queue[Any], doc: dict[str, Any] | str) -> bool:
    """Queue a message (a document as compact JSON) for a watcher's sender; False when the queue
    is full: its client does not read, and the watcher should close."""
    text = doc if isinstance(doc, str) else json.dumps(doc, separators=(",", ":"))
    try:
        queue.put_nowait(text)
    except asyncio.QueueFull:
        return False
    return True


class Watcher(Protocol):
    """What the hub sends a game's messages to: a WebSocket (:class:`Connection`) or a bot API
    game stream (lordsofwar.web.botapi)."""

    game_id: int
    seat: int | None
    user_id: int | None

    def send(self, doc: dict[str, Any] | str) -> None: ...

    def close(self, code: int) -> None: ...


@dataclass(eq=False)
class Connection:
    """One WebSocket: messages for it wait in a bounded queue that its own task sends, so a
    client that stops reading slows nobody else; when its queue overflows or a send hangs for
    SEND_TIMEOUT seconds, the socket is closed (the client reconnects and gets a fresh state)."""

    ws: WebSocket
    game_id: int
    seat: int | None
    user_id: int | None
    session: str | None = None
    """The hash of the session token the socket was opened with (None: signed out)."""
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    task: asyncio.Task[None] | None = None
    closed: bool = False
    last_sync: float = 0.0

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._sender())

    def send(self, doc: dict[str, Any] | str) -> None:
        """Queue a message; never waits."""
        if not self.closed and not queue_message(self.queue, doc):
            log.warning("closing a socket of game %s: its client does not read", self.game_id)
            self.close(1013)

    async def _sender(self) -> None:
        try:
            # not `while True`: on Python 3.11 a cancel that lands as a send completes can be
            # swallowed by wait_for, and the loop would wait on the queue for ever; stop() has
            # set ``closed`` before cancelling
            while not self.closed:
                text = await self.queue.get()
                if self.ws.client_state != WebSocketState.CONNECTED:
                    break
                await asyncio.wait_for(self.ws.send_text(text), SEND_TIMEOUT)
        except asyncio.CancelledError:
            raise
        except Exception:  # a send failed or hung: the client will reconnect
            self.close(1011)

    def close(self, code: int) -> None:
        if self.closed:
            return
        self.closed = True

        async def _close() -> None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(code), 2)

        asyncio.get_running_loop().create_task(_close())

    async def stop(self) -> None:
        self.closed = True
        await stop_tasks([self.task])


class Hub:
    def __init__(self, service: GameService, redis_url: str | None = None, prefix: str | None = None):
        self.service = service
        self.games: dict[int, set[Watcher]] = {}
        self.redis_url = redis_url
        self.redis: Redis | None = None
        self.origin = f"{os.getpid()}-{id(self)}"
        self.prefix = prefix if prefix is not None else service.settings.redis_namespace()
        self.channel = f"{self.prefix}:{CHANNEL}"
        self.users_channel = f"{self.prefix}:{USERS_CHANNEL}"
        self.sessions_channel = f"{self.prefix}:{SESSIONS_CHANNEL}"
        self.user_listeners: list[UserListener] = []
        self.extra: dict[str, Callable[[dict[str, Any]], Awaitable[None]]] = {}
        """Further channels (full name: handler of another process's document), e.g. the chat's."""
        self._listener: asyncio.Task[None] | None = None
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._publishing: asyncio.Task[None] | None = None
        self.presence: Presence | None = None
        """Told of every socket a player opens and closes here (lordsofwar.web.social.presence)."""
        service.listeners.append(self.changed)
        service.watched = lambda game_id: game_id in self.games

    def join(self, conn: Watcher) -> None:
        conns = self.games.setdefault(conn.game_id, set())
        if conn not in conns and self.presence is not None:
            self.presence.opened(conn.user_id)
        conns.add(conn)

    def leave(self, conn: Watcher) -> None:
        conns = self.games.get(conn.game_id)
        if conns is not None:
            if conn in conns and self.presence is not None:
                self.presence.closed(conn.user_id)
            conns.discard(conn)
            if not conns:
                del self.games[conn.game_id]

    def drop_user(self, user_id: int) -> None:
        """Close the sockets a user opened (on sign-out): they act with the old session no more."""
        if self.presence is not None:
            self.presence.drop(user_id, None)
        for conns in list(self.games.values()):
            for conn in list(conns):
                if conn.user_id == user_id:
                    conn.close(4401)

    def drop_sessions(self, user_id: int, hashes: list[str]) -> None:
        """Close the sockets opened with these sessions of the user (signed out elsewhere, or
        by a password change), in this process now and in the others through Redis."""
        if not hashes:
            return
        self._drop_here(user_id, set(hashes))
        if self.redis is not None:
            doc = {"user": user_id, "sessions": sorted(hashes), "origin": self.origin}
            self._outbox.put_nowait((self.sessions_channel, json.dumps(doc)))

    def _drop_here(self, user_id: int, hashes: set[str]) -> None:
        if self.presence is not None:
            self.presence.drop(user_id, hashes)
        for conns in list(self.games.values()):
            for conn in list(conns):
                if conn.user_id == user_id and getattr(conn, "session", None) in hashes:
                    conn.close(4401)

    def subscribe(self, name: str, handler: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        """Hear channel ``name`` (after the prefix): ``handler`` gets each document another
        process :meth:`publish` es on it. Called before :meth:`start`."""
        self.extra[f"{self.prefix}:{name}"] = handler

    def publish(self, name: str, doc: dict[str, Any]) -> None:
        """Send a document to the other processes' handlers of channel ``name`` (nothing
        without Redis); never waits."""
        if self.redis is not None:
            self._outbox.put_nowait((f"{self.prefix}:{name}", json.dumps({**doc, "origin": self.origin})))

    def watchers(self, game_id: int) -> int:
        return len(self.games.get(game_id, ()))

    async def changed(self, rt: Runtime, entries: list[LogEntry]) -> None:
        """Called by the game service, under the game's lock, after each committed change: it
        only queues messages (in version order) and never waits for a client."""
        self.push_update(rt, entries)
        if self.redis is not None:
            action = entries[0]["action"] if len(entries) == 1 else None  # lets the others apply it
            doc = {"game": rt.game.id, "version": rt.game.version, "origin": self.origin, "action": action}
            self._outbox.put_nowait((self.channel, json.dumps(doc)))
        if rt.game.status != "running":  # the game ended: its players' lobbies changed
            self.tell_users([uid for uid in (rt.game.player1_id, rt.game.player2_id) if uid is not None])

    def tell_users(self, user_ids: list[int] | None) -> None:
        """The lobby of these players (None: of every player) changed: tell this process's user
        listeners now, and the other processes' through Redis. Never waits."""
        ids = None if user_ids is None else sorted(set(user_ids))
        if ids == []:
            return
        self._tell_here(ids)
        if self.redis is not None:
            self._outbox.put_nowait((self.users_channel, json.dumps({"users": ids, "origin": self.origin})))

    def _tell_here(self, ids: list[int] | None) -> None:
        for listener in self.user_listeners:
            try:
                listener(ids)
            except Exception:
                log.exception("a user listener failed")

    async def _publisher(self) -> None:
        """Publishes the changes of this process on Redis, all waiting ones in one pipeline."""
        assert self.redis is not None
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 500:
                batch.append(self._outbox.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, message in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
            except Exception:
                log.exception("publishing %s game changes on Redis failed", len(batch))

    def push_update(self, rt: Runtime, entries: list[LogEntry]) -> None:
        self._push(rt, lambda seat: update_doc(rt, seat, entries))

    def push_state(self, rt: Runtime) -> None:
        self._push(rt, lambda seat: {"type": "state", **state_doc(rt, seat)})

    def _push(self, rt: Runtime, doc_for: Callable[[int | None], dict[str, Any]]) -> None:
        """Queue a message for every socket of the game, built once per seat (1, 2, spectators)."""
        texts: dict[int | None, str] = {}
        for conn in list(self.games.get(rt.game.id, ())):
            if conn.seat not in texts:
                texts[conn.seat] = json.dumps(doc_for(conn.seat), separators=(",", ":"))
            conn.send(texts[conn.seat])

    # --- several processes --------------------------------------------------------------------

    async def start(self) -> None:
        if not self.redis_url:
            return
        from redis.asyncio import Redis

        self.redis = Redis.from_url(self.redis_url)
        await self.redis.ping()
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(self.channel, self.users_channel, self.sessions_channel, *self.extra)  # subscribed before the server takes its first request
        self._listener = asyncio.get_running_loop().create_task(self._listen(pubsub))
        self._publishing = asyncio.get_running_loop().create_task(self._publisher())

    async def _listen(self, pubsub: Any) -> None:
        try:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    doc = json.loads(message["data"])
                    if doc.get("origin") == self.origin:
                        continue
                    channel = message.get("channel")
                    channel = channel.decode() if isinstance(channel, bytes) else channel
                    if channel in self.extra:
                        await self.extra[channel](doc)
                        continue
                    if channel == self.sessions_channel:
                        self._drop_here(int(doc["user"]), {str(h) for h in doc["sessions"]})
                        continue
                    if channel == self.users_channel:
                        users = doc.get("users")
                        self._tell_here(None if users is None else [int(u) for u in users])
                        continue
                    game_id = int(doc["game"])
                    cached = self.service.runtimes.get(game_id)
                    if cached is not None and cached.game.version >= int(doc["version"]):
                        continue
                    if cached is None and game_id not in self.games:
                        continue
                    if cached is not None and isinstance(doc.get("action"), str):
                        entry = await self.service.apply_remote(game_id, int(doc["version"]), doc["action"])
                        if entry is not None:  # applied to the cached position: a plain update
                            self.push_update(cached, [entry])
                            continue
                    rt = await self.service.reload(game_id)
                    self.push_state(rt)
                except Exception:
                    log.exception("a game change from Redis could not be applied")
        finally:
            with contextlib.suppress(Exception):
                await pubsub.unsubscribe(self.channel, self.users_channel, self.sessions_channel, *self.extra)

    async def close(self) -> None:
        await stop_tasks([self._listener, self._publishing])
        if self.redis is not None:
            await self.redis.aclose()
