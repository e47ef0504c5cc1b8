"""``lordsofwar worker``: one search worker. It takes jobs from the installation's job streams
(jobs.streams: bots' turns first, then hints, then analysis decisions), runs each on the core and
answers on the reply stream of the server that sent it.

Nothing is lost: a job stays pending in the consumer group until its answer is written; the
worker renews its claim on it every :data:`HEARTBEAT_S` while it searches, so a job whose worker
died (killed, its machine gone) is idle after ``claim_s`` and the next worker that looks takes it
over (XAUTOCLAIM). Nothing is answered twice: the answer and the job's done mark are written in
one step (jobs.FINISH), and a worker that finds the mark already set only acknowledges the job.
A job older than its kind's time (jobs.EXPIRES_S: its server has given up on it) is dropped
unsearched.

The worker's heartbeat (every :data:`HEARTBEAT_S`, a hash that expires when it stops) says where
it runs, what it runs now, how many jobs it has done and its decisions per second over the last
minute: ``lordsofwar workers`` and the workers page read it (workers.status).

SIGTERM or Ctrl+C: the search under way is finished and answered, then the worker leaves; a
second signal leaves at once (the job is taken over by another worker after ``claim_s``).
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from lordsofwar.web.workers import jobs

log = logging.getLogger("lordsofwar.worker")

HEARTBEAT_S = 2.0
"""How often a worker reports itself and renews its claim on the job it runs."""

IDLE_BLOCK_MS = 1000
"""How long an idle worker waits for a new entry before it looks for abandoned jobs again."""

RATE_WINDOW_S = 60.0
"""Decisions per second are counted over this window."""

STALE_CONSUMER_MS = 600_000
"""A consumer of the group with no pending job and idle this long (a worker gone) is removed."""


@dataclass
class Current:
    kind: str
    fn: str
    game: str
    entry: str
    key: str
    since: float


@dataclass
class Tally:
    done: int = 0
    dropped: int = 0
    taken_over: int = 0
    finished: collections.deque[float] = field(default_factory=collections.deque)

    def rate(self, started: float, now: float) -> float:
        while self.finished and self.finished[0] < now - RATE_WINDOW_S:
            self.finished.popleft()
        window = min(RATE_WINDOW_S, max(1.0, now - started))
        return len(self.finished) / window


def _job_args(fn: str, args: list[Any]) -> list[Any]:
    """The arguments as the function takes them: JSON has only string keys, the known cards are
    keyed by player number."""
    if fn == "choose":
        args[3] = {int(p): cards for p, cards in args[3].items()}
    elif fn == "hint":
        args[1] = {int(p): cards for p, cards in args[1].items()}
    return args


def _done_ttl(fields: dict[str, str]) -> int:
    """How long a job's done mark must live: until no other worker can still start the job (it
    drops an expired one), and a search's length more."""
    with contextlib.suppress(ValueError):
        return max(60, int(float(fields.get("expires", "0")) - time.time()) + 60)
    return 60


class Worker:
    """One search worker (see the module text)."""

    def __init__(self, redis_url: str, prefix: str, claim_s: float = 10.0, name: str | None = None):
        from redis import Redis

        self.redis_url = redis_url
        self.prefix = prefix
        self.claim_ms = int(claim_s * 1000)
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.name = name or f"{self.host}:{self.pid}"
        self.redis: Any = Redis.from_url(redis_url, decode_responses=True)  # replies as str (untyped)
        self.keys = jobs.streams(prefix)
        self.kinds = dict(zip(self.keys, jobs.KINDS.values(), strict=True))
        self.started = time.time()
        self.tally = Tally()
        self.current: Current | None = None
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._finish = self.redis.register_script(jobs.FINISH)

    # --- set-up -----------------------------------------------------------------------------------

    def prepare(self) -> None:
        """The streams and their group, and the group's consumers that are long gone removed."""
        from redis.exceptions import ResponseError

        for key in self.keys:
            try:
                self.redis.xgroup_create(key, jobs.GROUP, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
            for consumer in self.redis.xinfo_consumers(key, jobs.GROUP):
                if int(consumer["pending"]) == 0 and int(consumer["idle"]) > STALE_CONSUMER_MS:
                    self.redis.xgroup_delconsumer(key, jobs.GROUP, consumer["name"])

    # --- taking a job -----------------------------------------------------------------------------

    def _last_ids(self) -> dict[str, str]:
        with self.redis.pipeline(transaction=False) as pipe:
            for key in self.keys:
                pipe.xrevrange(key, count=1)
            found = pipe.execute()
        return {key: (got[0][0] if got else "0-0") for key, got in zip(self.keys, found, strict=True)}

    def take(self, block: bool = True) -> tuple[str, str, dict[str, str], bool] | None:
        """The most urgent job: per stream in priority order, one abandoned by a dead worker, else
        a new one. ``(stream, entry id, fields, taken over)``; None when none came within
        :data:`IDLE_BLOCK_MS` (or at once without ``block``)."""
        seen = self._last_ids() if block else {}
        for key in self.keys:
            _next, claimed, *_deleted = self.redis.xautoclaim(
                key, jobs.GROUP, self.name, min_idle_time=self.claim_ms, start_id="0-0", count=1
            )
            if claimed:
                entry_id, fields = claimed[0]
                return key, entry_id, fields, True
            got = self.redis.xreadgroup(jobs.GROUP, self.name, {key: ">"}, count=1)
            if got and got[0][1]:
                entry_id, fields = got[0][1][0]
                return key, entry_id, fields, False
        if block and not self.stopping.is_set():
            self.redis.xread(seen, count=1, block=IDLE_BLOCK_MS)  # woken by any new job
        return None

    # --- running it -------------------------------------------------------------------------------

    def step(self, block: bool = True) -> bool:
        """Take one job and run it; False when there was none."""
        taken = self.take(block)
        if taken is None:
            return False
        key, entry_id, fields, taken_over = taken
        kind = self.kinds[key]
        job = fields.get("id", "")
        if taken_over:
            self.tally.taken_over += 1
            log.info("took over %s job %s (its worker stopped answering)", kind, job)
        if (
            not job
            or float(fields.get("expires", "0")) < time.time()
            or self.redis.exists(jobs.done_key(self.prefix, job))
        ):
            self._drop(key, entry_id)
            return True
        fn = fields.get("fn", "")
        with self._lock:
            self.current = Current(kind, fn, fields.get("game", ""), entry_id, key, time.time())
        self._beat()
        try:
            function = jobs.FUNCTIONS[fn]
            result = function(*_job_args(fn, json.loads(fields["args"])))
            reply = {"result": result}
        except Exception as exc:  # the job's own failure: answered, as a local process would raise it
            log.exception("%s job %s failed", kind, job)
            reply = {"error": f"{type(exc).__name__}: {exc}"[:500]}
        finally:
            with self._lock:
                self.current = None
        answered = self._finish(
            keys=[jobs.done_key(self.prefix, job), fields.get("reply", ""), key],
            args=[job, entry_id, jobs.GROUP, jobs.encode(reply), _done_ttl(fields), 3600],
        )
        if answered:
            self.tally.done += 1
            self.tally.finished.append(time.time())
        else:
            self.tally.dropped += 1
            log.info("%s job %s was answered by another worker first", kind, job)
        self._beat()
        return True

    def _drop(self, key: str, entry_id: str) -> None:
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.xack(key, jobs.GROUP, entry_id)
            pipe.xdel(key, entry_id)
            pipe.execute()
        self.tally.dropped += 1

    # --- heartbeat --------------------------------------------------------------------------------

    def _beat(self, redis: Any = None) -> None:
        redis = redis or self.redis
        now = time.time()
        with self._lock:
            current = self.current
        doc = {
            "name": self.name,
            "host": self.host,
            "pid": str(self.pid),
            "started": f"{self.started:.3f}",
            "seen": f"{now:.3f}",
            "done": str(self.tally.done),
            "dropped": str(self.tally.dropped),
            "taken_over": str(self.tally.taken_over),
            "rate": f"{self.tally.rate(self.started, now):.3f}",
            "current": ""
            if current is None
            else f"{current.kind} {current.fn}" + (f" game {current.game}" if current.game else ""),
            "current_since": "" if current is None else f"{current.since:.3f}",
        }
        key = jobs.worker_key(self.prefix, self.name)
        with redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, mapping=doc)
            pipe.expire(key, int(HEARTBEAT_S * 5))
            pipe.zadd(jobs.workers_key(self.prefix), {self.name: now})
            if current is not None:  # still ours: its idle time starts again
                pipe.xclaim(current.key, jobs.GROUP, self.name, 0, [current.entry], justid=True)
            pipe.execute()

    def _heartbeat(self) -> None:
        from redis import Redis

        redis: Any = Redis.from_url(self.redis_url, decode_responses=True)
        while not self.stopping.wait(HEARTBEAT_S):
            try:
                self._beat(redis)
            except Exception:
                log.exception("the heartbeat could not be written")
        redis.close()

    def _leave(self) -> None:
        with contextlib.suppress(Exception), self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(jobs.worker_key(self.prefix, self.name))
            pipe.zrem(jobs.workers_key(self.prefix), self.name)
            pipe.execute()

    # --- the loop ---------------------------------------------------------------------------------

    def run(self, max_jobs: int | None = None) -> None:
        """Take and run jobs until stopped (or ``max_jobs`` are done)."""
        self.prepare()
        import lordsofwar.bots.search  # noqa: F401  (the core loaded before the first job)

        self._beat()
        beat = threading.Thread(target=self._heartbeat, name="heartbeat", daemon=True)
        beat.start()
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        try:
            while not self.stopping.is_set():
                try:
                    self.step()
                except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                    log.warning("Redis cannot be reached (%s); trying again in a second", exc)
                    time.sleep(1.0)
                if max_jobs is not None and self.tally.done >= max_jobs:
                    break
        finally:
            self.stopping.set()
            beat.join(timeout=HEARTBEAT_S + 1)
            self._leave()
            self.redis.close()

    def stop_on_signals(self) -> None:
        """SIGTERM and SIGINT: finish the job under way, then leave; a second one: leave now."""

        def handle(signum: int, _frame: Any) -> None:
            if self.stopping.is_set():
                raise SystemExit(128 + signum)
            log.info("stopping after the job under way")
            self.stopping.set()

        signal.signal(signal.SIGTERM, handle)
        signal.signal(signal.SIGINT, handle)
