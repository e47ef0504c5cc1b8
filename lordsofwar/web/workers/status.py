"""What the search workers are doing, read from Redis: jobs waiting per kind and the oldest
wait, jobs being searched, and each worker's heartbeat (``lordsofwar workers`` and the workers
page)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from lordsofwar.web.workers import jobs

GONE_S = 15.0
"""A worker whose last heartbeat is older than this is left out (and forgotten)."""


@dataclass
class Queue:
    kind: str
    waiting: int
    """Jobs no worker has taken yet."""
    running: int
    """Jobs taken and not yet answered (being searched, or left by a worker that died)."""
    oldest_wait_s: float | None
    """How long the oldest job not taken yet has waited."""


@dataclass
class WorkerInfo:
    name: str
    host: str
    pid: int
    done: int
    rate: float
    """Decisions per second over the last minute."""
    current: str
    current_s: float | None
    seen_s: float
    """Seconds since its last heartbeat."""
    up_s: float


@dataclass
class Status:
    prefix: str
    queues: list[Queue]
    workers: list[WorkerInfo]

    @property
    def rate(self) -> float:
        return sum(w.rate for w in self.workers)


def _ms_of(entry_id: str) -> int:
    return int(entry_id.split("-", 1)[0])


def read(redis: Any, prefix: str) -> Status:
    """The queues and the live workers (``redis``: a synchronous client with decoded replies)."""
    now = time.time()
    queues = []
    for kind in jobs.KINDS.values():
        key = jobs.stream(prefix, kind)
        groups = redis.xinfo_groups(key) if redis.exists(key) else []
        group = next((g for g in groups if g["name"] == jobs.GROUP), None)
        if group is None:
            waiting = int(redis.xlen(key)) if redis.exists(key) else 0
            first = redis.xrange(key, count=1) if waiting else []
            running = 0
        else:
            running = int(group["pending"])
            last = str(group["last-delivered-id"])
            first = redis.xrange(key, min=f"({last}", count=1)
            waiting = int(group.get("lag") or 0) if group.get("lag") is not None else int(redis.xlen(key)) - running
        oldest = max(0.0, now - _ms_of(first[0][0]) / 1000) if first else None
        queues.append(Queue(kind, max(0, waiting), running, oldest))
    workers = []
    names = redis.zrangebyscore(jobs.workers_key(prefix), now - GONE_S, "+inf")
    redis.zremrangebyscore(jobs.workers_key(prefix), "-inf", now - GONE_S)
    for name in names:
        doc = redis.hgetall(jobs.worker_key(prefix, name))
        if not doc:
            continue
        since = float(doc["current_since"]) if doc.get("current_since") else None
        workers.append(
            WorkerInfo(
                name=name,
                host=doc.get("host", ""),
                pid=int(doc.get("pid", "0")),
                done=int(doc.get("done", "0")),
                rate=float(doc.get("rate", "0")),
                current=doc.get("current", ""),
                current_s=None if since is None else max(0.0, now - since),
                seen_s=max(0.0, now - float(doc.get("seen", now))),
                up_s=max(0.0, now - float(doc.get("started", now))),
            )
        )
    workers.sort(key=lambda w: w.name)
    return Status(prefix, queues, workers)


def read_url(redis_url: str, prefix: str) -> Status:
    from redis import Redis

    redis = Redis.from_url(redis_url, decode_responses=True)
    try:
        return read(redis, prefix)
    finally:
        redis.close()


def lines(status: Status) -> list[str]:
    """The status as the command prints it."""
    out = [f"search workers of {status.prefix}: {len(status.workers)} running, {status.rate:.2f} decisions/s in all"]
    out.append(f"{'kind':<9} {'waiting':>7} {'running':>7} {'oldest wait':>12}")
    for q in status.queues:
        oldest = "-" if q.oldest_wait_s is None else f"{q.oldest_wait_s:.1f} s"
        out.append(f"{q.kind:<9} {q.waiting:>7} {q.running:>7} {oldest:>12}")
    if status.workers:
        out.append(f"{'worker':<28} {'jobs':>6} {'decisions/s':>11}  now")
        for w in status.workers:
            now = "idle" if not w.current else f"{w.current} ({w.current_s or 0:.1f} s)"
            out.append(f"{w.name:<28} {w.done:>6} {w.rate:>11.2f}  {now}")
    else:
        out.append("no worker has reported in the last 15 s")
    return out
