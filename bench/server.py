"""Web server benchmark: the real server, N concurrent bot-vs-bot live games over WebSockets.

Starts ``lordsofwar serve`` as a subprocess on a free port of 127.0.0.1 with a fresh database
(a temporary SQLite file, or with ``--database-url postgresql://...`` a fresh PostgreSQL database
that is created for the run and dropped after it), signs up 2N players over HTTP, pairs them in
N live games (invitation + accept), connects each player's WebSocket and plays: whenever a
player's ``legal`` list is non-empty it sends a uniformly random legal action (seeded, chosen
here in the client). The latency of an action is the time from sending it to receiving, on the
same socket, the ``update`` whose ``game.version`` is the next one.

When a game ends its two players start a new one (invitation + accept over HTTP), so N games
stay live for the whole run (``--no-replace``: they do not). Every run stops by itself: after
``--duration`` seconds, or ``--max-actions`` actions, whichever comes first (both capped).

    python bench/server.py                       # 200 live games for 60 s, ~1 s per action, a table
    python bench/server.py --think-ms 0          # players act at once: the server's saturation
    python bench/server.py --games 50 --json     # one JSON object
    python bench/server.py --database-url postgresql://postgres@127.0.0.1:5432/postgres
    python bench/server.py --games 20 --duration 36 --signup-burst 60 --full-argon2   # a sign-up flood
    python bench/server.py --games 20 --duration 36 --signup-burst 60 --full-argon2 --burst-addresses many
    python bench/server.py --chat-every 10       # and each player chats every 10 s on average

``--chat-every S`` adds game chat: each player of each game posts a message to the game's chat
(``POST /api/games/{id}/chat``) every S seconds on average (exponential; one in five a quick
phrase, the rest a line of text), which the server keeps and pushes to both players' sockets.
It reports the messages kept and refused, the posts' latency and the chat messages the sockets
received; the action latency is then measured with the chat traffic going on.

``--signup-burst N`` sends N anonymous sign-ups (a third of the way into the run, spread over
``--burst-seconds``, default 12) while the games go on, from one address (127.0.0.2) or from N
addresses of the loopback range (``--burst-addresses many``: the per-address limit does not stop
them, only the bound on hashes at once does). It reports what the server answered, its resident
memory before and at its peak, and the games' action latency before and during the burst. With
``--full-argon2`` the server hashes at the default cost (64 MiB, 3 passes) as in production.
The players of the games sign up from addresses of 127.0.1.0/24, four per address, under the
server's default sign-up limit.

The server is started with LOW_BOT_DELAY=0 and (unless ``--full-argon2``) a lowered Argon2 cost (LOW_ARGON2_TIME_COST=1,
LOW_ARGON2_MEMORY_KIB=8192) so that the 2N sign-ups are quick; the output says so. Only
127.0.0.1 is contacted. The load generator runs in this one process (asyncio); its CPU time and
the server's (from /proc/<pid>/stat) are both reported, so a client-bound run can be told apart.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import resource
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

HOST = "127.0.0.1"
MAX_GAMES = 1000
MAX_DURATION_S = 600.0
MAX_ACTIONS = 10_000_000
SERVER_START_TIMEOUT_S = 60.0
SETUP_TIMEOUT_S = 300.0
GRACE_S = 5.0  # after the budget runs out: how long in-flight actions may still be answered
PASSWORD = "bench-password-1"
CHAT_PHRASES = ("hello", "good_luck", "good_game", "thanks", "well_played")
CHAT_LINES = ("nice move", "hmm, let me think", "that catapult hurts", "your turn", "ouch", "good luck with that flank")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
ARGON2_ENV = {"LOW_ARGON2_TIME_COST": "1", "LOW_ARGON2_MEMORY_KIB": "8192"}
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- the server process ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def server_command() -> list[str]:
    script = Path(sys.executable).with_name("lordsofwar")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "lordsofwar"]


def proc_cpu_s(pid: int) -> float | None:
    """utime + stime of a process, in seconds (None when it cannot be read)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def tree_cpu_s(pid: int) -> float | None:
    """utime + stime of a process and all its descendants (the server and its workers)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        child = int(stat.parent.name)
        parents[child] = int(fields[1])
        cpu[child] = (int(fields[11]) + int(fields[12])) / CLK_TCK
    if pid not in cpu:
        return None
    total = 0.0
    for p in cpu:
        q = p
        while q and q != pid and q in parents:
            q = parents[q]
        if q == pid:
            total += cpu[p]
    return total


def tree_rss_mb(pid: int) -> float | None:
    """Resident memory of a process and its children (the server and its workers), in MB."""
    total = 0
    try:
        pids = [pid]
        with contextlib.suppress(OSError):
            pids += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        for p in pids:
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{p}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
    except (OSError, ValueError):
        return None
    return total / 1024 if total else None


def machine_jiffies() -> tuple[float, float, float] | None:
    """(busy, stolen, total) jiffies of the whole machine from /proc/stat (steal: time the
    hypervisor gave to other guests, a sign of a noisy neighbour)."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
    except OSError:
        return None
    values = [int(v) for v in first[1:9]]  # user nice system idle iowait irq softirq steal (guest is in user)
    values += [0] * (8 - len(values))
    idle, steal = values[3] + values[4], values[7]
    return float(sum(values) - idle - steal), float(steal), float(sum(values))


def client_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Server:
    """``lordsofwar serve`` in a subprocess; :meth:`stop` always ends it."""

    def __init__(
        self, database_url: str, workdir: Path, port: int, workers: int = 1, redis_url: str | None = None,
        full_argon2: bool = False, extra_env: dict[str, str] | None = None,
    ):
        self.port = port
        self.base = f"http://{HOST}:{port}"
        self.log_path = workdir / "server.log"
        env = dict(os.environ)
        if not full_argon2:
            env.update(ARGON2_ENV)
        else:
            for key in ARGON2_ENV:
                env.pop(key, None)
        env.update({"LOW_DATABASE_URL": database_url, "LOW_BOT_DELAY": "0", "LOW_DATA_DIR": str(workdir)})
        self.bot_times_path = workdir / "bot-times.txt"
        env["LOW_BOT_TIMES_FILE"] = str(self.bot_times_path)
        env.pop("LOW_REDIS_URL", None)
        if redis_url:
            env["LOW_REDIS_URL"] = redis_url
        env.update(extra_env or {})
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [*server_command(), "serve", "--host", HOST, "--port", str(port), "--workers", str(workers)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl+C reaches the benchmark, which then stops the server itself
        )

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def wait_ready(self, timeout: float = SERVER_START_TIMEOUT_S) -> float:
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with code {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.base}/api/session", timeout=2.0).status_code == 200:
                    return time.perf_counter() - start
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def cpu_s(self) -> float | None:
        return tree_cpu_s(self.proc.pid)  # the server and its workers

    def rss_mb(self) -> float | None:
        return tree_rss_mb(self.proc.pid)

    def stop(self) -> None:
        """SIGTERM to the server's whole process group (its workers too), SIGKILL after 15 s."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=15)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and group_alive(self.proc.pid):
            time.sleep(0.1)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self._log.close()


# --- the database ----------------------------------------------------------------------------------


@contextlib.contextmanager
def fresh_database(url: str | None, workdir: Path) -> Iterator[tuple[str, str]]:
    """(the server's LOW_DATABASE_URL, the kind): a temporary SQLite file, or a PostgreSQL
    database created for this run on the server of ``url`` and dropped afterwards."""
    if url is None:
        yield f"sqlite:///{workdir / 'bench.sqlite3'}", "sqlite"
        return
    parts = urlsplit(url)
    scheme = parts.scheme.split("+")[0]
    if scheme not in ("postgresql", "postgres"):
        raise SystemExit(f"--database-url: expected postgresql://..., got {scheme!r}")
    if parts.hostname not in LOCAL_HOSTS:
        raise SystemExit(f"--database-url: this benchmark only talks to 127.0.0.1, not {parts.hostname!r}")
    import psycopg

    name = f"low_bench_{os.getpid()}"
    admin = urlunsplit(("postgresql", parts.netloc, "/postgres", parts.query, ""))
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(("postgresql", parts.netloc, f"/{name}", parts.query, "")), "postgresql"
    finally:
        with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- the players ----------------------------------------------------------------------------------


@dataclass
class Player:
    name: str
    http: httpx.AsyncClient
    csrf: str = ""
    cookie: str = ""

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})
        if response.status_code >= 300:
            raise RuntimeError(f"POST {path} as {self.name}: {response.status_code} {response.text[:200]}")
        data: dict[str, Any] = response.json()
        return data


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds
    stamps: list[float] = field(default_factory=list)  # when each latency was measured (perf_counter)
    actions: int = 0  # actions answered within the measured time
    sent: int = 0
    errors: int = 0
    error_messages: dict[str, int] = field(default_factory=dict)
    gaps: int = 0
    games_started: int = 0
    finished_games: int = 0
    results: dict[str, int] = field(default_factory=dict)
    disconnects: int = 0
    live: int = 0  # games live now
    live_area: float = 0.0  # integral of live games over time (for the time-weighted mean)
    live_since: float = 0.0
    measuring: bool = False
    chat_latencies: list[float] = field(default_factory=list)  # seconds, each kept message's POST
    chat_refused: dict[str, int] = field(default_factory=dict)  # by status (and code)
    chat_received: int = 0  # chat messages that reached the players' sockets

    def error(self, message: str) -> None:
        self.errors += 1
        key = message[:120]
        self.error_messages[key] = self.error_messages.get(key, 0) + 1

    def set_live(self, delta: int) -> None:
        now = time.perf_counter()
        if self.measuring:
            self.live_area += self.live * (now - self.live_since)
        self.live_since = now
        self.live += delta


class Bench:
    def __init__(self, args: argparse.Namespace, base: str):
        self.args = args
        self.base = base
        self.ws_base = base.replace("http://", "ws://", 1)
        self.stats = Stats()
        self.stopping = False
        self.started_at = 0.0
        self.ended_at = 0.0
        self.start = asyncio.Event()
        self.budget_done = asyncio.Event()
        self.sockets: set[ClientConnection] = set()
        self.rng = random.Random(args.seed)
        self.burst_window = [0.0, 0.0]
        self.rss: list[tuple[float, float]] = []
        self.ssl = ssl.create_default_context()  # plain HTTP only; one context instead of one per client

    # --- set-up over HTTP ---------------------------------------------------------------------

    async def sign_up(self, index: int, limit: asyncio.Semaphore) -> Player:
        async with limit:
            # idle connections are dropped before the server's keep-alive timeout (5 s) closes them,
            # so a request never goes out on a connection the server is closing; four players an
            # address, within the server's sign-up limit per address
            limits = httpx.Limits(max_connections=4, keepalive_expiry=2.0)
            transport = httpx.AsyncHTTPTransport(local_address=f"127.0.{1 + index // 1000}.{1 + (index // 4) % 250}")
            http = httpx.AsyncClient(
                base_url=self.base, timeout=60.0, limits=limits, verify=self.ssl, transport=transport
            )
            player = Player(f"bench{index:04d}", http)
            player.csrf = (await http.get("/api/session")).json()["csrf"]
            for _attempt in range(120):  # 429 while the server's password hashing is busy: wait
                response = await http.post(
                    "/api/signup", json={"name": player.name, "password": PASSWORD}, headers={"X-CSRF-Token": player.csrf}
                )
                if response.status_code != 429:
                    break
                await asyncio.sleep(0.5)
            if response.status_code != 201:
                raise RuntimeError(f"sign-up of {player.name}: {response.status_code} {response.text[:200]}")
            player.csrf = response.json()["csrf"]  # signing in gives a new token
            cookie = http.cookies.get("low_session")
            if not cookie:
                raise RuntimeError(f"no session cookie after signing up {player.name}")
            player.cookie = cookie
            return player

    async def new_game(self, a: Player, b: Player) -> int:
        options = {"mode": "live", "minutes": self.args.minutes, "increment": 10, "creator_side": "1"}
        inv = await a.post("/api/invitations", {"opponent": b.name, "options": options})
        game = await b.post(f"/api/invitations/{inv['invitation']}/accept", {})
        return int(game["game"])

    async def new_bot_game(self, a: Player) -> int:
        options = {"mode": "live", "minutes": self.args.minutes, "increment": 10, "creator_side": "random"}
        created = await a.post("/api/invitations", {"bot": self.args.bot_level, "options": options})
        return int(created["game"])

    async def bot_slot(self, a: Player) -> None:
        """One of the ``--bot-games``: a player against a bot, its actions sent as soon as legal,
        so that the bot searches again at once; a new game when one ends."""
        while not self.stopping:
            try:
                gid = await self.new_bot_game(a)
                ws, doc = await self.open_socket(a, gid)
            except Exception as exc:
                self.stats.error(f"bot game: {type(exc).__name__}: {exc}")
                return
            self.stats.games_started += 1
            try:
                reason = await self.play(ws, doc, self.rng.randrange(2**62), think=0.0)
            finally:
                self.sockets.discard(ws)
                with contextlib.suppress(Exception):
                    await ws.close()
            if reason is None:
                return
            self.stats.finished_games += 1
            self.stats.results[reason] = self.stats.results.get(reason, 0) + 1

    # --- playing ------------------------------------------------------------------------------

    async def open_socket(self, player: Player, game_id: int) -> tuple[ClientConnection, dict[str, Any]]:
        ws = await connect(
            f"{self.ws_base}/api/games/{game_id}/ws",
            additional_headers={"Cookie": f"low_session={player.cookie}", "Origin": self.base},
            compression="deflate" if self.args.compression else None,
            max_size=2**24,
            ping_interval=None,
            open_timeout=60,
        )
        self.sockets.add(ws)
        first = json.loads(await ws.recv())
        if first.get("type") != "state":
            raise RuntimeError(f"expected a state message first, got {str(first)[:200]}")
        return ws, first

    async def play(self, ws: ClientConnection, doc: dict[str, Any], seed: int, think: float | None = None) -> str | None:
        """Play one side until the game is over (its result's termination code) or the run stops (None);
        ``think``: seconds of thought on average (default ``--think-ms``)."""
        rng = random.Random(seed)
        stats = self.stats
        think = self.args.think_ms / 1000.0 if think is None else think
        version: int = doc["game"]["version"]
        pending: tuple[int, float] | None = None  # (the version that answers it, when it was sent)
        await self.start.wait()
        try:
            while True:
                kind = doc.get("type")
                if kind in ("state", "update"):
                    game = doc["game"]
                    new_version = game["version"]
                    fresh = new_version >= version
                    if kind == "update":
                        if pending is not None and new_version == pending[0]:
                            stats.latencies.append(time.perf_counter() - pending[1])
                            stats.stamps.append(time.perf_counter())
                            if not self.stopping:
                                stats.actions += 1
                            pending = None
                        if new_version > version + 1:  # a change was missed: ask for the whole state
                            stats.gaps += 1
                            fresh = False
                            await ws.send('{"type":"sync"}')
                    version = max(version, new_version)
                    if game["status"] == "over":
                        return str((game.get("result") or {}).get("termination"))  # the ending's code
                    legal = doc.get("legal") or []
                    if fresh and legal and pending is None and not self.stopping:
                        if think > 0:
                            await asyncio.sleep(rng.expovariate(1.0 / think))
                            if self.stopping:
                                return None
                        action = rng.choice(legal)
                        pending = (version + 1, time.perf_counter())
                        stats.sent += 1
                        if stats.sent >= self.args.max_actions:
                            self.budget_done.set()
                        await ws.send(json.dumps({"type": "action", "action": action, "version": version}))
                elif kind == "chat":
                    stats.chat_received += 1
                elif kind == "error":
                    stats.error(str(doc.get("message")))
                    pending = None
                    await ws.send('{"type":"sync"}')
                if self.stopping and pending is None:
                    return None
                doc = json.loads(await ws.recv())
        except ConnectionClosed:
            if not self.stopping:
                stats.disconnects += 1
            return None

    async def game(self, a: Player, b: Player, game_id: int, opened: tuple[Any, Any] | None) -> bool:
        """Both sides of one game; True when it ended (was played to the end)."""
        if opened is None:
            opened = await asyncio.gather(self.open_socket(a, game_id), self.open_socket(b, game_id))
        (wa, da), (wb, db) = opened
        self.stats.games_started += 1
        self.stats.set_live(+1)
        seed = self.rng.randrange(2**62)
        chatters = (
            [asyncio.create_task(self.chatter(p, game_id, seed + 2 + i)) for i, p in enumerate((a, b))]
            if self.args.chat_every > 0
            else []
        )
        try:
            ended = await asyncio.gather(self.play(wa, da, seed), self.play(wb, db, seed + 1))
        finally:
            for task in chatters:
                task.cancel()
            self.stats.set_live(-1)
            for ws in (wa, wb):
                self.sockets.discard(ws)
                with contextlib.suppress(Exception):
                    await ws.close()
        reason = ended[0] or ended[1]
        if reason is not None:
            self.stats.finished_games += 1
            self.stats.results[reason] = self.stats.results.get(reason, 0) + 1
        return reason is not None

    async def chatter(self, player: Player, game_id: int, seed: int) -> None:
        """One player's chat in one game: a message every ``--chat-every`` seconds on average
        while the game lasts (its task is cancelled when the game ends)."""
        rng = random.Random(seed)
        stats = self.stats
        await self.start.wait()
        count = 0
        while not self.stopping:
            await asyncio.sleep(rng.expovariate(1.0 / self.args.chat_every))
            if self.stopping:
                return
            count += 1
            if rng.random() < 0.2:
                body = {"phrase": rng.choice(CHAT_PHRASES)}
            else:
                body = {"text": f"{rng.choice(CHAT_LINES)} ({player.name}, {count})"}
            sent = time.perf_counter()
            try:
                response = await player.http.post(
                    f"/api/games/{game_id}/chat", json=body, headers={"X-CSRF-Token": player.csrf}
                )
            except httpx.HTTPError as exc:
                stats.chat_refused[type(exc).__name__] = stats.chat_refused.get(type(exc).__name__, 0) + 1
                continue
            if response.status_code == 201:
                if stats.measuring:
                    stats.chat_latencies.append(time.perf_counter() - sent)
            else:
                key = f"{response.status_code} {response.json().get('code') if response.content else ''}"
                stats.chat_refused[key] = stats.chat_refused.get(key, 0) + 1

    async def slot(self, a: Player, b: Player, game_id: int, opened: tuple[Any, Any]) -> None:
        """One of the N concurrent games, replaced by a new one when it ends."""
        ended = await self.game(a, b, game_id, opened)
        while ended and self.args.replace and not self.stopping:
            try:
                game_id = await self.new_game(a, b)
            except (httpx.HTTPError, RuntimeError) as exc:
                if not self.stopping:
                    self.stats.error(f"new game: {exc}")
                return
            if self.stopping:
                return
            ended = await self.game(a, b, game_id, None)

    # --- a sign-up flood during the games -------------------------------------------------------

    async def burst(self) -> dict[str, Any]:
        """``--signup-burst`` anonymous sign-ups, evenly spread over ``--burst-seconds``."""
        args = self.args
        n = args.signup_burst
        statuses: dict[str, int] = {}

        async def one(i: int) -> None:
            await asyncio.sleep(i * args.burst_seconds / n)
            address = "127.0.0.2" if args.burst_addresses == "one" else f"127.0.2.{1 + i % 250}"
            transport = httpx.AsyncHTTPTransport(local_address=address)
            async with httpx.AsyncClient(base_url=self.base, timeout=120.0, transport=transport) as http:
                try:
                    csrf = (await http.get("/api/session")).json()["csrf"]
                    r = await http.post(
                        "/api/signup", json={"name": f"flood{i:04d}", "password": PASSWORD}, headers={"X-CSRF-Token": csrf}
                    )
                    key = str(r.status_code)
                except httpx.HTTPError as exc:
                    key = type(exc).__name__
            statuses[key] = statuses.get(key, 0) + 1

        await asyncio.sleep(args.duration / 3)
        self.burst_window[0] = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        self.burst_window[1] = time.perf_counter()
        return {"signups": n, "seconds": args.burst_seconds, "addresses": args.burst_addresses, "answers": statuses}

    async def sample_memory(self) -> None:
        while True:
            rss = tree_rss_mb(self.args.server_pid) if self.args.server_pid else None
            if rss is not None:
                self.rss.append((time.perf_counter(), rss))
            await asyncio.sleep(0.1)

    def burst_figures(self, burst: dict[str, Any]) -> dict[str, Any]:
        start, end = self.burst_window
        s = self.stats
        before = [lat for lat, t in zip(s.latencies, s.stamps, strict=True) if t < start]
        during = [lat for lat, t in zip(s.latencies, s.stamps, strict=True) if start <= t <= end]
        rss_before = [m for t, m in self.rss if t < start]
        rss_during = [m for t, m in self.rss if start <= t <= end]
        return {
            **burst,
            "rss_mb_before": round(max(rss_before), 1) if rss_before else None,
            "rss_mb_peak": round(max(rss_during), 1) if rss_during else None,
            "latency_ms_before": latency_summary(before),
            "latency_ms_during": latency_summary(during),
            "samples_before": len(before),
            "samples_during": len(during),
        }

    # --- the run ------------------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        args = self.args
        setup_start = time.perf_counter()
        limit = asyncio.Semaphore(args.setup_concurrency)
        players = await asyncio.gather(*(self.sign_up(i, limit) for i in range(2 * args.games + args.bot_games)))
        bot_players = players[2 * args.games :]
        signup_s = time.perf_counter() - setup_start

        async def pair(i: int) -> tuple[int, tuple[Any, Any]]:
            a, b = players[2 * i], players[2 * i + 1]
            async with limit:
                gid = await self.new_game(a, b)
            opened = await asyncio.gather(self.open_socket(a, gid), self.open_socket(b, gid))
            return gid, opened

        games = await asyncio.gather(*(pair(i) for i in range(args.games)))
        setup_s = time.perf_counter() - setup_start

        tasks = [
            asyncio.ensure_future(self.slot(players[2 * i], players[2 * i + 1], gid, opened))
            for i, (gid, opened) in enumerate(games)
        ]
        tasks += [asyncio.ensure_future(self.bot_slot(p)) for p in bot_players]
        await asyncio.sleep(0)
        self.stats.measuring = True
        self.stats.live_since = self.started_at = time.perf_counter()
        cpu0, client0, busy0 = self.server_cpu(), client_cpu_s(), machine_jiffies()
        self.start.set()
        sampler = asyncio.ensure_future(self.sample_memory())
        flood = asyncio.ensure_future(self.burst()) if args.signup_burst else None
        everything = asyncio.ensure_future(asyncio.wait(tasks))
        budget = asyncio.ensure_future(self.budget_done.wait())
        await asyncio.wait([everything, budget], timeout=args.duration, return_when=asyncio.FIRST_COMPLETED)
        budget.cancel()
        burst = None
        if flood is not None:
            burst = self.burst_figures(await flood)
        sampler.cancel()
        self.ended_at = time.perf_counter()
        cpu1, client1, busy1 = self.server_cpu(), client_cpu_s(), machine_jiffies()
        self.stats.set_live(0)
        self.stats.measuring = False
        await self.wind_down(tasks, players)

        elapsed = self.ended_at - self.started_at
        s = self.stats
        cores = os.cpu_count() or 1
        busy = steal = None
        if busy0 and busy1 and busy1[2] > busy0[2]:
            busy = (busy1[0] - busy0[0]) / (busy1[2] - busy0[2]) * cores
            steal = (busy1[1] - busy0[1]) / (busy1[2] - busy0[2]) * cores
        server_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
        return {
            "games": s.games_started,
            "concurrent_games": args.games,
            "mean_live_games": round(s.live_area / elapsed, 1) if elapsed > 0 else 0.0,
            "finished_games": s.finished_games,
            "results": s.results,
            "actions": s.actions,
            "duration_s": round(elapsed, 3),
            "actions_per_s": round(s.actions / elapsed, 1) if elapsed > 0 else 0.0,
            "latency_ms": latency_summary(s.latencies),
            "latency_samples": len(s.latencies),
            "errors": s.errors,
            "error_messages": s.error_messages,
            "version_gaps": s.gaps,
            "disconnects": s.disconnects,
            "server_cpu_s": None if server_cpu is None else round(server_cpu, 2),
            "server_cpu_per_action_ms": None
            if server_cpu is None or not s.actions
            else round(server_cpu / s.actions * 1000, 3),
            "client_cpu_s": round(client1 - client0, 2),
            "machine_cores_busy": None if busy is None else round(busy, 2),
            "machine_cores_stolen": None if steal is None else round(steal, 2),
            # the rest of the machine: the database server (PostgreSQL) and anything else running
            "other_cores_busy": None
            if busy is None or server_cpu is None or elapsed <= 0
            else round(max(0.0, busy - (server_cpu + client1 - client0) / elapsed), 2),
            "cores": cores,
            "signup_s": round(signup_s, 2),
            "setup_s": round(setup_s, 2),
            "think_ms": args.think_ms,
            "compression": "deflate" if args.compression else "none",
            "seed": args.seed,
            "signup_burst": burst,
            "bot_games": args.bot_games,
            "bot_level": args.bot_level if args.bot_games else None,
            "chat": None
            if not args.chat_every
            else {
                "every_s": args.chat_every,
                "kept": len(s.chat_latencies),
                "per_s": round(len(s.chat_latencies) / elapsed, 1) if elapsed > 0 else 0.0,
                "refused": s.chat_refused,
                "received": s.chat_received,
                "post_latency_ms": latency_summary(s.chat_latencies),
            },
        }

    def server_cpu(self) -> float | None:
        return tree_cpu_s(self.args.server_pid) if self.args.server_pid else None

    async def wind_down(self, tasks: Sequence[asyncio.Future[Any]], players: Sequence[Player]) -> None:
        """Stop playing: in-flight actions still get their answer, then every socket, game task
        and client is closed."""
        self.stopping = True
        if tasks:
            await asyncio.wait(tasks, timeout=GRACE_S)
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                await ws.close()
        if tasks:
            await asyncio.wait(tasks, timeout=GRACE_S)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(p.http.aclose() for p in players), return_exceptions=True)

    # --- an arena tournament --------------------------------------------------------------------

    async def arena(self) -> dict[str, Any]:
        """``--arena N``: N players in one arena, each paired again as soon as their game ends;
        the pairing latency (a game's end to its players' next game appearing in the
        tournament, read every 100 ms) and the actions' latency."""
        args = self.args
        setup_start = time.perf_counter()
        limit = asyncio.Semaphore(args.setup_concurrency)
        players = await asyncio.gather(*(self.sign_up(i, limit) for i in range(args.arena)))
        host = players[0]
        window = max(5, math.ceil(args.duration / 60) + 5)
        created = await host.post(
            "/api/tournaments",
            {"name": "Bench arena", "kind": "arena", "minutes": window,
             "options": {"mode": "live", "minutes": args.minutes, "increment": 10}},
        )
        tid = created["tournament"]

        async def join(p: Player) -> None:
            async with limit:
                await p.post(f"/api/tournaments/{tid}/join", {})

        await asyncio.gather(*(join(p) for p in players))
        by_name = {p.name: p for p in players}
        ended_at: dict[str, float] = {}
        pairing: list[float] = []
        seen: set[int] = set()
        tasks: list[asyncio.Future[Any]] = []

        async def one_game(a: Player, b: Player, gid: int) -> None:
            try:
                await self.game(a, b, gid, None)
            except Exception as exc:
                self.stats.error(f"{type(exc).__name__}: {exc}")
            if not self.stopping:
                now = time.perf_counter()
                ended_at[a.name] = ended_at[b.name] = now

        async def watch() -> None:
            while not self.stopping:
                response = await host.http.get(f"/api/tournaments/{tid}")
                now = time.perf_counter()
                for wave in response.json()["rounds_played"]:
                    for board in wave["boards"]:
                        gid = board["game"]
                        if gid is None or gid in seen or board["result"] is not None:
                            continue
                        seen.add(gid)
                        for name in (board["white"], board["black"]):
                            if name in ended_at:
                                pairing.append(now - ended_at.pop(name))
                        tasks.append(asyncio.ensure_future(one_game(by_name[board["white"]], by_name[board["black"]], gid)))
                await asyncio.sleep(0.1)

        setup_s = time.perf_counter() - setup_start
        self.stats.measuring = True
        self.stats.live_since = self.started_at = time.perf_counter()
        cpu0 = self.server_cpu()
        self.start.set()
        await host.post(f"/api/tournaments/{tid}/start", {})
        watcher = asyncio.ensure_future(watch())
        await asyncio.sleep(args.duration)
        self.ended_at = time.perf_counter()
        cpu1 = self.server_cpu()
        self.stats.set_live(0)
        self.stats.measuring = False
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        await self.wind_down(tasks, players)
        elapsed = self.ended_at - self.started_at
        s = self.stats
        server_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
        return {
            "arena_players": args.arena,
            "games": s.games_started,
            "finished_games": s.finished_games,
            "mean_live_games": round(s.live_area / elapsed, 1) if elapsed > 0 else 0.0,
            "actions": s.actions,
            "duration_s": round(elapsed, 3),
            "actions_per_s": round(s.actions / elapsed, 1) if elapsed > 0 else 0.0,
            "latency_ms": latency_summary(s.latencies),
            "latency_samples": len(s.latencies),
            "pairing_latency_ms": latency_summary(pairing),
            "pairing_samples": len(pairing),
            "errors": s.errors,
            "error_messages": s.error_messages,
            "disconnects": s.disconnects,
            "server_cpu_s": None if server_cpu is None else round(server_cpu, 2),
            "setup_s": round(setup_s, 2),
            "think_ms": args.think_ms,
            "seed": args.seed,
        }


class RemoteWorkers:
    """``--workers-remote K``: K ``lordsofwar worker`` processes on this machine, on the servers'
    Redis under a prefix of the run's own (removed afterwards); the servers search nothing
    themselves (LOW_BOT_WORKERS=0)."""

    def __init__(self, count: int, redis_url: str, workdir: Path):
        self.redis_url = redis_url
        self.prefix = f"low-bench-{os.getpid()}-{int(time.time())}"
        self.env = {"LOW_REDIS_URL": redis_url, "LOW_REDIS_PREFIX": self.prefix, "LOW_BOT_WORKERS": "0"}
        self.procs = []
        self.logs = []
        for i in range(count):
            log = (workdir / f"worker-{i}.log").open("wb")
            self.logs.append(log)
            self.procs.append(subprocess.Popen(
                [*server_command(), "worker"], env={**os.environ, **self.env}, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            ))

    def cpu_s(self) -> float:
        return round(sum(tree_cpu_s(p.pid) or 0.0 for p in self.procs), 2)

    def stop(self) -> None:
        for p in self.procs:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGKILL)  # the run is over: nothing under way is wanted
        for p in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=10)
        for log in self.logs:
            log.close()
        from redis import Redis

        redis = Redis.from_url(self.redis_url)
        keys = list(redis.scan_iter(f"{self.prefix}:*"))
        if keys:
            redis.delete(*keys)
        redis.close()


def bot_figures(path: Path, level: str) -> dict[str, Any]:
    """The bots' decisions as the server logged them (LOW_BOT_TIMES_FILE): how many, the search's
    own seconds (the level's budget applies to it) and the wall seconds from asking the worker
    pool to the answer (the queue for a worker included), p50 / p99 / max in milliseconds."""
    search: list[float] = []
    wall: list[float] = []
    budget: float | None = None
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            name, spent, waited, given = line.split()
            if name != level:
                continue
            search.append(float(spent))
            wall.append(float(waited))
            if given != "-":
                budget = float(given) if budget is None else min(budget, float(given))
    from lordsofwar.bots import SEARCH_LEVELS

    level_budget = None
    if level in SEARCH_LEVELS:
        from lordsofwar.bots.search import LEVELS

        level_budget = LEVELS[level].seconds

    def ms(values: list[float]) -> dict[str, float | None]:
        xs = sorted(values)
        return {
            "p50": None if not xs else round(1000 * percentile(xs, 0.5), 1),
            "p99": None if not xs else round(1000 * percentile(xs, 0.99), 1),
            "max": None if not xs else round(1000 * xs[-1], 1),
        }

    return {
        "decisions": len(search),
        "search_ms": ms(search),
        "wall_ms": ms(wall),
        "level_budget_ms": None if level_budget is None else round(1000 * level_budget),
        "smallest_clock_budget_ms": None if budget is None else round(1000 * budget),
    }


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return math.nan
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def latency_summary(latencies: list[float]) -> dict[str, float | None]:
    values = sorted(latencies)
    out: dict[str, float | None] = {}
    for name, q in (("p50", 0.50), ("p90", 0.90), ("p99", 0.99)):
        out[name] = round(percentile(values, q) * 1000, 2) if values else None
    out["max"] = round(values[-1] * 1000, 2) if values else None
    out["mean"] = round(sum(values) / len(values) * 1000, 2) if values else None
    return out


# --- the command line -----------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=200, help=f"concurrent games (at most {MAX_GAMES}; default 200)")
    p.add_argument("--duration", type=float, default=60.0, help=f"seconds of play (at most {MAX_DURATION_S:.0f}; default 60)")
    p.add_argument("--max-actions", type=int, default=MAX_ACTIONS, help="stop after this many actions sent in all")
    p.add_argument("--think-ms", type=float, default=1000.0,
                   help="mean think time before each action (exponential; default 1000: a player who acts "
                        "within a second or so, faster than people play; 0: act at once, the saturation test)")
    p.add_argument("--no-replace", dest="replace", action="store_false",
                   help="do not start a new game in place of one that ends")
    p.add_argument("--no-compression", dest="compression", action="store_false",
                   help="do not offer permessage-deflate (browsers offer it, so by default the client does)")
    p.add_argument("--minutes", type=int, default=60, help="live clock per player (default 60)")
    p.add_argument("--seed", type=int, default=1, help="seed of the clients' random choices")
    p.add_argument("--setup-concurrency", type=int, default=16, help="parallel HTTP requests during set-up")
    p.add_argument("--database-url", default=None,
                   help="postgresql://user@127.0.0.1:5432/postgres: run on a fresh database created there "
                   "(and dropped after); default: a temporary SQLite file")
    p.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    p.add_argument("--workers", type=int, default=1,
                   help="server processes (above 1 needs --database-url postgresql://... and --redis-url)")
    p.add_argument("--redis-url", default=None, help="Redis for several server processes, e.g. redis://127.0.0.1:6379/0")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--signup-burst", type=int, default=0, help="anonymous sign-ups sent during the run (at most 500)")
    p.add_argument("--burst-seconds", type=float, default=12.0, help="over how many seconds (default 12)")
    p.add_argument("--burst-addresses", choices=["one", "many"], default="one",
                   help="from one address (127.0.0.2) or each from its own (127.0.2.x)")
    p.add_argument("--full-argon2", action="store_true", help="the server hashes passwords at the default cost")
    p.add_argument("--bot-games", type=int, default=0,
                   help="also this many games of a player against a bot, the player acting at once (at most 50)")
    p.add_argument("--bot-level", default="general", help="the bot of --bot-games (default general)")
    p.add_argument("--workers-remote", type=int, default=0,
                   help="the bots search in this many 'lordsofwar worker' processes over Redis (needs --redis-url); "
                   "the servers search nothing themselves")
    p.add_argument("--chat-every", type=float, default=0.0,
                   help="each player posts a chat message every this many seconds on average (0: no chat; "
                   "at least 2, under the server's rate limit)")
    p.add_argument("--arena", type=int, default=0,
                   help="instead of separate games: this many players in one arena tournament (at most 400)")
    args = p.parse_args(argv)
    if not 1 <= args.games <= MAX_GAMES:
        p.error(f"--games must be 1 to {MAX_GAMES}")
    if not 0 < args.duration <= MAX_DURATION_S:
        p.error(f"--duration must be above 0 and at most {MAX_DURATION_S:.0f}")
    if not 1 <= args.max_actions <= MAX_ACTIONS:
        p.error(f"--max-actions must be 1 to {MAX_ACTIONS}")
    if not 0 <= args.think_ms <= 60_000:
        p.error("--think-ms must be 0 to 60000")
    if not 1 <= args.setup_concurrency <= 256:
        p.error("--setup-concurrency must be 1 to 256")
    if not 0 <= args.signup_burst <= 500:
        p.error("--signup-burst must be 0 to 500")
    if args.signup_burst and not 0 < args.burst_seconds < args.duration:
        p.error("--burst-seconds must be above 0 and below --duration")
    if not 0 <= args.bot_games <= 50:
        p.error("--bot-games must be 0 to 50")
    from lordsofwar.bots import BOTS

    if args.bot_level not in BOTS:
        p.error(f"--bot-level must be one of {', '.join(BOTS)}")
    if not 0 <= args.arena <= 400 or args.arena == 1:
        p.error("--arena must be 2 to 400 players")
    if args.chat_every and not 2 <= args.chat_every <= 600:
        p.error("--chat-every must be 0, or 2 to 600")
    if not 1 <= args.workers <= 16:
        p.error("--workers must be 1 to 16")
    if not 0 <= args.workers_remote <= 16:
        p.error("--workers-remote must be 0 to 16")
    if args.workers_remote and not args.redis_url:
        p.error("--workers-remote needs --redis-url redis://...")
    if args.workers > 1 and not (args.redis_url and (args.database_url or "").startswith("postgres")):
        p.error("--workers above 1 needs --database-url postgresql://... and --redis-url redis://...")
    return args


def print_table(r: dict[str, Any]) -> None:
    lat = r["latency_ms"]

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f} ms"

    argon = r["argon2"]
    print(f"database            {r['database']}  (Argon2 time_cost={argon['time_cost']}, "
          f"memory={argon['memory_kib'] // 1024} MiB; LOW_BOT_DELAY=0)")
    print(f"server start        {r['server_start_s']:.2f} s; sign-ups {r['signup_s']:.2f} s; "
          f"set-up in all {r['setup_s']:.2f} s (accounts, games, sockets)")
    print(f"concurrent games    {r['concurrent_games']} (mean live {r['mean_live_games']}; "
          f"think time {r['think_ms']:g} ms; compression {r['compression']})")
    print(f"games               {r['games']} started, {r['finished_games']} finished {r['results'] or ''}")
    print(f"actions             {r['actions']} in {r['duration_s']:.1f} s = {r['actions_per_s']:.1f} actions/s")
    print(f"latency             p50 {ms(lat['p50'])}  p90 {ms(lat['p90'])}  p99 {ms(lat['p99'])}  "
          f"max {ms(lat['max'])}  (mean {ms(lat['mean'])}, {r['latency_samples']} samples)")
    print(f"errors              {r['errors']}" + (f"  {r['error_messages']}" if r["errors"] else "")
          + f"; version gaps {r['version_gaps']}; unexpected disconnects {r['disconnects']}")
    cpu = r["server_cpu_s"]
    per = r["server_cpu_per_action_ms"]
    print(f"CPU                 server {cpu} s ({'-' if per is None else f'{per:.2f} ms'} per action), "
          f"client {r['client_cpu_s']} s; whole machine {r['machine_cores_busy']} of {r['cores']} cores busy, "
          f"{r['machine_cores_stolen']} stolen by the hypervisor; other processes {r['other_cores_busy']} cores")
    c = r.get("chat")
    if c:
        cl = c["post_latency_ms"]
        print(f"chat                a message per player every {c['every_s']:g} s: {c['kept']} kept ({c['per_s']}/s), "
              f"refused {c['refused'] or 0}; {c['received']} pushed to the players' sockets")
        print(f"  chat post latency p50 {ms(cl['p50'])}  p99 {ms(cl['p99'])}  max {ms(cl['max'])}")
    target = lat["p99"] is not None and lat["p99"] < 100 and r["errors"] == 0
    print(f"target              p99 under 100 ms at {r['concurrent_games']} games"
          f"{' with chat' if c else ''}: {'met' if target else 'MISSED'}")
    d = r.get("bot_decisions")
    if d:
        sm, wm = d["search_ms"], d["wall_ms"]
        print(f"bots                {r['bot_games']} games against the {r['bot_level']} bot, {d['decisions']} decisions: "
              f"search p50 {ms(sm['p50'])} p99 {ms(sm['p99'])} max {ms(sm['max'])} (level budget "
              f"{d['level_budget_ms']} ms); asked to answered p50 {ms(wm['p50'])} p99 {ms(wm['p99'])}")
        where = (f"{r['workers_remote']} remote worker processes (CPU {r.get('workers_remote_cpu_s')} s)"
                 if r.get("workers_remote") else "each server's own pool")
        print(f"  throughput        {d.get('per_s')} decisions/s over the run, searched in {where}; "
              f"{r['workers']} server process(es)")
        if d["level_budget_ms"] and sm["p99"] is not None:
            kept = sm["p99"] <= 1.1 * d["level_budget_ms"]
            print(f"  budget            search p99 within budget + 10%: {'met' if kept else 'MISSED'}")
    b = r.get("signup_burst")
    if b:
        print(f"sign-up burst       {b['signups']} in {b['seconds']:g} s from {b['addresses']} address(es): "
              f"answers {b['answers']}")
        print(f"  server memory     {b['rss_mb_before']} MB before, {b['rss_mb_peak']} MB at the peak during the burst")
        lb, ld = b["latency_ms_before"], b["latency_ms_during"]
        print(f"  game latency      before: p50 {ms(lb['p50'])} p99 {ms(lb['p99'])}; "
              f"during: p50 {ms(ld['p50'])} p99 {ms(ld['p99'])} ({b['samples_during']} samples)")


def print_arena(r: dict[str, Any]) -> None:
    lat, pair = r["latency_ms"], r["pairing_latency_ms"]

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f} ms"

    print(f"arena               {r['arena_players']} players; {r['games']} games started, {r['finished_games']} finished "
          f"(mean live {r['mean_live_games']}; think time {r['think_ms']:g} ms)")
    print(f"actions             {r['actions']} in {r['duration_s']:.1f} s = {r['actions_per_s']:.1f} actions/s")
    print(f"action latency      p50 {ms(lat['p50'])}  p99 {ms(lat['p99'])}  max {ms(lat['max'])} ({r['latency_samples']} samples)")
    print(f"pairing latency     p50 {ms(pair['p50'])}  p99 {ms(pair['p99'])}  max {ms(pair['max'])} "
          f"({r['pairing_samples']} re-pairings; read every 100 ms)")
    print(f"errors              {r['errors']}" + (f"  {r['error_messages']}" if r["errors"] else "")
          + f"; unexpected disconnects {r['disconnects']}; server CPU {r['server_cpu_s']} s")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def on_term(_signo: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored
    workdir = Path(tempfile.mkdtemp(prefix="low-bench-"))
    server: Server | None = None
    try:
        with fresh_database(args.database_url, workdir) as (db_url, db_kind):
            port = args.port or free_port()
            if not args.json:
                cost = ("Argon2 at the default cost" if args.full_argon2 else
                        "Argon2 cost lowered for the sign-ups: LOW_ARGON2_TIME_COST=1 LOW_ARGON2_MEMORY_KIB=8192")
                print(f"starting the server on {HOST}:{port} ({db_kind}; {cost}; LOW_BOT_DELAY=0) ...", flush=True)
            remote = RemoteWorkers(args.workers_remote, args.redis_url, workdir) if args.workers_remote else None
            server = Server(db_url, workdir, port, args.workers, args.redis_url, args.full_argon2, remote and remote.env)
            try:
                start_s = server.wait_ready()
                args.server_pid = server.proc.pid
                bench = Bench(args, server.base)
                if not args.json:
                    print(f"signing up {2 * args.games + args.bot_games} players, starting {args.games} games"
                          f"{f' and {args.bot_games} against the {args.bot_level} bot' if args.bot_games else ''}, then playing for "
                          f"up to {args.duration:g} s ...", flush=True)
                timeout = SETUP_TIMEOUT_S + args.duration + 4 * GRACE_S + 30
                result = asyncio.run(asyncio.wait_for(bench.arena() if args.arena else bench.run(), timeout))
                result["database"] = db_kind
                result["workers"] = args.workers
                result["server_start_s"] = round(start_s, 2)
                result["argon2"] = {"time_cost": 3, "memory_kib": 65536} if args.full_argon2 else {"time_cost": 1, "memory_kib": 8192}
                result["bot_decisions"] = bot_figures(server.bot_times_path, args.bot_level) if args.bot_games else None
                result["workers_remote"] = args.workers_remote
                if remote is not None:
                    result["workers_remote_cpu_s"] = remote.cpu_s()
                if result["bot_decisions"]:
                    result["bot_decisions"]["per_s"] = round(result["bot_decisions"]["decisions"] / max(result["duration_s"], 1e-9), 2)
                if server.proc.poll() is not None:
                    result["errors"] += 1
                    result["error_messages"]["server exited"] = 1
            finally:
                server.stop()
                if remote is not None:
                    remote.stop()
                tail = server.log_tail(200)
                if any(w in tail for w in ("Traceback", "ERROR", "Exception")):
                    print(f"--- the server's log (last lines) ---\n{server.log_tail(40)}", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted; the server is stopped", file=sys.stderr)
        return 130
    except (RuntimeError, OSError, TimeoutError, httpx.HTTPError, ConnectionClosed) as exc:
        print(f"the benchmark failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    elif args.arena:
        print_arena(result)
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
