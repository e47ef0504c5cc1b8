"""Actions over HTTP on several server processes: how many valid actions are refused as stale.

Starts ``lordsofwar serve --workers N`` (PostgreSQL + Redis) on 127.0.0.1, signs up 2G players
(from addresses of 127.0.1.0/24), starts G games, and has every player loop for ``--duration``
seconds: read the game (GET /api/games/{id}), and when it may act, send a random legal action
with the version it read (POST .../actions). Each request goes over a new connection, so the
kernel spreads them over the workers: a player often reads from one worker and acts through
another that has not heard of the last change yet. An action chosen on the newest version is
valid; the figure is the share of those refused (409 "stale request"). Only 127.0.0.1 is
contacted; the run stops by itself.

    python bench/http_actions.py --database-url postgresql://postgres@127.0.0.1:5432/postgres \\
        --redis-url redis://127.0.0.1:6379/0 --workers 2 --games 50 --duration 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from server import PASSWORD, Server, free_port, fresh_database  # noqa: E402 - bench/server.py


async def player_http(base: str, index: int) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.1.{1 + index // 4}")
    http = httpx.AsyncClient(base_url=base, timeout=60, transport=transport, limits=httpx.Limits(max_keepalive_connections=0))
    csrf = (await http.get("/api/session")).json()["csrf"]
    for _ in range(120):
        r = await http.post("/api/signup", json={"name": f"h{index:04d}", "password": PASSWORD}, headers={"X-CSRF-Token": csrf})
        if r.status_code != 429:
            break
        await asyncio.sleep(0.5)
    assert r.status_code == 201, r.text
    http.headers["X-CSRF-Token"] = r.json()["csrf"]
    return http


async def run(args: argparse.Namespace, base: str) -> dict[str, Any]:
    players = [await player_http(base, i) for i in range(2 * args.games)]
    games = []
    for g in range(args.games):
        a, b = players[2 * g], players[2 * g + 1]
        inv = (await a.post("/api/invitations", json={"opponent": f"h{2 * g + 1:04d}", "options": {"minutes": 60}})).json()
        games.append((await b.post(f"/api/invitations/{inv['invitation']}/accept", json={})).json()["game"])
    counts = {"accepted": 0, "stale": 0, "other_409": 0, "errors": 0}
    deadline = time.monotonic() + args.duration
    rng = random.Random(args.seed)

    async def loop(http: httpx.AsyncClient, game: int) -> None:
        while time.monotonic() < deadline:
            state = (await http.get(f"/api/games/{game}")).json()
            if state["game"]["status"] != "running":
                return
            if not state["legal"]:
                await asyncio.sleep(0.02)
                continue
            action = rng.choice(state["legal"])
            r = await http.post(f"/api/games/{game}/actions", json={"action": action, "version": state["game"]["version"]})
            if r.status_code == 200:
                counts["accepted"] += 1
            elif r.status_code == 409 and "stale" in r.text:
                counts["stale"] += 1
            elif r.status_code == 409:
                counts["other_409"] += 1
            else:
                counts["errors"] += 1

    await asyncio.gather(*(loop(players[2 * g + s], games[g]) for g in range(args.games) for s in (0, 1)))
    for http in players:
        await http.aclose()
    sent = counts["accepted"] + counts["stale"] + counts["other_409"]
    return {**counts, "sent": sent, "stale_share": round(counts["stale"] / sent, 4) if sent else None}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--database-url", required=True, help="postgresql://... (a fresh database is made there)")
    p.add_argument("--redis-url", required=True)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if not (1 <= args.games <= 200 and 0 < args.duration <= 300 and 1 <= args.workers <= 8):
        p.error("--games 1..200, --duration up to 300, --workers 1..8")
    workdir = Path(tempfile.mkdtemp(prefix="low-http-"))
    try:
        with fresh_database(args.database_url, workdir) as (url, _kind):
            server = Server(url, workdir, free_port(), args.workers, args.redis_url)
            try:
                server.wait_ready()
                result = asyncio.run(run(args, server.base))
            finally:
                server.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result.update(workers=args.workers, games=args.games, duration_s=args.duration)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.workers} workers, {args.games} games, {args.duration:g} s: {result['sent']} valid actions sent, "
              f"{result['accepted']} accepted, {result['stale']} refused as stale ({100 * (result['stale_share'] or 0):.2f}%), "
              f"{result['other_409']} other refusals, {result['errors']} errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
