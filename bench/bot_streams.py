"""Bot API event streams benchmark: what many open ``GET /api/bot/stream/event`` streams cost a
real server (docs/performance.md, docs/bot-api.md).

Starts ``lordsofwar serve`` on a free port of 127.0.0.1 with a fresh database (SQLite, or with
``--database-url postgresql://...`` a PostgreSQL database made for the run and dropped after),
makes two bot accounts with ``--tokens`` tokens each and two players with a running game, then:

1. *before*: the server's resident memory, its CPU use while idle (``--idle`` seconds) and the
   latency of ``GET /api/games/{id}`` (``--requests`` requests, one at a time);
2. opens ``--streams`` event streams spread evenly over the two accounts' tokens (``--open-batch``
   at a time, for at most 150 s) and reads them; the answers are counted (200, 429, 0: none in
   time or never tried), and the server's CPU time for opening them all (refusals included) is
   reported;
3. *during*, after ``--settle`` seconds: the same CPU, latency and memory figures, the server's
   database connections that are busy (PostgreSQL: ``pg_stat_activity``, sampled), and the
   streams that ended or failed meanwhile;
4. closes every stream and, after ``--settle`` seconds, *after*: memory and CPU again.

The server log is searched for pool errors (``QueuePool limit``, a pool's timeout). Everything is
bounded: at most 5,000 streams, 2,000 requests or 30 s of requests per phase, 120 s per wait. Only 127.0.0.1 is
contacted.

    python bench/bot_streams.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/bot_streams.py --cap 1000 ...     # the stream cap raised: the push design alone
    python bench/bot_streams.py --server-pythonpath /tmp/base ...   # another checkout's server

``--cap N`` sets both caps (per token and per account) to N; without it the server's defaults
hold. ``--server-pythonpath DIR`` runs the server from the source tree DIR (its compiled core
copied into DIR/lordsofwar/core): the editable install's import hook is left out for the server
only, so an earlier version can be measured with the same benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import (  # noqa: E402 - bench/server.py
    PASSWORD,
    Server,
    free_port,
    fresh_database,
    latency_summary,
)

MAX_STREAMS = 5000
MAX_REQUESTS = 2000
MAX_WAIT_S = 120.0
LATENCY_BUDGET_S = 30.0
OPEN_BUDGET_S = 150.0
POOL_ERRORS = re.compile(r"QueuePool limit|TimeoutError|pool.*timed out|too many clients", re.I)
SITE_HOOK = """import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
"""


class Streams:
    """Event streams held open by this process, each read to the end in its own task."""

    def __init__(self, base: str):
        self.base = base
        self.client = httpx.AsyncClient(
            base_url=base, timeout=httpx.Timeout(30.0, read=None), limits=httpx.Limits(max_connections=None)
        )
        self.tasks: list[asyncio.Task[None]] = []
        self.statuses: dict[int, int] = {}
        self.opened = 0
        self.ended = 0
        self.failed = 0
        self.lines = 0

    async def _one(self, token: str, ready: asyncio.Future[int]) -> None:
        try:
            async with self.client.stream(
                "GET", "/api/bot/stream/event", headers={"Authorization": f"Bearer {token}"}
            ) as r:
                if not ready.done():
                    ready.set_result(r.status_code)
                if r.status_code != 200:
                    await r.aread()
                    return
                self.opened += 1
                async for _line in r.aiter_lines():
                    self.lines += 1
                self.ended += 1  # the server ended it
        except asyncio.CancelledError:
            raise
        except Exception:
            self.failed += 1
            if not ready.done():
                ready.set_result(-1)

    async def open(self, tokens: list[str], n: int, batch: int) -> None:
        """Open ``n`` streams, ``batch`` at a time; past OPEN_BUDGET_S no more are tried and the
        unanswered ones are counted as ``no answer`` (a server that cannot keep up)."""
        deadline = time.monotonic() + OPEN_BUDGET_S
        for start in range(0, n, batch):
            readies = []
            for i in range(start, min(n, start + batch)):
                ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
                self.tasks.append(asyncio.create_task(self._one(tokens[i % len(tokens)], ready)))
                readies.append(ready)
            left = deadline - time.monotonic()
            if left > 0:
                await asyncio.wait(readies, timeout=left)
            for ready in readies:
                code = ready.result() if ready.done() else 0
                self.statuses[code] = self.statuses.get(code, 0) + 1
            if time.monotonic() >= deadline:
                self.statuses[0] = self.statuses.get(0, 0) + max(0, n - start - batch)
                break

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.client.aclose()


async def signup(http: httpx.AsyncClient, name: str) -> str:
    csrf = (await http.get("/api/session")).json()["csrf"]
    r = await http.post("/api/signup", json={"name": name, "password": PASSWORD}, headers={"X-CSRF-Token": csrf})
    if r.status_code != 201:
        raise RuntimeError(f"sign-up of {name}: {r.status_code} {r.text[:200]}")
    return str(r.json()["csrf"])


async def setup(base: str, tokens_each: int) -> tuple[list[str], httpx.AsyncClient, int]:
    """Two bot accounts' tokens (alternating accounts), a player's client and a running game of theirs."""
    tokens: list[list[str]] = []
    for name in ("streambot1", "streambot2"):
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            csrf = await signup(http, name)
            mine = []
            for i in range(tokens_each):
                r = await http.post(
                    "/api/tokens",
                    json={"description": f"stream {i}", "scopes": ["bot:play"]},
                    headers={"X-CSRF-Token": csrf},
                )
                if r.status_code != 201:
                    raise RuntimeError(f"token: {r.status_code} {r.text[:200]}")
                mine.append(str(r.json()["token"]))
            r = await http.post("/api/bot/account/upgrade", headers={"Authorization": f"Bearer {mine[0]}"})
            if r.status_code != 200:
                raise RuntimeError(f"upgrade: {r.status_code} {r.text[:200]}")
            tokens.append(mine)
    mixed = [t for pair in zip(*tokens, strict=True) for t in pair]
    alice = httpx.AsyncClient(base_url=base, timeout=30)
    csrf_a = await signup(alice, "streamhuman1")
    async with httpx.AsyncClient(base_url=base, timeout=30) as bob:
        csrf_b = await signup(bob, "streamhuman2")
        r = await alice.post(
            "/api/invitations",
            json={"opponent": "streamhuman2", "options": {"mode": "turn"}},
            headers={"X-CSRF-Token": csrf_a},
        )
        if r.status_code != 201:
            raise RuntimeError(f"invitation: {r.status_code} {r.text[:200]}")
        inv = r.json()["invitation"]
        r = await bob.post(f"/api/invitations/{inv}/accept", json={}, headers={"X-CSRF-Token": csrf_b})
        if r.status_code != 200:
            raise RuntimeError(f"accept: {r.status_code} {r.text[:200]}")
        game = int(r.json()["game"])
    return mixed, alice, game


async def latencies(http: httpx.AsyncClient, game: int, n: int) -> dict[str, Any]:
    times: list[float] = []
    errors = 0
    deadline = time.monotonic() + LATENCY_BUDGET_S
    for _ in range(n):
        if time.monotonic() > deadline:  # a slow server: fewer requests, and the count says so
            break
        start = time.perf_counter()
        r = await http.get(f"/api/games/{game}")
        times.append(time.perf_counter() - start)
        if r.status_code != 200:
            errors += 1
    summary = latency_summary(times)
    return {"p50_ms": summary.get("p50"), "p99_ms": summary.get("p99"), "requests": len(times), "errors": errors}


async def idle_cpu(server: Server, seconds: float) -> float | None:
    """The server's CPU use (its bot workers included) over ``seconds`` of waiting, in % of one core."""
    before = server.cpu_s()
    await asyncio.sleep(seconds)
    after = server.cpu_s()
    if before is None or after is None:
        return None
    return round(100 * (after - before) / seconds, 1)


def busy_connections(database_url: str) -> tuple[int, int] | None:
    """(connections of the server to its database, of them not idle) on PostgreSQL, else None."""
    if not database_url.startswith("postgres"):
        return None
    import psycopg

    name = database_url.rsplit("/", 1)[1].split("?")[0]
    admin = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        rows = conn.execute(
            "SELECT state FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (name,)
        ).fetchall()
    return len(rows), sum(1 for (state,) in rows if state not in ("idle", None))


async def sample_connections(database_url: str, seconds: float) -> dict[str, int] | None:
    samples = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = await asyncio.to_thread(busy_connections, database_url)
        if found is None:
            return None
        samples.append(found)
        await asyncio.sleep(0.1)
    return {
        "connections_max": max(s[0] for s in samples),
        "busy_max": max(s[1] for s in samples),
        "busy_mean_x10": round(10 * sum(s[1] for s in samples) / len(samples)),
    }


def note(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def phase(rss: float | None, cpu: float | None, lat: dict[str, Any]) -> dict[str, Any]:
    return {"rss_mb": None if rss is None else round(rss, 1), "idle_cpu_pct": cpu, **lat}


async def run(args: argparse.Namespace, server: Server, database_url: str) -> dict[str, Any]:
    tokens, human, game = await setup(server.base, args.tokens)
    await latencies(human, game, 20)  # warm
    result: dict[str, Any] = {"streams": args.streams, "tokens": len(tokens), "cap": args.cap}
    note("set up; measuring before")
    result["before"] = phase(
        server.rss_mb(), await idle_cpu(server, args.idle), await latencies(human, game, args.requests)
    )
    streams = Streams(server.base)
    cpu0, wall0 = server.cpu_s(), time.perf_counter()
    try:
        note("opening the streams")
        await streams.open(tokens, args.streams, args.open_batch)
        note(f"opened: {streams.statuses}")
        cpu1 = server.cpu_s()
        result["open"] = {
            "seconds": round(time.perf_counter() - wall0, 2),
            "server_cpu_s": None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2),
            "answers": {str(k): v for k, v in sorted(streams.statuses.items())},
        }
        await asyncio.sleep(args.settle)
        conns_task = asyncio.create_task(sample_connections(database_url, args.idle))
        cpu = await idle_cpu(server, args.idle)
        conns = await conns_task
        lat = await latencies(human, game, args.requests)
        during = phase(server.rss_mb(), cpu, lat)
        during.update({"open_streams": streams.opened - streams.ended - streams.failed, "db": conns})
        during.update({"streams_ended": streams.ended, "streams_failed": streams.failed})
        result["during"] = during
        note("measured during; closing")
    finally:
        await streams.close()
    await asyncio.sleep(args.settle)
    result["after"] = phase(
        server.rss_mb(), await idle_cpu(server, args.idle), await latencies(human, game, args.requests)
    )
    for extra in range(1, args.rounds):  # the same streams again: does memory keep growing?
        streams = Streams(server.base)
        try:
            await streams.open(tokens, args.streams, args.open_batch)
            await asyncio.sleep(args.settle)
            during_rss = server.rss_mb()
        finally:
            await streams.close()
        await asyncio.sleep(args.settle)
        result.setdefault("rounds", []).append(
            {"round": extra + 1, "during_rss_mb": during_rss, "after_rss_mb": server.rss_mb()}
        )
        note(f"round {extra + 1}: {result['rounds'][-1]}")
    await human.aclose()
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--streams", type=int, default=1000)
    p.add_argument("--tokens", type=int, default=20, help="tokens per account (at most 20)")
    p.add_argument("--cap", type=int, default=None, help="set both stream caps of the server to this")
    p.add_argument("--idle", type=float, default=10.0, help="seconds over which idle CPU is measured")
    p.add_argument("--settle", type=float, default=5.0)
    p.add_argument("--requests", type=int, default=300, help="GET /api/games/{id} per phase")
    p.add_argument("--open-batch", type=int, default=50)
    p.add_argument("--rounds", type=int, default=1, help="open and close the streams this many times (memory)")
    p.add_argument("--database-url", default=None)
    p.add_argument("--server-pythonpath", default=None)
    p.add_argument("--label", default="")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    args.streams = max(1, min(MAX_STREAMS, args.streams))
    args.tokens = max(1, min(20, args.tokens))
    args.requests = max(10, min(MAX_REQUESTS, args.requests))
    args.rounds = max(1, min(5, args.rounds))
    args.idle = max(1.0, min(MAX_WAIT_S, args.idle))
    args.settle = max(0.0, min(MAX_WAIT_S, args.settle))
    return args


def print_table(r: dict[str, Any]) -> None:
    print(
        f"{r['label'] or 'run'}: {r['streams']} streams over {r['tokens']} tokens of 2 accounts, cap {r['cap'] or 'default'}"
    )
    print(
        f"  opening: {r['open']['seconds']} s, server CPU {r['open']['server_cpu_s']} s, answers {r['open']['answers']}"
    )
    print(f"  {'phase':<8} {'RSS MB':>8} {'idle CPU %':>11} {'GET p50 ms':>11} {'GET p99 ms':>11} {'errors':>7}")
    for name in ("before", "during", "after"):
        ph = r[name]
        print(
            f"  {name:<8} {ph['rss_mb']!s:>8} {ph['idle_cpu_pct']!s:>11} {ph['p50_ms']:>11.2f} {ph['p99_ms']:>11.2f}"
            f" {ph['errors']:>7} ({ph['requests']} requests)"
        )
    d = r["during"]
    print(
        f"  during: {d['open_streams']} streams open, {d['streams_ended']} ended, {d['streams_failed']} failed; db {d['db']}"
    )
    for more in r.get("rounds", []):
        print(f"  round {more['round']}: RSS {more['during_rss_mb']} MB open, {more['after_rss_mb']} MB closed")
    print(f"  pool errors in the server log: {r['pool_errors']}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4 * MAX_STREAMS)), hard))
    workdir = Path(tempfile.mkdtemp(prefix="low-bot-streams-"))
    saved = dict(os.environ)
    try:
        os.environ.update({"LOW_BOT_API_RATE": "1000000", "LOW_SIGNUPS_PER_HOUR": "1000"})
        if args.cap is not None:
            os.environ.update(
                {"LOW_BOT_STREAMS_PER_TOKEN": str(args.cap), "LOW_BOT_STREAMS_PER_ACCOUNT": str(args.cap)}
            )
        if args.server_pythonpath:
            hook = workdir / "hook"
            hook.mkdir()
            (hook / "sitecustomize.py").write_text(SITE_HOOK)
            os.environ["PYTHONPATH"] = f"{hook}:{Path(args.server_pythonpath).resolve()}"
        with fresh_database(args.database_url, workdir) as (url, kind):
            server = Server(url, workdir, free_port())
            os.environ.clear()
            os.environ.update(saved)
            try:
                server.wait_ready()
                result = asyncio.run(run(args, server, url))
            finally:
                server.stop()
            log = server.log_path.read_text(errors="replace")
            result["pool_errors"] = len(POOL_ERRORS.findall(log))
            result["database"] = kind
            result["label"] = args.label
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
