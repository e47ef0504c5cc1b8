"""Friends, presence and blocking over the API (SQLite and PostgreSQL): following, the friends
list with who is online, blocks that stop challenges and chat and hide presence, blocks kept
private, bad input; presence across two app instances sharing Redis, and its fade."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lordsofwar.web.app import create_app
from lordsofwar.web.social.presence import Presence
from tests.web.conftest import Player, new_game, settings_for

REDIS = os.environ.get("LOW_TEST_REDIS", "redis://127.0.0.1:6379/0")
OPTS = {"creator_side": "1", "creator_army": "orcs", "opponent_army": "dwarves"}


def friends(p: Player) -> dict[str, Any]:
    r = p.get("/api/friends")
    assert r.status_code == 200, r.text
    return dict(r.json())


def online_of(p: Player, name: str) -> bool | None:
    r = p.get(f"/api/players/{name}/relation")
    assert r.status_code == 200, r.text
    value: bool | None = r.json()["online"]
    return value


def test_follow_unfollow_and_bad_input(client: TestClient, alice: Player, bob: Player) -> None:
    carol = Player(client, "carol").signup()
    assert friends(alice)["friends"] == []
    for name in ("carol", "BOB", "bob"):  # names match whatever their case; twice changes nothing
        r = alice.post(f"/api/players/{name}/follow")
        assert r.status_code == 200, r.text
        assert r.json()["following"] is True and r.json()["blocking"] is False
    assert [f["name"] for f in friends(alice)["friends"]] == ["bob", "carol"]
    assert friends(bob)["friends"] == []  # following is one-way
    r = alice.send("DELETE", "/api/players/carol/follow")
    assert r.status_code == 200 and r.json()["following"] is False
    assert [f["name"] for f in friends(alice)["friends"]] == ["bob"]
    del carol
    alice.send("DELETE", "/api/players/bob/follow")
    # bad input: no such player, one's own name, an over-long name, a forged token; nothing changes
    for method, path in (("POST", "follow"), ("DELETE", "follow"), ("POST", "block"), ("DELETE", "block")):
        r = alice.send(method, f"/api/players/nobody-here/{path}")
        assert r.status_code == 404 and "nobody-here" in r.json()["detail"], r.text
        r = alice.send(method, f"/api/players/alice/{path}")
        assert r.status_code == 403, r.text
        r = alice.send(method, f"/api/players/{'x' * 101}/{path}")
        assert r.status_code == 422, r.text
        r = alice.send(method, "/api/players/bob/" + path, csrf="forged")
        assert r.status_code == 403 and "CSRF" in r.json()["detail"], r.text
    assert friends(alice) == {"friends": [], "blocks": [], "online": 0}
    client.cookies.clear()
    r = client.post("/api/players/alice/follow")
    assert r.status_code in (401, 403)


def test_presence_of_a_friend_follows_their_sockets(client: TestClient, alice: Player, bob: Player) -> None:
    alice.post("/api/players/bob/follow")
    presence: Presence = client.app.state.presence  # type: ignore[attr-defined]
    presence.fade = 0.3
    assert friends(alice)["friends"] == [{"name": "bob", "online": False}]
    with bob.use().websocket_connect("/api/presence/ws"):
        time.sleep(0.05)
        assert friends(alice)["friends"] == [{"name": "bob", "online": True}]
        assert online_of(alice, "bob") is True
        assert friends(alice)["online"] == 1
        r = alice.get("/api/online")
        assert r.json() == {"count": 1}
    time.sleep(0.05)
    assert friends(alice)["friends"][0]["online"] is True  # fading, not gone at once
    time.sleep(0.4)
    assert friends(alice)["friends"][0]["online"] is False
    game = new_game(alice, bob)
    with bob.socket(game):  # a game's socket counts as well
        time.sleep(0.05)
        assert friends(alice)["friends"][0]["online"] is True
    # signed out elsewhere (as a ban does): the presence socket of that session is closed
    time.sleep(0.4)
    with bob.use().websocket_connect("/api/presence/ws") as ws:
        elsewhere = Player(client, "bob")
        elsewhere.refresh()
        assert elsewhere.post("/api/signin", {"name": "bob", "password": bob.password}).status_code == 200
        elsewhere.refresh()
        assert elsewhere.post("/api/account/sessions/others").status_code == 200
        assert ws.receive()["code"] == 4401
    time.sleep(0.4)
    assert friends(alice)["friends"][0]["online"] is False
    # a visitor: no names, no presence
    client.cookies.clear()
    assert client.get("/api/friends").status_code == 401
    assert client.get("/api/players/bob/relation").status_code == 401


def test_a_block_stops_challenges_and_hides_presence(client: TestClient, alice: Player, bob: Player) -> None:
    carol = Player(client, "carol").signup()
    assert client.portal is not None
    ids = [client.portal.call(_user_id, client, name) for name in ("alice", "bob")]
    assert client.portal.call(_either, client, ids[0], ids[1]) is False
    to_alice = bob.post("/api/invitations", {"opponent": "alice", "options": OPTS}).json()["invitation"]
    from_alice = alice.post("/api/invitations", {"opponent": "bob", "options": OPTS}).json()["invitation"]
    to_carol = bob.post("/api/invitations", {"opponent": "carol", "options": OPTS}).json()["invitation"]
    open_one = bob.post("/api/invitations", {"options": OPTS}).json()["invitation"]
    bob.post("/api/players/alice/follow")
    r = alice.post("/api/players/bob/block")
    assert r.status_code == 200 and r.json() == {"name": "bob", "following": False, "blocking": True, "online": False}
    assert client.portal.call(_either, client, ids[0], ids[1]) is True  # chat's question, either way round
    assert client.portal.call(_either, client, ids[1], ids[0]) is True
    # the challenges between them are withdrawn; the others stand
    outgoing = {i["id"] for i in bob.get("/api/lobby").json()["outgoing"]}
    assert to_alice not in outgoing and to_carol in outgoing and open_one in outgoing
    assert from_alice not in {i["id"] for i in alice.get("/api/lobby").json()["outgoing"]}
    # neither can challenge the other, nor accept the other's open challenge; the refusal names no blocker
    for a, b in ((bob, "alice"), (alice, "bob")):
        r = a.post("/api/invitations", {"opponent": b, "options": OPTS})
        assert r.status_code == 403 and r.json()["code"] == "blocked", r.text
        assert "block" not in r.json()["detail"]
    assert open_one not in {i["id"] for i in alice.get("/api/lobby").json()["open"]}  # not shown to her
    assert open_one in {i["id"] for i in carol.get("/api/lobby").json()["open"]}
    r = alice.post(f"/api/invitations/{open_one}/accept")
    assert r.status_code == 403 and r.json()["code"] == "blocked"
    # bob follows alice but no longer sees whether she is online; the reverse holds too
    with alice.use().websocket_connect("/api/presence/ws"), bob.use().websocket_connect("/api/presence/ws"):
        time.sleep(0.05)
        assert friends(bob)["friends"] == [{"name": "alice", "online": False}]
        assert online_of(bob, "alice") is False  # as if she were offline: the block stays untold
        assert online_of(alice, "bob") is False
        assert online_of(carol, "alice") is True
    # privacy: bob's view of alice says nothing of the block; the profile neither
    r = bob.get("/api/players/alice/relation")
    assert r.json() == {"name": "alice", "following": True, "blocking": False, "online": False}
    assert friends(bob)["blocks"] == [] and friends(alice)["blocks"] == ["bob"]
    assert bob.get("/players/alice").text.count('data-blocking="true"') == 0
    assert alice.get("/players/bob").text.count('data-blocking="true"') == 1
    # unblocking lets them play again
    r = alice.send("DELETE", "/api/players/bob/block")
    assert r.status_code == 200 and r.json()["blocking"] is False
    assert bob.post("/api/invitations", {"opponent": "alice", "options": OPTS}).status_code == 201
    assert friends(alice)["blocks"] == []


async def _either(client: TestClient, a: int, b: int) -> bool:
    from lordsofwar.web.social.service import blocked_either

    async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
        return await blocked_either(db, a, b)


async def _user_id(client: TestClient, name: str) -> int:
    from lordsofwar.web.accounts.service import find_user

    async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
        user = await find_user(db, name)
        assert user is not None
        return user.id


def test_presence_across_two_instances_with_redis(tmp_path: Path) -> None:
    """Two app instances (as two server processes) on one database and one Redis: a socket open
    on one makes the player online on the other, and the fade runs out on both. Presence lives
    in Redis alone: one database kind is enough."""
    db_url = f"sqlite:///{tmp_path / 'low.sqlite3'}"
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")
    prefix = f"test-{uuid.uuid4().hex[:8]}"
    fade = 0.6
    app_a = create_app(settings_for(db_url, redis_url=REDIS, redis_prefix=prefix, presence_fade=fade))
    app_b = create_app(settings_for(db_url, redis_url=REDIS, redis_prefix=prefix, presence_fade=fade), run_migrations=False)
    with TestClient(app_a) as ca, TestClient(app_b) as cb:
        alice, bob = Player(ca, "alice").signup(), Player(ca, "bob").signup()
        alice.post("/api/players/bob/follow")
        on_b = Player(cb, "alice")
        on_b.cookies = dict(alice.cookies)
        on_b.refresh()

        def seen() -> bool:
            return bool(friends(on_b)["friends"][0]["online"])

        assert not seen()
        with bob.use().websocket_connect("/api/presence/ws"):
            deadline = time.monotonic() + 3
            while not seen():
                assert time.monotonic() < deadline, "the other instance never saw bob come online"
                time.sleep(0.02)
            time.sleep(fade * 1.5)  # renewed while the socket stays open
            assert seen() and cb.get("/api/online").json()["count"] == 1
        closed = time.monotonic()
        time.sleep(0.1)
        assert seen() or time.monotonic() - closed > fade  # fading
        deadline = closed + fade + 2
        while seen():
            assert time.monotonic() < deadline, "bob never faded out"
            time.sleep(0.05)
        assert time.monotonic() - closed >= fade * 0.8
        assert cb.get("/api/online").json()["count"] == 0
