"""The server's CPU per chat post: N posts through the real server (``lordsofwar serve`` in a
subprocess, as bench/server.py starts it), one after the other, each game's two players
listening on its socket, and the server's CPU time (from /proc) divided by the posts. Robust
on a busy machine: it counts the server's CPU, not the wall-clock time; the server's idle CPU
(its clock sweep, measured for two seconds before) is taken off.

    python bench/chat.py                          # 1000 posts, SQLite, the in-memory limiter
    python bench/chat.py --redis redis://127.0.0.1:6379/0   # the limiter and the hub in Redis
    python bench/chat.py --profile 30             # in this process instead, under cProfile:
                                                  # the 30 costliest functions (no sockets)
    python bench/chat.py --source /tmp/old        # the server from another checkout (e.g. a
                                                  # `git worktree` of an earlier commit, with
                                                  # the compiled core copied in), to compare

Each player posts five messages (the chat's limit per player in 10 seconds) in its pair's game;
one in five is a quick phrase.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).parent))
import server as server_module  # noqa: E402 - bench/server.py
from server import PASSWORD, Server, free_port  # noqa: E402

PER_PLAYER = 5
PHRASES = ("hello", "good_luck", "good_game", "thanks", "well_played")
IDLE_S = 2.0
FROM_SOURCE = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "ScikitBuildRedirectingFinder"]
sys.path.insert(0, sys.argv.pop(1))
from lordsofwar.cli import main
sys.exit(main())
"""
"""Runs the command line of the checkout named first (the editable install's finder set aside)."""


Post = tuple[httpx.AsyncClient, int, dict[str, Any]]


async def signed_up(http: httpx.AsyncClient, name: str) -> httpx.AsyncClient:
    csrf = (await http.get("/api/session")).json()["csrf"]
    r = await http.post("/api/signup", json={"name": name, "password": PASSWORD}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    http.headers["X-CSRF-Token"] = r.json()["csrf"]
    return http


async def setup(posts: int, client: Any) -> tuple[list[tuple[int, list[httpx.AsyncClient]]], list[Post]]:
    """The games (each with its two players) and the posts to send, in order."""
    pairs: list[tuple[int, list[httpx.AsyncClient]]] = []
    for g in range(max(1, -(-posts // (2 * PER_PLAYER)))):
        a = await signed_up(client(), f"chat-a{g}")
        b = await signed_up(client(), f"chat-b{g}")
        r = await a.post("/api/invitations", json={"opponent": f"chat-b{g}", "options": {"creator_side": "1"}})
        assert r.status_code == 201, r.text
        r = await b.post(f"/api/invitations/{r.json()['invitation']}/accept", json={})
        assert r.status_code == 200, r.text
        pairs.append((int(r.json()["game"]), [a, b]))
    bodies: list[Post] = []
    for i in range(PER_PLAYER):
        for game, players in pairs:
            for seat, http in enumerate(players):
                body = {"phrase": PHRASES[i]} if (i + seat) % 5 == 0 else {"text": f"line {i} of seat {seat}"}
                bodies.append((http, game, body))
    return pairs, bodies[:posts]


async def send(bodies: list[Post]) -> tuple[list[float], dict[int, int]]:
    latencies: list[float] = []
    refused: dict[int, int] = {}
    for http, game, body in bodies:
        t = time.perf_counter()
        r = await http.post(f"/api/games/{game}/chat", json=body)
        latencies.append(time.perf_counter() - t)
        if r.status_code != 201:
            refused[r.status_code] = refused.get(r.status_code, 0) + 1
    return latencies, refused


async def against_server(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    def client() -> httpx.AsyncClient:
        # a connection idle for 4 s is dropped here before the server's keep-alive (5 s) closes it
        return httpx.AsyncClient(base_url=server.base, timeout=60, limits=httpx.Limits(keepalive_expiry=4.0))

    pairs, bodies = await setup(args.posts, client)
    received = 0
    ws_base = server.base.replace("http://", "ws://")

    async def listen(http: httpx.AsyncClient, game: int, ready: asyncio.Event) -> None:
        nonlocal received
        cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        async with connect(f"{ws_base}/api/games/{game}/ws", additional_headers={"Cookie": cookie}) as ws:
            ready.set()
            async for text in ws:
                if json.loads(text)["type"] == "chat":
                    received += 1

    listeners = []
    for game, players in pairs:
        for http in players:
            ready = asyncio.Event()
            listeners.append(asyncio.create_task(listen(http, game, ready)))
            await ready.wait()
    first_game, first_players = pairs[0]
    await first_players[0].get(f"/api/games/{first_game}/chat")  # the chat's routes set up, as in a running server
    await asyncio.sleep(0.5)
    idle0, t0 = server.cpu_s() or 0.0, time.perf_counter()
    await asyncio.sleep(IDLE_S)
    idle_rate = ((server.cpu_s() or 0.0) - idle0) / (time.perf_counter() - t0)
    cpu0, wall0 = server.cpu_s() or 0.0, time.perf_counter()
    latencies, refused = await send(bodies)
    await asyncio.sleep(0.2)  # the last deliveries
    cpu, wall = (server.cpu_s() or 0.0) - cpu0, time.perf_counter() - wall0
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    net = max(0.0, cpu - idle_rate * wall)
    return summary(bodies, latencies, refused, net, wall) | {
        "delivered": received,
        "idle_cpu_share": round(idle_rate, 3),
    }


async def in_process(args: argparse.Namespace, db_path: Path) -> dict[str, Any]:
    """The same posts through the app in this process (ASGI, no sockets) under cProfile."""
    from lordsofwar.web.app import create_app
    from lordsofwar.web.settings import Settings

    settings = Settings(
        database_url=f"sqlite:///{db_path}",
        redis_url=args.redis,
        argon2_time_cost=1,
        argon2_memory_kib=8192,
        signups_per_hour=100_000,
        sweep_interval=3600.0,
        bot_delay=0.0,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):

        def client() -> httpx.AsyncClient:
            return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://bench")

        _pairs, bodies = await setup(args.posts, client)
        profiler = cProfile.Profile()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        profiler.enable()
        latencies, refused = await send(bodies)
        profiler.disable()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(args.profile)
    stats.sort_stats("tottime").print_stats(args.profile)
    print(out.getvalue())
    return summary(bodies, latencies, refused, cpu, wall) | {"delivered": None, "profiled": True}


def summary(
    bodies: list[Post], latencies: list[float], refused: dict[int, int], cpu: float, wall: float
) -> dict[str, Any]:
    latencies = sorted(latencies)
    return {
        "posts": len(bodies),
        "refused": refused,
        "cpu_ms_per_post": round(1000 * cpu / len(bodies), 2),
        "wall_ms_per_post": round(1000 * wall / len(bodies), 2),
        "p50_ms": round(1000 * statistics.median(latencies), 2),
        "p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 2),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--posts", type=int, default=1000, help="chat posts to time (default 1000)")
    p.add_argument("--redis", default=None, help="a Redis URL: the limiter and the hub in Redis")
    p.add_argument("--profile", type=int, default=0, help="run in this process and print the N costliest functions")
    p.add_argument("--source", type=Path, default=None, help="run the server from this checkout")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args()
    if not 10 <= args.posts <= 100_000:
        p.error("--posts must be 10 to 100000")
    if args.source is not None:
        if not (args.source / "lordsofwar" / "cli.py").is_file():
            p.error(f"--source: no lordsofwar/cli.py in {args.source}")
        if args.profile:
            p.error("--source runs a server: it cannot go with --profile")
        source = str(args.source.resolve())
        server_module.server_command = lambda: [sys.executable, "-c", FROM_SOURCE, source]
    workdir = Path(tempfile.mkdtemp(prefix="low-chat-"))
    try:
        if args.profile:
            result = asyncio.run(in_process(args, workdir / "chat.sqlite3"))
        else:
            server = Server(
                f"sqlite:///{workdir / 'chat.sqlite3'}",
                workdir,
                free_port(),
                redis_url=args.redis,
                extra_env={"LOW_SIGNUPS_PER_HOUR": "100000"},
            )
            try:
                server.wait_ready()
                result = asyncio.run(against_server(args, server))
            finally:
                server.stop()
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(workdir)
    result["redis"] = bool(args.redis)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['posts']} chat posts ({'Redis' if args.redis else 'in-memory limiter'}): "
            f"server CPU {result['cpu_ms_per_post']} ms a post, wall {result['wall_ms_per_post']} ms; "
            f"latency p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms; refused {result['refused'] or 'none'}; "
            f"delivered to sockets {result['delivered']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
