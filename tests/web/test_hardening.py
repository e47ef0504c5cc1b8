"""Hardening from review: bounded ids, bodies limited while they arrive, parallel requests
(sign-in limits, sign-ups, accepts, actions), draw offers and staleness, socket refusals,
slow socket consumers, private data, signed-out sockets (SQLite and PostgreSQL unless noted)."""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from starlette.websockets import WebSocketDisconnect, WebSocketState

from lordsofwar.web.app import create_app
from lordsofwar.web.games import hub
from tests.web.conftest import Player, new_game, settings_for, until

HUGE = 10**30


def replies(ws: Any) -> list[dict[str, Any]]:
    """Every message up to the answer to a ping sent now: a refusal that never comes fails the
    test instead of leaving it waiting for a message forever."""
    ws.send_text(json.dumps({"type": "ping"}))
    got: list[dict[str, Any]] = []
    for _ in range(20):
        msg = json.loads(ws.receive_text())
        if msg["type"] == "pong":
            return got
        got.append(msg)
    raise AssertionError(f"no pong after {got}")


def count(url: str, sql: str, **params: Any) -> int:
    engine = create_engine(settings_for(url).sync_url())
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(sql), params).scalar_one())
    finally:
        engine.dispose()


# --- 1. ids out of range ---------------------------------------------------------------------------


def test_path_ids_out_of_range_are_422_never_500(client: TestClient, alice: Player) -> None:
    anon = Player(client, "nobody")
    for path in (
        "/api/games/99999999999999999999",
        "/api/games/0",
        "/api/games/-1",
        f"/api/games/{2**31}",
        f"/games/{HUGE}",
        f"/api/games/{HUGE}/record",
        f"/api/games/{HUGE}/replay",
    ):
        for who in (alice, anon):
            r = who.get(path)
            assert r.status_code == 422, (path, r.status_code, r.text)
            assert "game_id" in r.json()["detail"], (path, r.text)
    r = alice.post(f"/api/invitations/{HUGE}/accept")
    assert r.status_code == 422, r.text
    assert "inv_id" in r.json()["detail"]
    # the largest id in range is simply not there
    r = alice.get(f"/api/games/{2**31 - 1}")
    assert r.status_code == 404 and "no game" in r.json()["detail"]


def test_websocket_with_an_id_out_of_range_is_refused(client: TestClient, alice: Player) -> None:
    for game_id in (HUGE, 0, -1):
        with pytest.raises(WebSocketDisconnect) as refused, alice.socket(game_id) as ws:
            ws.receive_text()
        assert refused.value.code == 1008, (game_id, refused.value.code, refused.value.reason)
    # in range but absent: refused with the game's 404
    with pytest.raises(WebSocketDisconnect) as refused, alice.socket(2**31 - 1) as ws:
        ws.receive_text()
    assert refused.value.code == 4404


# --- 2. bodies without Content-Length --------------------------------------------------------------


def _chunks(head: bytes, total: int = 70 * 1024) -> Iterator[bytes]:
    yield head
    sent = len(head)
    while sent < total:
        yield b" " * 4096
        sent += 4096


def assert_too_large_and_nothing_written(r: Any, db_url: str, sessions: int) -> None:
    assert "content-length" not in r.request.headers
    assert r.status_code == 413, r.text
    assert "too large" in r.json()["detail"]
    assert "low_session" not in r.headers.get("set-cookie", "")
    assert count(db_url, "SELECT count(*) FROM sessions") == sessions


def test_chunked_body_over_64kb_is_refused_by_the_json_sign_in(client: TestClient, db_url: str, alice: Player) -> None:
    sessions = count(db_url, "SELECT count(*) FROM sessions")
    # valid JSON (trailing blanks) that would sign alice in if the server read it all
    head = json.dumps({"name": "alice", "password": "correct horse"}).encode()
    r = alice.use().post(
        "/api/signin",
        content=_chunks(head),
        headers={"X-CSRF-Token": alice.csrf, "Content-Type": "application/json"},
    )
    assert r.request.headers.get("transfer-encoding") == "chunked"
    assert_too_large_and_nothing_written(r, db_url, sessions)
    # the same body, small, signs in: the refusal was for the size
    r = alice.use().post(
        "/api/signin", content=iter([head]), headers={"X-CSRF-Token": alice.csrf, "Content-Type": "application/json"}
    )
    assert r.status_code == 200, r.text


def test_chunked_body_over_64kb_is_refused_by_the_sign_in_form(client: TestClient, db_url: str, alice: Player) -> None:
    sessions = count(db_url, "SELECT count(*) FROM sessions")
    head = f"name=alice&password=correct+horse&csrf={alice.csrf}&pad=".encode()

    def padded() -> Iterator[bytes]:
        yield head
        for _ in range(20):
            yield b"x" * 4096

    r = alice.use().post(
        "/signin",
        content=padded(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )
    assert_too_large_and_nothing_written(r, db_url, sessions)
    r = alice.use().post(
        "/signin",
        content=iter([head + b"x"]),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text


def test_chunked_body_streamed_in_many_messages_is_refused(db_url: str) -> None:
    """Through httpx's ASGI transport every chunk is its own ASGI message."""
    app = create_app(settings_for(db_url))

    async def main() -> None:
        async with running(app), AsyncUser(app, "alice") as alice:
            await alice.refresh()

            async def body() -> AsyncIterator[bytes]:
                yield b'{"name": "alice", "password": "correct horse"}'
                for _ in range(20):
                    yield b" " * 4096

            r = await alice.http.post(
                "/api/signin", content=body(), headers={"X-CSRF-Token": alice.csrf, "Content-Type": "application/json"}
            )
            assert r.status_code == 413, r.text
            assert "too large" in r.json()["detail"]

    asyncio.run(main())


# --- 3. parallel requests ---------------------------------------------------------------------------


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[FastAPI]:
    """The app's lifespan (ASGITransport does not run it): its engine is disposed at the end."""
    async with app.router.lifespan_context(app):
        yield app


class AsyncUser:
    """One browser: its own AsyncClient, so its own cookies."""

    def __init__(self, app: FastAPI, name: str, password: str = "correct horse"):
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)  # a crash is a 500, not a raise
        self.http = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        self.name = name
        self.password = password
        self.csrf = ""

    async def __aenter__(self) -> AsyncUser:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.http.aclose()

    async def refresh(self) -> None:
        r = await self.http.get("/api/session")
        assert r.status_code == 200, r.text
        self.csrf = r.json()["csrf"]

    async def post(self, path: str, body: Any = None) -> httpx.Response:
        return await self.http.post(path, json=body if body is not None else {}, headers={"X-CSRF-Token": self.csrf})

    async def signup(self) -> AsyncUser:
        await self.refresh()
        r = await self.post("/api/signup", {"name": self.name, "password": self.password})
        assert r.status_code == 201, r.text
        await self.refresh()  # signing in rotates the CSRF cookie
        return self


def test_parallel_wrong_passwords_cannot_pass_the_sign_in_limit(db_url: str) -> None:
    app = create_app(settings_for(db_url))
    results: list[httpx.Response] = []

    async def main() -> None:
        async with running(app), AsyncUser(app, "alice") as alice, AsyncUser(app, "mallory") as mallory:
            await alice.signup()
            await mallory.refresh()
            attempts = [
                mallory.post("/api/signin", {"name": "alice", "password": f"guess number {i}"}) for i in range(25)
            ]
            results.extend(await asyncio.gather(*attempts))
            right = await mallory.post("/api/signin", {"name": "alice", "password": "correct horse"})
            assert right.status_code == 429, right.text
            assert "too many failed sign-ins" in right.json()["detail"]
            assert "low_session" not in mallory.http.cookies

    asyncio.run(main())
    statuses = sorted(r.status_code for r in results)
    assert set(statuses) <= {401, 429}, statuses
    assert 1 <= statuses.count(401) <= 5, statuses
    assert statuses.count(429) == 25 - statuses.count(401)
    for r in results:
        detail = r.json()["detail"]
        assert ("wrong name or password" if r.status_code == 401 else "too many failed sign-ins") in detail


def test_parallel_sign_ups_with_one_name_make_one_user(db_url: str) -> None:
    app = create_app(settings_for(db_url))
    results: list[httpx.Response] = []

    async def main() -> None:
        async with running(app):
            users = [AsyncUser(app, "Twin") for _ in range(6)]
            try:
                await asyncio.gather(*(u.refresh() for u in users))
                results.extend(
                    await asyncio.gather(
                        *(
                            u.post("/api/signup", {"name": "twin", "password": f"password-{i}"})
                            for i, u in enumerate(users)
                        )
                    )
                )
            finally:
                for u in users:
                    await u.http.aclose()

    asyncio.run(main())
    statuses = sorted(r.status_code for r in results)
    assert 500 not in statuses, [r.text for r in results]
    assert statuses == [201, 409, 409, 409, 409, 409], [r.text for r in results]
    for r in results:
        if r.status_code == 409:
            assert "taken" in r.json()["detail"]
    assert count(db_url, "SELECT count(*) FROM users WHERE name_key = 'twin'") == 1


def test_parallel_accepts_of_one_invitation_start_one_game(db_url: str) -> None:
    app = create_app(settings_for(db_url))
    results: list[httpx.Response] = []

    async def main() -> None:
        async with running(app):
            alice = await AsyncUser(app, "alice").signup()
            others = [AsyncUser(app, f"taker{i}") for i in range(5)]
            try:
                await asyncio.gather(*(u.signup() for u in others))
                r = await alice.post("/api/invitations", {"options": {"mode": "turn"}})
                assert r.status_code == 201, r.text
                inv = r.json()["invitation"]
                results.extend(await asyncio.gather(*(u.post(f"/api/invitations/{inv}/accept") for u in others)))
            finally:
                for u in [alice, *others]:
                    await u.http.aclose()

    asyncio.run(main())
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 409, 409, 409, 409], [r.text for r in results]
    (won,) = [r for r in results if r.status_code == 200]
    assert isinstance(won.json()["game"], int)
    for r in results:
        if r.status_code == 409:
            detail = r.json()["detail"]
            assert "no longer open" in detail or "answered meanwhile" in detail, detail
    assert count(db_url, "SELECT count(*) FROM games") == 1
    assert count(db_url, "SELECT count(*) FROM invitations WHERE status = 'accepted'") == 1


def test_parallel_actions_on_one_version_apply_one(db_url: str) -> None:
    app = create_app(settings_for(db_url))
    results: list[httpx.Response] = []
    after: dict[str, Any] = {}

    async def main() -> None:
        async with running(app), AsyncUser(app, "alice") as alice, AsyncUser(app, "bob") as bob:
            await alice.signup()
            await bob.signup()
            opts = {"creator_side": "1", "creator_army": "orcs", "opponent_army": "dwarves"}
            r = await alice.post("/api/invitations", {"opponent": "bob", "options": opts})
            r = await bob.post(f"/api/invitations/{r.json()['invitation']}/accept")
            game = r.json()["game"]
            s = (await alice.http.get(f"/api/games/{game}")).json()
            version, legal = s["game"]["version"], s["legal"]
            assert len(legal) >= 2
            results.extend(
                await asyncio.gather(
                    *(alice.post(f"/api/games/{game}/actions", {"action": a, "version": version}) for a in legal[:2])
                )
            )
            after.update((await alice.http.get(f"/api/games/{game}")).json())
            after["before"] = version
            after["tried"] = legal[:2]

    asyncio.run(main())
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 409], [r.text for r in results]
    (refused,) = [r for r in results if r.status_code == 409]
    detail = refused.json()["detail"]
    assert "stale" in detail or "changed meanwhile" in detail, detail
    assert after["game"]["version"] == after["before"] + 1
    assert len(after["log"]) == 1 and after["log"][0]["action"] in after["tried"]


# --- 4, 5. draw offers ------------------------------------------------------------------------------


def test_a_draw_offer_by_the_waiting_player_does_not_make_the_mover_stale(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)  # alice (player 1) acts first
    s = alice.state(game)
    before, legal = s["game"]["version"], s["legal"]
    assert legal
    r = bob.post(f"/api/games/{game}/draw", {"op": "offer"})
    assert r.status_code == 200, r.text
    assert r.json()["game"]["draw_offer"] == 2 and r.json()["game"]["version"] == before + 1
    # alice acts on the version she saw before the offer
    r = alice.act(game, legal[0], version=before)
    assert r.status_code == 200, r.text
    s = r.json()
    assert s["game"]["version"] == before + 2
    assert s["game"]["draw_offer"] is None
    assert [e["action"] for e in s["log"]] == [legal[0]]
    assert bob.state(game)["game"]["draw_offer"] is None
    # but a version from before the last action is stale, for whoever acts next
    mover = alice if alice.state(game)["legal"] else bob
    action = mover.state(game)["legal"][0]
    for old in (before, before + 1):
        r = mover.act(game, action, version=old)
        assert r.status_code == 409, r.text
        assert "stale" in r.json()["detail"]
    assert alice.state(game)["game"]["version"] == before + 2


def test_a_bogus_draw_op_on_a_running_game_is_400(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    for who in (alice, bob):
        r = who.post(f"/api/games/{game}/draw", {"op": "bogus"})
        assert r.status_code == 400, r.text
        assert "expected 'offer', 'accept' or 'decline'" in r.json()["detail"]
    s = alice.state(game)
    assert s["game"]["status"] == "running" and s["game"]["version"] == 0 and s["game"]["draw_offer"] is None


# --- 6. the game socket ------------------------------------------------------------------------------


def test_binary_socket_frames_get_an_error(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    with alice.socket(game) as ws:
        until(ws, "state")
        ws.send_bytes(b'{"type": "ping"}')
        got = replies(ws)
        assert [m["type"] for m in got] == ["error"], got
        assert "binary messages are not understood" in got[0]["message"]


@pytest.mark.parametrize("origin", ["http://evil.example", "https://testserver", "http://testserver:8080", "null"])
def test_sockets_from_another_origin_are_refused(alice: Player, bob: Player, origin: str) -> None:
    game = new_game(alice, bob)
    with pytest.raises(WebSocketDisconnect) as refused, alice.socket(game, headers={"origin": origin}) as ws:
        ws.receive_text()
    assert refused.value.code == 4403
    assert "cross-site" in (refused.value.reason or "")


def test_same_origin_socket_is_accepted_and_sync_is_rate_limited(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    with alice.socket(game, headers={"origin": "http://testserver"}) as ws:
        state = until(ws, "state")
        assert state["game"]["you"] == 1
        ws.send_text(json.dumps({"type": "sync"}))
        assert until(ws, "state")["game"]["version"] == 0
        ws.send_text(json.dumps({"type": "sync"}))
        got = replies(ws)
        assert [m["type"] for m in got] == ["error"], got
        assert "too many sync requests" in got[0]["message"]


# --- 7. slow consumers (no database) --------------------------------------------------------------


class StuckSocket:
    """A WebSocket whose client never reads: send_text never returns."""

    def __init__(self) -> None:
        self.client_state = WebSocketState.CONNECTED
        self.codes: list[int] = []
        self.sent: list[str] = []

    async def send_text(self, text_: str) -> None:
        self.sent.append(text_)
        await asyncio.Event().wait()

    async def close(self, code: int = 1000) -> None:
        self.codes.append(code)
        self.client_state = WebSocketState.DISCONNECTED


def test_a_client_that_does_not_read_is_dropped_when_its_queue_overflows() -> None:
    assert not inspect.iscoroutinefunction(hub.Connection.send)

    async def main() -> None:
        ws = StuckSocket()
        conn = hub.Connection(ws, 1, None, None)  # type: ignore[arg-type]
        conn.start()
        conn.send({"type": "state"})
        await asyncio.sleep(0.01)  # the sender takes it and hangs in send_text
        assert ws.sent and not conn.closed
        started = time.perf_counter()
        for i in range(hub.QUEUE_LIMIT + 2):
            conn.send({"type": "update", "n": i})  # a plain function (asserted above): returns at once
        assert time.perf_counter() - started < 1.0, "send waited for the client"
        assert conn.closed
        await asyncio.sleep(0.05)
        assert ws.codes == [1013]
        await conn.stop()
        assert conn.task is not None and conn.task.done()

    asyncio.run(asyncio.wait_for(main(), 5))


def test_a_send_that_hangs_past_the_timeout_closes_the_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub, "SEND_TIMEOUT", 0.05)

    async def main() -> None:
        ws = StuckSocket()
        conn = hub.Connection(ws, 1, None, None)  # type: ignore[arg-type]
        conn.start()
        conn.send({"type": "state"})
        await asyncio.sleep(0.01)
        assert not conn.closed
        await asyncio.sleep(0.3)
        assert conn.closed
        assert ws.codes == [1011]
        conn.send({"type": "update"})  # after closing, sends are dropped quietly
        assert conn.queue.empty()
        await conn.stop()

    asyncio.run(asyncio.wait_for(main(), 5))


# --- 8. private data ---------------------------------------------------------------------------------


def test_private_games_do_not_leak(client: TestClient, alice: Player, bob: Player) -> None:
    carol = Player(client, "carol").signup()
    anon = Player(client, "visitor")
    # a private direct challenge is offered to nobody else
    inv = alice.post("/api/invitations", {"opponent": "bob", "options": {"public": False}}).json()["invitation"]
    for who in (carol, anon):
        assert [i["id"] for i in who.get("/api/lobby").json()["open"]] == []
    assert [i["id"] for i in bob.get("/api/lobby").json()["incoming"]] == [inv]
    private = bob.post(f"/api/invitations/{inv}/accept").json()["game"]
    public = new_game(alice, bob)
    for who in (carol, anon):
        lobby = who.get("/api/lobby").json()
        assert [g["id"] for g in lobby["watch"]] == [public], lobby["watch"]
        assert lobby["open"] == [] and lobby["running"] == []
        page = who.get("/players/alice")
        assert page.status_code == 200
        assert f'data-game="{public}"' in page.text  # the check below can fail
        assert f'data-game="{private}"' not in page.text and f"/games/{private}" not in page.text
    assert {g["id"] for g in alice.get("/api/lobby").json()["running"]} == {public, private}
    assert f'data-game="{private}"' in bob.get("/players/alice").text
    # once over, its record and replay are for its players only
    assert alice.post(f"/api/games/{private}/resign").status_code == 200
    for who in (carol, anon):
        for path in (f"/api/games/{private}/record", f"/api/games/{private}/replay", f"/api/games/{private}"):
            r = who.get(path)
            assert r.status_code == 403, (path, r.text)
            assert "private" in r.json()["detail"]
            assert "seed" not in r.text
    assert bob.get(f"/api/games/{private}/record").status_code == 200
    assert bob.get(f"/api/games/{private}/replay").status_code == 200


def test_the_seed_of_a_running_game_is_never_shown(client: TestClient, alice: Player, bob: Player) -> None:
    carol = Player(client, "carol").signup()
    anon = Player(client, "visitor")
    game = new_game(alice, bob)
    alice.state(game)
    seed = str(client.app.state.service.runtimes[game].game.seed)  # type: ignore[attr-defined]
    assert len(seed) >= 6
    for who in (alice, bob, carol, anon):
        lobby = who.get("/api/lobby")
        assert seed not in lobby.text
        assert game in [g["id"] for g in lobby.json()["watch"]]
        for path in ("/players/alice", "/players/bob", "/", f"/games/{game}", f"/api/games/{game}"):
            r = who.get(path)
            assert r.status_code == 200, (path, r.text)
            assert seed not in r.text, path
        r = who.get(f"/api/games/{game}/record")
        assert r.status_code == 409 and seed not in r.text


# --- 9. sockets after signing out -----------------------------------------------------------------


def test_an_old_session_cookie_opens_no_player_socket(alice: Player, bob: Player) -> None:
    public = new_game(alice, bob)
    private = new_game(alice, bob, public=False)
    with alice.socket(public) as ws:
        first = until(ws, "state")
        assert first["game"]["you"] == 1
        legal = first["legal"]  # what alice could play while signed in
    old = dict(alice.cookies)
    assert alice.post("/api/signout").status_code == 200
    alice.cookies = old  # the signed-out session token, replayed
    assert alice.get("/api/session").json()["user"] is None
    with alice.socket(public) as ws:
        state = until(ws, "state")
        assert state["game"]["you"] is None and state["legal"] == []
        for message in ({"type": "action", "action": legal[0], "version": 0}, {"type": "resign"}):
            ws.send_text(json.dumps(message))
            got = replies(ws)
            assert [m["type"] for m in got] == ["error"], got
            assert "spectators cannot act" in got[0]["message"]
    with pytest.raises(WebSocketDisconnect) as refused, alice.socket(private) as ws:
        ws.receive_text()
    assert refused.value.code == 4403
    s = bob.state(public)
    assert s["game"]["version"] == 0 and s["game"]["status"] == "running"


def test_signing_out_closes_the_sockets_already_open(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    with alice.socket(game) as wa, bob.socket(game) as wb:
        until(wa, "state")
        until(wb, "state")
        assert alice.post("/api/signout").status_code == 200
        with pytest.raises(WebSocketDisconnect) as closed:
            replies(wa)
        assert closed.value.code == 4401
        assert replies(wb) == []  # the other player's socket stays open
    assert bob.state(game)["game"]["version"] == 0
