"""The bot API's streams at scale (docs/bot-api.md, Streams): a cap on open streams per token and
per account, in one process and across processes with Redis (a killed process's places run
out); event streams told of changes at once instead of polling; unknown tokens limited per
address before any lookup; and Redis channels named per installation."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from lordsofwar.web import botapi
from lordsofwar.web.app import create_app
from tests.web.conftest import Player, database, new_game, settings_for
from tests.web.server import running_server, server_process
from tests.web.test_bot_api import Human, Stream, bot_account

REDIS = os.environ.get("LOW_TEST_REDIS", "redis://127.0.0.1:6379/0")
# no safety look and a long keep-alive: whatever a stream tells within a few seconds was pushed
QUIET = {"LOW_BOT_KEEPALIVE": "30", "LOW_BOT_STREAM_POLL": "3600", "LOW_BOT_API_RATE": "100000"}


def redis_or_skip() -> None:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")


def open_stream(base: str, token: str) -> httpx.Response:
    """Open an event stream and hand back its answer at once (a refusal, or the stream's head)."""
    client = httpx.Client(base_url=base, timeout=httpx.Timeout(10.0))
    ctx = client.stream("GET", "/api/bot/stream/event", headers={"Authorization": f"Bearer {token}"})
    response = ctx.__enter__()

    def close() -> None:
        ctx.__exit__(None, None, None)
        client.close()

    response.extensions["close"] = close
    return response


def close(response: httpx.Response) -> None:
    response.extensions["close"]()


def refused(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 429, response.status_code
    response.read()
    body = dict(response.json())
    close(response)
    return body


# --- the cap, in one process ----------------------------------------------------------------------------


def test_a_token_and_an_account_hold_only_a_few_streams(tmp_path: Path) -> None:
    env = {**QUIET, "LOW_BOT_STREAMS_PER_TOKEN": "2", "LOW_BOT_STREAMS_PER_ACCOUNT": "3"}
    with running_server(tmp_path, port=None, **env) as base, ExitStack() as stack:
        owner, first = bot_account(base, "capbot")
        second = owner.token(["bot:play"])
        held = [open_stream(base, first), open_stream(base, first)]
        for r in held:
            stack.callback(close, r)
            assert r.status_code == 200
        body = refused(open_stream(base, first))  # the token's third
        assert body["code"] == "streams" and "token" in body["detail"] and "2" in body["detail"]
        other = open_stream(base, second)  # another token of the account: its third stream
        stack.callback(close, other)
        assert other.status_code == 200
        body = refused(open_stream(base, second))  # the account's fourth
        assert body["code"] == "streams" and "account" in body["detail"] and "3" in body["detail"]
        # in German too, with the same code
        r = httpx.get(
            base + "/api/bot/stream/event",
            headers={"Authorization": f"Bearer {first}", "Accept-Language": "de"},
            timeout=10,
        )
        assert r.status_code == 429 and r.json()["code"] == "streams" and "Token" in r.json()["detail"]
        assert "token has" not in r.json()["detail"]
        # a closed stream frees its place at once
        close(held.pop())
        deadline = time.monotonic() + 5
        while True:
            again = open_stream(base, first)
            if again.status_code == 200 or time.monotonic() > deadline:
                break
            refused(again)
            time.sleep(0.1)
        stack.callback(close, again)
        assert again.status_code == 200
        # game streams are counted on each game
        human = Human(base, "caphuman")
        inv = human.challenge("capbot")
        game = httpx.post(f"{base}/api/bot/challenge/{inv}/accept", headers={"Authorization": f"Bearer {first}"})
        path = f"/api/bot/game/stream/{game.json()['game']}"
        games = [Stream(base, path, first), Stream(base, path, first)]
        for s in games:
            stack.callback(s.close)
        r = httpx.get(base + path, headers={"Authorization": f"Bearer {first}"}, timeout=10)
        assert r.status_code == 429 and r.json()["code"] == "streams"


def test_event_streams_are_told_at_once_without_polling(tmp_path: Path) -> None:
    """No safety look and a 30 s keep-alive: each event arrives within a read timeout of 10 s
    only because the change is pushed to the stream."""
    with running_server(tmp_path, port=None, **QUIET) as base:
        _owner, token = bot_account(base, "pushbot")
        human = Human(base, "pushhuman")
        events, twin = Stream(base, "/api/bot/stream/event", token), Stream(base, "/api/bot/stream/event", token)
        try:
            inv = human.challenge("pushbot")
            for stream in (events, twin):
                assert stream.until("challenge")["challenge"]["id"] == inv
            cancelled = human.challenge("pushbot")
            assert events.until("challenge")["challenge"]["id"] == cancelled
            assert human.post(f"/api/invitations/{cancelled}/cancel").status_code == 200
            assert events.until("challengeCanceled")["challenge"] == {"id": cancelled, "status": "cancelled"}
            auth = {"Authorization": f"Bearer {token}"}
            game = httpx.post(f"{base}/api/bot/challenge/{inv}/accept", headers=auth).json()["game"]
            assert events.until("gameStart")["game"]["id"] == game
            assert human.post(f"/api/games/{game}/resign").status_code == 200
            assert events.until("gameFinish")["game"]["id"] == game
            # the twin stream missed nothing either, in the same order
            kinds = [twin.until(kind)["type"] for kind in ("challenge", "challengeCanceled", "gameStart", "gameFinish")]
            assert kinds == ["challenge", "challengeCanceled", "gameStart", "gameFinish"]
        finally:
            events.close()
            twin.close()


# --- across processes, with Redis ---------------------------------------------------------------------------


def test_the_cap_holds_across_processes_and_a_killed_process_frees_its_places(tmp_path: Path) -> None:
    redis_or_skip()
    env = {
        **QUIET,
        "LOW_REDIS_URL": REDIS,
        "LOW_REDIS_PREFIX": f"test-{uuid.uuid4().hex[:8]}",
        "LOW_BOT_STREAMS_PER_TOKEN": "2",
        "LOW_BOT_STREAMS_PER_ACCOUNT": "8",
        "LOW_BOT_STREAM_LEASE": "2",
    }
    with database("postgresql", tmp_path) as url, ExitStack() as stack:
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        proc_a, here = stack.enter_context(server_process(tmp_path / "a", port=None, LOW_DATABASE_URL=url, **env))
        _proc_b, there = stack.enter_context(server_process(tmp_path / "b", port=None, LOW_DATABASE_URL=url, **env))
        _owner, token = bot_account(here, "farcap")
        kept = [open_stream(here, token), open_stream(here, token)]
        assert [r.status_code for r in kept] == [200, 200]
        assert refused(open_stream(there, token))["code"] == "streams"  # the count is shared
        # a change made on the other process reaches the stream through Redis, at once
        human = Human(there, "farcaphuman")
        inv = human.challenge("farcap")
        line = ""
        lines = kept[0].iter_lines()
        while not line:
            line = next(lines)
        assert json.loads(line)["challenge"]["id"] == inv
        # the places outlive a renewal (the lease is 2 s) while the streams are open
        time.sleep(3)
        assert refused(open_stream(there, token))["code"] == "streams"
        # killed: no goodbye to Redis; its places run out after the lease
        proc_a.send_signal(signal.SIGKILL)
        proc_a.wait()
        for r in kept:
            with suppress(Exception):  # its server is gone
                close(r)
        deadline = time.monotonic() + 10
        while True:
            again = open_stream(there, token)
            if again.status_code == 200:
                break
            refused(again)
            assert time.monotonic() < deadline, "the killed process's places never ran out"
            time.sleep(0.3)
        close(again)


def test_two_installations_on_one_redis_do_not_hear_each_other(db_url: str) -> None:
    """Three processes on one database and one Redis: B has A's prefix and hears A's moves; C has
    another prefix and never hears them (its copy of the game stays where it was)."""
    redis_or_skip()
    mine, theirs = f"test-{uuid.uuid4().hex[:8]}", f"test-{uuid.uuid4().hex[:8]}"
    app_a = create_app(settings_for(db_url, redis_url=REDIS, redis_prefix=mine))
    app_b = create_app(settings_for(db_url, redis_url=REDIS, redis_prefix=mine), run_migrations=False)
    app_c = create_app(settings_for(db_url, redis_url=REDIS, redis_prefix=theirs), run_migrations=False)
    assert app_a.state.hub.channel.startswith(mine + ":") and app_c.state.hub.channel.startswith(theirs + ":")
    with TestClient(app_a) as ca, TestClient(app_b) as cb, TestClient(app_c) as cc:
        alice, bob = Player(ca, "alice").signup(), Player(ca, "bob").signup()
        game = new_game(alice, bob)
        watchers = []
        for client in (cb, cc):
            viewer = Player(client, "bob")
            viewer.cookies = dict(bob.cookies)
            viewer.refresh()
            assert viewer.state(game)["game"]["version"] == 0  # each process caches the game
            watchers.append(client.app.state.service)  # type: ignore[attr-defined]
        legal = alice.state(game)["legal"]  # new_game seats alice first
        assert alice.act(game, legal[0], 0).status_code == 200
        deadline = time.monotonic() + 5
        while watchers[0].runtimes[game].game.version < 1:
            assert time.monotonic() < deadline, "the same installation never heard the move"
            time.sleep(0.05)
        time.sleep(1.0)  # ample time for a message to arrive, were it sent on C's channel
        assert watchers[1].runtimes[game].game.version == 0


# --- unknown tokens ------------------------------------------------------------------------------------------


def test_unknown_tokens_are_limited_per_address_before_any_lookup(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    looked: list[str] = []
    real = botapi.service.bearer_user

    async def counted(sessions: Any, token: str) -> Any:
        looked.append(token)
        return await real(sessions, token)

    monkeypatch.setattr(botapi.service, "bearer_user", counted)
    with TestClient(create_app(settings_for(db_url, bad_tokens_per_address=5))) as client:
        alice = Player(client, "alice").signup()
        good = alice.post("/api/tokens", {"description": "x", "scopes": ["bot:play"]}).json()["token"]
        client.cookies.clear()
        auth = {"Authorization": f"Bearer {good}"}
        assert client.get("/api/bot/account", headers=auth).status_code == 200  # a known token counts nothing
        for i in range(5):
            r = client.get("/api/bot/account", headers={"Authorization": f"Bearer low_guess{i}"})
            assert r.status_code == 401
        assert len(looked) == 6
        r = client.get("/api/bot/account", headers={"Authorization": "Bearer low_guess-next"})
        assert r.status_code == 429
        assert 1 <= int(r.headers["retry-after"]) <= 900
        assert "unknown tokens" in r.json()["detail"]
        assert len(looked) == 6  # refused before the lookup
        # from that address even a good token waits (a guesser cannot tell a hit by its answer)
        assert client.get("/api/bot/account", headers=auth).status_code == 429
        assert len(looked) == 6
