"""Two server processes sharing one database and Redis: an action taken on one reaches the
players connected to the other, and a stale copy in one process never overwrites the other's
change (SQLite and PostgreSQL, with the local Redis)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar.web.app import create_app
from lordsofwar.web.games import hub as hub_module
from tests.web.conftest import REDIS, Player, new_game, play_opening, settings_for


@pytest.fixture
def redis_url(monkeypatch: pytest.MonkeyPatch) -> str:
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")
    # a channel of this test's own, so parallel test workers do not hear each other
    monkeypatch.setattr(hub_module, "CHANNEL", f"lordsofwar:test:{uuid.uuid4().hex}")
    return REDIS


def wait_for(ws: Any, version: int) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        msg = json.loads(ws.receive_text())
        if msg.get("game", {}).get("version") == version:
            return dict(msg)
    raise AssertionError(f"version {version} never arrived")


def test_an_action_on_one_server_reaches_sockets_on_the_other(db_url: str, redis_url: str) -> None:
    app_a = create_app(settings_for(db_url, redis_url=redis_url))
    app_b = create_app(settings_for(db_url, redis_url=redis_url), run_migrations=False)
    with TestClient(app_a) as ca, TestClient(app_b) as cb:
        alice, bob = Player(ca, "alice").signup(), Player(ca, "bob").signup()
        game = new_game(alice, bob)
        bob_b = Player(cb, "bob")
        bob_b.cookies = dict(bob.cookies)
        alice_b = Player(cb, "alice")
        alice_b.cookies = dict(alice.cookies)
        alice_b.refresh()
        with bob_b.socket(game) as ws:
            assert json.loads(ws.receive_text())["game"]["version"] == 0
            cached = app_b.state.service.runtimes[game]
            legal = alice.state(game)["legal"]
            assert alice.act(game, legal[0], 0).status_code == 200  # on server A
            seen = wait_for(ws, 1)  # pushed by server B
            assert seen["type"] == "update"  # B applied the action to its cached position
            assert app_b.state.service.runtimes[game] is cached
            assert seen["log"][-1]["action"] == legal[0]
            assert all(c is None for c in seen["view"]["players"]["1"]["hand"])
            assert seen["view"] == alice.state(game)["view"] | {"players": seen["view"]["players"]}
            a_view = Player(ca, "bob")
            a_view.cookies = dict(bob.cookies)
            assert a_view.state(game)["view"] == seen["view"]  # the same view as server A gives bob
        # server B's copy was refreshed: alice continues there
        r = alice_b.act(game, "draw", 1)
        assert r.status_code == 200, r.text
        # server A hears of it on Redis, a moment later (its readers may see version 1 until then)
        deadline = time.monotonic() + 10
        while alice.state(game)["game"]["version"] != 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert alice.state(game)["game"]["version"] == 2


def test_a_stale_process_cannot_overwrite_a_change(db_url: str) -> None:
    # without Redis, server B keeps a stale copy; the version check in the database refuses it
    app_a = create_app(settings_for(db_url))
    app_b = create_app(settings_for(db_url), run_migrations=False)
    with TestClient(app_a) as ca, TestClient(app_b) as cb:
        alice, bob = Player(ca, "alice").signup(), Player(ca, "bob").signup()
        game = new_game(alice, bob)
        alice_b = Player(cb, "alice")
        alice_b.cookies = dict(alice.cookies)
        alice_b.refresh()
        legal = alice_b.state(game)["legal"]  # B caches version 0
        assert alice.act(game, legal[0], 0).status_code == 200
        r = alice_b.act(game, legal[1], 0)
        assert r.status_code == 409
        # B caught up with the database before judging: the request is stale, not B's copy
        assert "stale request" in r.json()["detail"]
        after = alice_b.state(game)  # B reloaded
        assert after["game"]["version"] == 1 and after["log"][0]["action"] == legal[0]


@contextmanager
def _bob_behind(db_url: str) -> Iterator[tuple[Player, Player, Player, int]]:
    """Two apps on one database without Redis (B hears of A's changes only from the database):
    alice and bob on A, a game between them, and bob on B, whose copy of the game is version 0."""
    app_a, app_b = create_app(settings_for(db_url)), create_app(settings_for(db_url), run_migrations=False)
    with TestClient(app_a) as ca, TestClient(app_b) as cb:
        alice, bob = Player(ca, "alice").signup(), Player(ca, "bob").signup()
        game = new_game(alice, bob)
        bob_b = Player(cb, "bob")
        bob_b.cookies = dict(bob.cookies)
        bob_b.refresh()
        assert bob_b.state(game)["game"]["version"] == 0  # B caches version 0
        yield alice, bob, bob_b, game


def test_a_process_behind_the_client_catches_up_instead_of_refusing(db_url: str) -> None:
    with _bob_behind(db_url) as (alice, bob, bob_b, game):
        state = alice.state(game)
        for action in (state["legal"][0], "draw"):  # alice's first turn, on A
            assert alice.act(game, action).status_code == 200
        seen = bob.state(game)  # bob reads version 2 from A, then acts through B
        assert seen["game"]["version"] == 2 and seen["legal"]
        r = bob_b.act(game, seen["legal"][0], 2)
        assert r.status_code == 200, r.text
        assert r.json()["game"]["version"] == 3


def test_a_resignation_racing_an_action_on_another_process_is_not_lost(db_url: str) -> None:
    with _bob_behind(db_url) as (alice, bob, bob_b, game):
        play_opening(game, alice, bob)  # on A: both first turns, so a resignation decides the game
        action = alice.state(game)["legal"][0]
        assert alice.act(game, action).status_code == 200  # on A: version 5
        r = bob_b.post(f"/api/games/{game}/resign")  # B's copy (version 0) is behind when bob resigns there
        assert r.status_code == 200, r.text
        final = bob_b.state(game)  # (A has no Redis here: its copy stays behind until it writes)
        assert final["game"]["status"] == "over" and final["game"]["result"]["winner"] == 1
        log = [e["action"] for e in final["log"]]
        assert len(log) == 6 and log[-2:] == [action, None]  # both kept, in order
