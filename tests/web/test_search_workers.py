"""Search workers over Redis Streams (lordsofwar.web.workers): real `lordsofwar serve` processes
on PostgreSQL with LOW_BOT_WORKERS=0 and real `lordsofwar worker` processes on Redis. A bot game
is played to its end by remote workers alone, and a job carries only the bot's view; a worker
killed mid-search (kill -9) leaves its job to another and the move is made once; two servers and
three workers, restarted while the games run, finish every game and answer every hint, each job
answered once."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from lordsofwar import core
from lordsofwar.web.workers import jobs, status
from tests.web.conftest import database
from tests.web.server import server_process

REDIS = os.environ.get("LOW_TEST_REDIS", "redis://127.0.0.1:6379/0")

pytestmark = pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="the search bots need the compiled core")


@pytest.fixture(scope="module")
def redis() -> Iterator[Any]:
    from redis import Redis
    from redis.exceptions import RedisError

    client = Redis.from_url(REDIS, decode_responses=True)
    try:
        client.ping()
    except RedisError as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")
    yield client
    client.close()


def _forget(redis: Any, prefix: str) -> None:
    keys = list(redis.scan_iter(f"{prefix}:*"))
    if keys:
        redis.delete(*keys)


@pytest.fixture
def prefix(redis: Any) -> Iterator[str]:
    name = f"low-test-{uuid.uuid4().hex[:10]}"
    yield name
    _forget(redis, name)


@dataclass
class Site:
    prefix: str
    bases: list[str]
    root: Path


@pytest.fixture(scope="module")
def site(redis: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """Two server processes on one fresh PostgreSQL database, every search sent to the workers
    (started together once the schema is made; the workers are each test's own)."""
    root = tmp_path_factory.mktemp("search-workers")
    name = f"low-test-{uuid.uuid4().hex[:10]}"
    with database("postgresql", root) as url, ExitStack() as stack:
        env = _env(name, LOW_DATABASE_URL=url, LOW_BOT_WORKERS="0", LOW_BOT_DELAY="0")
        subprocess.run(
            [sys.executable, "-m", "lordsofwar", "db", "upgrade"],
            env={**os.environ, **env},
            check=True,
            capture_output=True,
        )
        starting = []
        for i in range(2):
            data = root / f"server{i}"
            data.mkdir()
            starting.append(server_process(data, None, **env))
        with ThreadPoolExecutor(2) as pool:
            started = [pool.submit(cm.__enter__) for cm in starting]
            bases = []
            for cm, future in zip(starting, started, strict=True):
                try:
                    bases.append(future.result()[1])
                except BaseException:
                    continue
                finally:
                    stack.push(cm.__exit__)
        assert len(bases) == 2, "a server did not start"
        yield Site(name, bases, root)
        _forget(redis, name)


def _env(prefix: str, **more: str) -> dict[str, str]:
    return {"LOW_REDIS_URL": REDIS, "LOW_REDIS_PREFIX": prefix, "LOW_WORKER_CLAIM": "2", **more}


@contextmanager
def worker_process(prefix: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    out = open(log, "ab")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "lordsofwar", "worker"],
        env={**os.environ, **_env(prefix)},
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        out.close()


class Player:
    def __init__(self, base: str, name: str):
        self.http = httpx.Client(base_url=base, timeout=60, limits=httpx.Limits(keepalive_expiry=1.0))
        csrf = self.http.get("/api/session").json()["csrf"]
        r = self.http.post(
            "/api/signup", json={"name": name, "password": "password-123"}, headers={"X-CSRF-Token": csrf}
        )
        assert r.status_code == 201, r.text
        self.http.headers["X-CSRF-Token"] = r.json()["csrf"]

    def bot_game(self, bot: str, **options: Any) -> int:
        body = {"bot": bot, "options": {"length": "15/3", "creator_army": "orcs", "opponent_army": "elves", **options}}
        r = self.http.post("/api/invitations", json=body)
        assert r.status_code == 201, r.text
        return int(r.json()["game"])

    def state(self, game: int) -> dict[str, Any]:
        r = self.http.get(f"/api/games/{game}")
        assert r.status_code == 200, r.text
        return dict(r.json())

    def my_turn(self, game: int, limit: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            s = self.state(game)
            if s["legal"] or s["game"]["status"] != "running":
                return s
            time.sleep(0.05)
        raise AssertionError(f"the bot of game {game} did not answer within {limit} s")

    def act(self, game: int, s: dict[str, Any], rng: random.Random) -> None:
        r = self.http.post(
            f"/api/games/{game}/actions", json={"action": rng.choice(s["legal"]), "version": s["game"]["version"]}
        )
        assert r.status_code in (200, 409), r.text


def bot_actions(s: dict[str, Any], seat: int) -> int:
    return sum(1 for e in s["log"] if e["player"] == seat and e["action"])


def answered(redis: Any, prefix: str, before: set[str] | None = None) -> int:
    """Jobs answered (since ``before``, the marks then): one done mark each (a second answer of a
    job writes none)."""
    return len(marks(redis, prefix) - (before or set()))


def marks(redis: Any, prefix: str) -> set[str]:
    return set(redis.scan_iter(jobs.done_key(prefix, "*"), count=1000))


def wait_for(check: Any, limit: float, what: str) -> Any:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"waited {limit} s for {what}")


def test_a_bot_game_is_played_to_its_end_by_remote_workers_and_a_job_carries_only_the_bots_view(
    tmp_path: Path, redis: Any, site: Site
) -> None:
    prefix, base = site.prefix, site.bases[0]
    alice = Player(base, "alice")
    game = alice.bot_game("random", creator_side="2", hands="hidden")  # the bot is player 1
    # no worker yet: the bot's first decision waits on the turn stream, as the workers see it
    turn = jobs.stream(prefix, "turn")
    entries = wait_for(lambda: redis.xrange(turn), 30, "the bot's job on the turn stream")
    assert len(entries) == 1 and redis.xlen(jobs.stream(prefix, "hint")) == 0
    fields = entries[0][1]
    assert set(fields) == {"id", "fn", "args", "reply", "sent", "expires"}
    name, seed, view, known, deck, seconds = json.loads(fields["args"])
    assert fields["fn"] == "choose" and name == "random" and known == {"2": []}  # no card of alice known yet
    assert "seed" not in view and view["to_move"] == 1 and view["variant"]["hands"] == "hidden"
    # alice's hidden hand is not in it, nor any deck's order: only the bot's own deck list
    assert view["players"]["2"]["hand"] == [None] * len(view["players"]["2"]["hand"])
    assert all(isinstance(view["players"][p]["deck"], int) for p in ("1", "2"))
    mine = [c for c in alice.state(game)["view"]["players"]["2"]["hand"] if c]
    assert mine and not any(card in fields["args"] for card in mine)
    assert deck is None or all(c.startswith("elves:") for c in deck)  # the bot's own list, no order
    waiting = status.read(redis, prefix)
    assert [q.waiting for q in waiting.queues] == [1, 0, 0] and waiting.workers == []
    assert waiting.queues[0].oldest_wait_s is not None

    with worker_process(prefix, tmp_path / "worker.log"):
        rng = random.Random(5)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            s = alice.my_turn(game)
            if s["game"]["status"] != "running":
                break
            alice.act(game, s, rng)
        s = alice.state(game)
        assert s["game"]["status"] == "over", "the game did not end within 60 s"
        assert bot_actions(s, 1) > 3
        assert answered(redis, prefix) == bot_actions(s, 1)  # each bot action one job, answered once
        seen = status.read(redis, prefix)
        assert len(seen.workers) == 1 and seen.workers[0].done == bot_actions(s, 1)


def test_a_worker_killed_mid_search_leaves_its_job_to_another_and_the_move_is_made_once(
    tmp_path: Path, redis: Any, site: Site
) -> None:
    prefix, base = site.prefix, site.bases[1]
    alice = Player(base, "bea")
    before = marks(redis, prefix)
    with worker_process(prefix, tmp_path / "a.log") as first:

        def searching() -> bool:
            return any(w.current.startswith("turn choose") for w in status.read(redis, prefix).workers)

        # the general searches about a second a decision: killed in the middle of the first
        game = alice.bot_game("general", creator_side="2")
        wait_for(searching, 30, "the first worker searching the bot's turn")
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert alice.state(game)["game"]["version"] == 0  # nobody answered
    assert status.read(redis, prefix).queues[0].running == 1  # the job is still pending
    with worker_process(prefix, tmp_path / "b.log") as second:
        s = alice.my_turn(game)
        assert bot_actions(s, 1) >= 1 and s["game"]["status"] == "running"
        assert s["log"][0]["player"] == 1
        [other] = [w for w in status.read(redis, prefix).workers if w.pid == second.pid]
        assert int(redis.hget(jobs.worker_key(prefix, other.name), "taken_over")) == 1
        assert answered(redis, prefix, before) == bot_actions(s, 1)  # every bot action chosen once, none twice
        assert alice.http.post(f"/api/games/{game}/resign").status_code == 200


def test_two_servers_and_three_workers_restarted_mid_play_finish_every_game_and_answer_every_hint(
    tmp_path: Path, redis: Any, site: Site
) -> None:
    """Four bot games (two per server; four, not twenty, to keep within the suite's time) played
    at once, each player asking two hints; three workers, each stopped (SIGTERM: it finishes its
    search) and started again while the games run."""
    prefix, bases = site.prefix, site.bases
    before = marks(redis, prefix)
    with ExitStack() as stack:
        procs = [stack.enter_context(worker_process(prefix, tmp_path / f"w{i}.log")) for i in range(3)]
        players = [Player(bases[i % 2], f"player{i}") for i in range(4)]
        games = [p.bot_game("random", hints=True, creator_side="1") for p in players]
        hints: list[set[int]] = [set() for _ in players]
        failures: list[str] = []

        def play(i: int) -> None:
            rng = random.Random(i)
            try:
                for move in range(400):
                    s = players[i].my_turn(games[i])
                    if s["game"]["status"] != "running":
                        return
                    if move in (3, 12):  # hints: the top level searches them, in the workers
                        r = players[i].http.post(f"/api/games/{games[i]}/hint")
                        assert r.status_code == 200, r.text
                        assert r.json()["action"] in s["legal"]
                        hints[i].add(s["game"]["version"])
                    players[i].act(games[i], s, rng)
            except Exception as exc:  # reported by the test's thread
                failures.append(f"game {games[i]}: {type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=play, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        restarted = 0
        for n in range(3):  # one worker at a time goes and comes back while the games run
            time.sleep(1.0)
            if all(t.is_alive() for t in threads):
                restarted += 1
            procs[n].send_signal(signal.SIGTERM)
            assert procs[n].wait(30) == 0
            procs[n] = stack.enter_context(worker_process(prefix, tmp_path / f"w{n}b.log"))
        for t in threads:
            t.join(90)
        assert not failures, failures
        assert restarted >= 1, "no worker was restarted while every game ran"
        states = [p.state(g) for p, g in zip(players, games, strict=True)]
        assert all(s["game"]["status"] == "over" for s in states)
        assert all(len(h) == 2 for h in hints)
        bot_moves = sum(bot_actions(s, 2) for s in states)
        # nothing lost, nothing answered twice: one answer per bot action and per hint
        assert answered(redis, prefix, before) == bot_moves + sum(len(h) for h in hints)
        assert all(q.waiting == 0 and q.running == 0 for q in status.read(redis, prefix).queues)


def test_a_worker_takes_bot_turns_before_hints_before_analyses_whatever_came_first(redis: Any, prefix: str) -> None:
    """One worker, jobs queued analysis first and a bot's turn last: it answers the turn first."""
    from lordsofwar.rules import notation
    from lordsofwar.rules.cards import CORE
    from lordsofwar.web.workers.worker import Worker

    pos = notation.deal([CORE.standard_deck("orcs"), CORE.standard_deck("elves")], 7, armies=["orcs", "elves"])
    args = json.dumps(["random", 1, notation.view_json(pos, 1), {}, None, None])
    worker = Worker(REDIS, prefix)
    worker.prepare()
    reply = jobs.reply_stream(prefix, "test")
    later = f"{time.time() + 60}"
    for kind in ("analysis", "hint", "turn"):
        fields = {"id": kind, "fn": "choose", "args": args, "reply": reply, "sent": f"{time.time()}", "expires": later}
        redis.xadd(jobs.stream(prefix, kind), fields)
    assert [q.waiting for q in status.read(redis, prefix).queues] == [1, 1, 1]
    while worker.step(block=False):
        pass
    answers = redis.xrange(reply)
    assert [fields["job"] for _id, fields in answers] == ["turn", "hint", "analysis"]
    chosen = json.loads(answers[0][1]["reply"])["result"][0]
    assert chosen in {str(a) for a in pos.legal_actions()}
    # a job answered already (a worker thought dead that finished after all) is not answered again
    redis.xadd(
        jobs.stream(prefix, "turn"),
        {"id": "turn", "fn": "choose", "args": args, "reply": reply, "sent": "0", "expires": later},
    )
    assert worker.step(block=False) and worker.tally.done == 3 and worker.tally.dropped == 1
    assert redis.xlen(reply) == 3 and all(q.waiting + q.running == 0 for q in status.read(redis, prefix).queues)
    worker._leave()


def test_hints_analysis_decisions_and_mistake_scores_come_back_from_a_worker_as_from_the_pool(
    redis: Any, prefix: str
) -> None:
    """Every kind of job through Redis and back (JSON both ways): the answers are the local
    functions' answers for the same arguments."""
    import asyncio

    from lordsofwar.bots import TOP
    from lordsofwar.bots.analysis import decisions_of
    from lordsofwar.rules import notation
    from lordsofwar.rules.cards import CORE
    from lordsofwar.web.games.botpool import HINT, hint_job, judge_job
    from lordsofwar.web.mistakes.judging import scores_job
    from lordsofwar.web.workers.remote import RemotePool
    from lordsofwar.web.workers.worker import Worker

    decks = [CORE.standard_deck("orcs"), CORE.standard_deck("elves")]
    pos = notation.deal(decks, 7, armies=["orcs", "elves"])
    rng = random.Random(2)
    actions = []
    for _ in range(12):
        action = rng.choice(pos.legal_actions())
        actions.append(str(action))
        pos.push(action)
    record = notation.GameRecord(decks, 7, pos.variant, ["a", "b"], actions, None)
    decision = decisions_of(record)[-1]
    worker = Worker(REDIS, prefix)
    worker.prepare()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            if not worker.step(block=False):
                time.sleep(0.01)

    async def ask() -> list[Any]:
        pool = RemotePool(REDIS, prefix)
        try:
            return [
                await pool.hint(
                    decision["view"], {int(p): c for p, c in decision["known"].items()}, decision["deck"], 3
                ),
                await pool.judge(decision, TOP, 5, 40),
                await pool.run(scores_job, decision, TOP, 5, 40, priority=HINT),
            ]
        finally:
            await pool.aclose()

    thread = threading.Thread(target=work)
    thread.start()
    try:
        hint, judged, scores = asyncio.run(ask())
    finally:
        stop.set()
        thread.join()
    known = {int(p): c for p, c in decision["known"].items()}
    assert judged == json.loads(json.dumps(judge_job(decision, TOP, 5, 40)))
    assert scores == json.loads(json.dumps(scores_job(decision, TOP, 5, 40)))
    # a hint's search stops on time, so its choice may differ run to run: the same answer's shape,
    # an action of that view
    assert set(hint) == set(hint_job(decision["view"], known, decision["deck"], 3))
    view = notation.parse_position(decision["view"])
    assert hint["action"] in {str(a) for a in view.legal_actions()}
    assert worker.tally.done == 3
