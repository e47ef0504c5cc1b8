"""The server's side of the search workers: a pool with the bot pool's face
(games.botpool.BotPool: ``run``, ``choose``, ``hint``, ``judge``) whose jobs go to the Redis
streams instead of local processes (a server started with ``LOW_BOT_WORKERS=0``).

A job is one stream entry: its id, the function's name (jobs.FUNCTIONS), the arguments as JSON,
where to answer and when it was sent. The server process reads its own reply stream in one task
and hands each answer to the job waiting for it; an answer nobody waits for (a job given up, a
second answer) is dropped. A job not answered within its kind's time (jobs.EXPIRES_S) fails with
:class:`~lordsofwar.web.games.botpool.BotPoolError`, as a job whose local worker died: a bot's
turn is tried again later, never answered with a move the bot did not choose.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lordsofwar.web.games.botpool import TURN, BotPool, BotPoolError
from lordsofwar.web.tasks import stop_tasks
from lordsofwar.web.workers import jobs

if TYPE_CHECKING:
    from lordsofwar.web.settings import Settings

log = logging.getLogger("lordsofwar.web.bots")
T = TypeVar("T")

REPLY_TTL_S = 3600
"""A reply stream outlives its server by at most this (it is renewed while the server runs)."""


REPLY_BLOCK_MS = 2000
"""How long one read of the reply stream waits (below the client's socket timeout)."""


class WorkerJobError(RuntimeError):
    """The job's function raised in the worker (as it would have in a local process)."""


async def ensure_groups(redis: Any, prefix: str) -> None:
    """The job streams and their consumer group (made once; reading starts at the first entry)."""
    from redis.exceptions import ResponseError

    for key in jobs.streams(prefix):
        try:
            await redis.xgroup_create(key, jobs.GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise


class RemotePool(BotPool):
    """Jobs sent to the search workers over Redis Streams (see the module text); ``choose``,
    ``hint`` and ``judge`` are the bot pool's, over :meth:`run`."""

    QUEUED = 4
    """How many decisions of one analysis are queued at once (games.analysis)."""

    def __init__(self, redis_url: str, prefix: str, expires: dict[str, float] | None = None):
        super().__init__(self.QUEUED)
        self.redis_url = redis_url
        self.prefix = prefix
        self.server = secrets.token_hex(8)
        self.reply_key = jobs.reply_stream(prefix, self.server)
        self.expires = {**jobs.EXPIRES_S, **(expires or {})}
        self._redis: Any = None  # redis.asyncio.Redis, replies decoded to str
        self._reader: asyncio.Task[None] | None = None
        self._started: asyncio.Lock | None = None
        self._answers: dict[str, asyncio.Future[Any]] = {}
        self._closed = False

    async def _start(self) -> Any:
        if self._closed:
            raise BotPoolError("the bot pool is closed")
        if self._redis is not None:
            return self._redis
        if self._started is None:
            self._started = asyncio.Lock()
        async with self._started:
            if self._redis is None:
                from redis.asyncio import Redis

                redis = Redis.from_url(self.redis_url, decode_responses=True)
                await ensure_groups(redis, self.prefix)
                self._redis = redis
                self._reader = asyncio.get_running_loop().create_task(self._read_replies(redis))
        assert self._redis is not None
        return self._redis

    async def _read_replies(self, redis: Any) -> None:
        last = "0-0"  # the stream is this process's own: every entry in it is an answer to read
        renewed = 0.0
        while not self._closed:
            try:
                if time.monotonic() - renewed > REPLY_TTL_S / 4:
                    renewed = time.monotonic()
                    await redis.expire(self.reply_key, REPLY_TTL_S)
                got = await redis.xread({self.reply_key: last}, block=REPLY_BLOCK_MS, count=100)
                for _key, entries in got or []:
                    for entry_id, fields in entries:
                        last = entry_id
                        self._answer(fields)
                    await redis.xtrim(self.reply_key, minid=last)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading the search workers' answers failed; reading again in a second")
                await asyncio.sleep(1.0)

    def _answer(self, fields: dict[str, str]) -> None:
        waiting = self._answers.pop(fields.get("job", ""), None)
        if waiting is None or waiting.done():
            return  # given up, or answered already
        try:
            reply = json.loads(fields["reply"])
        except (KeyError, ValueError):
            waiting.set_exception(WorkerJobError("a worker's answer could not be read"))
            return
        if "error" in reply:
            waiting.set_exception(WorkerJobError(str(reply["error"])))
        else:
            waiting.set_result(reply["result"])

    async def run(self, fn: Callable[..., T], *args: Any, priority: int = TURN, game: int | None = None) -> T:
        """``fn(*args)`` in a search worker (``fn`` one of jobs.FUNCTIONS), on the stream of
        ``priority``'s kind."""
        name = jobs.NAMES.get(fn)
        if name is None:
            raise BotPoolError(f"{getattr(fn, '__name__', fn)!r} is not a search job")
        kind = jobs.KINDS[priority]
        redis = await self._start()
        job = secrets.token_hex(12)
        now = time.time()
        entry = {
            "id": job,
            "fn": name,
            "args": json.dumps(list(args), separators=(",", ":")),
            "reply": self.reply_key,
            "sent": f"{now:.3f}",
            "expires": f"{now + self.expires[kind]:.3f}",
        }
        if game is not None:
            entry["game"] = str(game)
        from redis.exceptions import RedisError

        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._answers[job] = answer
        try:
            await redis.xadd(jobs.stream(self.prefix, kind), entry, maxlen=jobs.STREAM_MAXLEN, approximate=True)
            return await asyncio.wait_for(answer, self.expires[kind])
        except TimeoutError:
            raise BotPoolError(f"no search worker answered the {kind} job within {self.expires[kind]:.0f} s") from None
        except (OSError, RedisError) as exc:
            raise BotPoolError(f"Redis cannot be reached: {exc}") from exc
        finally:
            self._answers.pop(job, None)

    def warm(self) -> None:
        """Nothing to start here: the workers run elsewhere."""

    def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
        for waiting in self._answers.values():
            if not waiting.done():
                waiting.set_exception(BotPoolError("the bot pool is closed"))

    async def aclose(self) -> None:
        self.close()
        await stop_tasks([self._reader])
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None


def remote_pool(settings: Settings) -> RemotePool:
    """The search workers' pool of a server started with ``LOW_BOT_WORKERS=0``."""
    if not settings.redis_url:
        raise ValueError(
            "LOW_BOT_WORKERS=0 sends every search to the search workers and needs LOW_REDIS_URL=redis://..."
        )
    return RemotePool(settings.redis_url, settings.redis_namespace())
