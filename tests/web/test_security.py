"""What a security probe found, each with the fix's test: sign-up floods, locking an owner out,
CSRF tokens bound to the session, deeply nested socket messages, loosely typed bodies, the
start-up race of several workers, and socket refusals a browser can read."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from lordsofwar.web.accounts import service as accounts
from lordsofwar.web.app import create_app
from lordsofwar.web.games.runtime import Behind
from lordsofwar.web.models import Heartbeat, utcnow
from tests.web.conftest import Player, new_game, settings_for, until


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[FastAPI]:
    async with app.router.lifespan_context(app):
        yield app


class Browser:
    """One browser at one address (httpx over ASGI, so the app sees that client address)."""

    def __init__(self, app: FastAPI, address: str):
        transport = httpx.ASGITransport(app=app, client=(address, 40000), raise_app_exceptions=False)
        self.http = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        self.csrf = ""

    async def __aenter__(self) -> Browser:
        self.csrf = (await self.http.get("/api/session")).json()["csrf"]
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.http.aclose()

    async def post(self, path: str, body: Any) -> httpx.Response:
        r = await self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})
        if r.status_code in (200, 201) and isinstance(r.json(), dict) and "csrf" in r.json():
            self.csrf = r.json()["csrf"]
        return r


# --- sign-ups ---------------------------------------------------------------------------------------


def test_one_address_may_make_only_a_few_accounts_an_hour(db_url: str) -> None:
    app = create_app(settings_for(db_url, signups_per_hour=3))

    async def main() -> None:
        async with running(app), Browser(app, "10.0.0.1") as flood, Browser(app, "10.0.0.2") as other:
            answers = [
                await flood.post("/api/signup", {"name": f"flood{i}", "password": "password-1"}) for i in range(6)
            ]
            assert [r.status_code for r in answers] == [201, 201, 201, 429, 429, 429]
            assert "too many new accounts from your address" in answers[3].json()["detail"]
            assert answers[3].headers["retry-after"]
            # another address is not affected
            assert (await other.post("/api/signup", {"name": "honest", "password": "password-1"})).status_code == 201

    asyncio.run(main())


def test_password_hashes_run_one_at_a_time_and_a_flood_beyond_the_queue_is_refused(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(settings_for(db_url, hash_concurrency=1, hash_queue=3))
    running_now = 0
    most = 0
    lock = threading.Lock()
    real_hash = accounts.Passwords.hash

    def slow_hash(self: accounts.Passwords, password: str) -> str:
        nonlocal running_now, most
        with lock:
            running_now += 1
            most = max(most, running_now)
        try:
            threading.Event().wait(0.2)
            return real_hash(self, password)
        finally:
            with lock:
                running_now -= 1

    monkeypatch.setattr(accounts.Passwords, "hash", slow_hash)

    async def main() -> list[int]:
        async with running(app):
            browsers = [Browser(app, f"10.1.0.{i}") for i in range(12)]  # many addresses: no per-address limit
            for b in browsers:
                await b.__aenter__()
            answers = await asyncio.gather(
                *(
                    b.post("/api/signup", {"name": f"burst{i}", "password": "password-1"})
                    for i, b in enumerate(browsers)
                )
            )
            for b in browsers:
                await b.__aexit__()
            for r in answers:
                if r.status_code == 429:
                    assert "busy checking passwords" in r.json()["detail"]
            return [r.status_code for r in answers]

    statuses = asyncio.run(main())
    assert most == 1  # never two 64 MiB hashes at once
    assert set(statuses) == {201, 429}, statuses
    assert statuses.count(201) >= 4  # one running and three waiting got through


# --- sign-ins ----------------------------------------------------------------------------------------


def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out_elsewhere(db_url: str) -> None:
    app = create_app(settings_for(db_url, login_attempts=5))

    async def main() -> None:
        async with running(app), Browser(app, "10.2.0.1") as owner, Browser(app, "10.2.0.66") as attacker:
            assert (await owner.post("/api/signup", {"name": "olga", "password": "right-password"})).status_code == 201
            await owner.post("/api/signout", {})
            for _ in range(5):
                r = await attacker.post("/api/signin", {"name": "olga", "password": "guess-guess"})
                assert r.status_code == 401
            r = await attacker.post("/api/signin", {"name": "olga", "password": "right-password"})
            assert r.status_code == 429, "the attacker's address is slowed down, even with the right password"
            assert "too many failed sign-ins" in r.json()["detail"]
            r = await owner.post("/api/signin", {"name": "olga", "password": "right-password"})
            assert r.status_code == 200, r.text  # the owner, from another address, is not locked out
            assert r.json()["user"] == {"name": "olga"}

    asyncio.run(main())


def test_a_guesser_spread_over_many_addresses_is_still_slowed_per_name(db_url: str) -> None:
    app = create_app(settings_for(db_url, login_attempts=1))  # 1 per name and address, 20 per name

    async def main() -> None:
        async with running(app), Browser(app, "10.3.0.1") as owner:
            assert (await owner.post("/api/signup", {"name": "pete", "password": "right-password"})).status_code == 201
            statuses = []
            for i in range(25):
                async with Browser(app, f"10.3.1.{i}") as guesser:
                    statuses.append(
                        (await guesser.post("/api/signin", {"name": "pete", "password": "nope-nope"})).status_code
                    )
            assert statuses[:20] == [401] * 20 and statuses[20:] == [429] * 5

    asyncio.run(main())


def test_forwarded_for_is_ignored_unless_trusted() -> None:
    from lordsofwar.web.settings import Settings

    assert Settings().trust_proxy_headers is False  # the default: the socket's peer is the client


# --- CSRF --------------------------------------------------------------------------------------------


def test_a_csrf_token_is_worth_nothing_in_another_session(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    # a token of bob's session, sent with alice's session
    r = alice.post(f"/api/games/{game}/resign", csrf=bob.csrf)
    assert r.status_code == 403 and "CSRF" in r.json()["detail"]
    # a made-up value sent as both the cookie and the header (the old double-submit) is refused
    c = alice.use()
    c.cookies.set("low_csrf", "made-up-value")
    r = c.post(f"/api/games/{game}/resign", headers={"X-CSRF-Token": "made-up-value"})
    assert r.status_code == 403
    assert alice.state(game)["game"]["status"] == "running"
    # the right one works
    assert alice.post(f"/api/games/{game}/resign").status_code == 200


def test_the_csrf_token_changes_with_the_session(client: TestClient) -> None:
    p = Player(client, "quinn")
    p.refresh()
    before = p.csrf
    r = p.post("/api/signup", {"name": "quinn", "password": "password-1"})
    assert r.status_code == 201 and r.json()["csrf"] != before
    signed_in = r.json()["csrf"]
    p.csrf = signed_in
    r = p.post("/api/signout")
    assert r.status_code == 200 and r.json()["csrf"] not in (signed_in, "")
    assert r.json()["csrf"] == before  # back to the browser's own token
    assert "Max-Age=0" in next(c for c in r.headers.get_list("set-cookie") if c.startswith("low_session="))
    p.cookies.pop("low_session", None)  # as a browser does on Max-Age=0 (the test client's jar keeps it)
    # the signed-in token is no use once signed out
    r = p.post("/api/signin", {"name": "quinn", "password": "password-1"}, csrf=signed_in)
    assert r.status_code == 403


def test_the_csrf_key_is_shared_by_every_process_of_an_installation(db_url: str) -> None:
    a, b = create_app(settings_for(db_url)), create_app(settings_for(db_url), run_migrations=False)
    with TestClient(a) as ca, TestClient(b) as cb:
        alice = Player(ca, "alice").signup()
        other = Player(cb, "alice")
        other.cookies = dict(alice.cookies)
        other.refresh()
        assert other.csrf == alice.csrf


# --- sockets and bodies ---------------------------------------------------------------------------------


def test_a_deeply_nested_socket_message_is_refused_and_the_socket_lives_on(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    with alice.socket(game) as ws:
        until(ws, "state")
        ws.send_text("[" * 990 + "]" * 990)
        assert "nested too deeply" in until(ws, "error")["message"]
        ws.send_text('{"type": "action", "action": ' + "[" * 900 + "]" * 900 + ', "version": 0}')
        assert until(ws, "error")["type"] == "error"
        ws.send_text(json.dumps({"type": "ping"}))
        assert until(ws, "pong") == {"type": "pong"}
    assert alice.state(game)["game"]["version"] == 0


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"minutes": True}, "minutes"),
        ({"minutes": "5"}, "minutes"),
        ({"public": "no"}, "public"),
        ({"custom_decks": 1}, "custom_decks"),
        ({"increment": None}, "increment"),
    ],
)
def test_invitation_bodies_are_strictly_typed(alice: Player, options: dict[str, Any], field: str) -> None:
    r = alice.post("/api/invitations", {"options": options})
    assert r.status_code == 422, r.text
    assert field in r.json()["detail"]
    assert alice.get("/api/lobby").json()["outgoing"] == []


# --- several workers -------------------------------------------------------------------------------


def test_heartbeats_written_at_once_by_many_processes_never_collide(db_url: str) -> None:
    apps = [create_app(settings_for(db_url), run_migrations=i == 0) for i in range(4)]

    async def main() -> None:
        services = [app.state.service for app in apps]
        before = utcnow()
        results = await asyncio.gather(*(s.heartbeat() for s in services for _ in range(5)), return_exceptions=True)
        after = utcnow()
        assert results == [None] * 20, [r for r in results if r is not None]
        async with services[0].sessions() as db:
            rows = (await db.execute(select(Heartbeat.name, Heartbeat.at))).all()
        assert len(rows) == 1, rows  # one row for the whole site, however many wrote it
        name, at = rows[0]
        assert name == "server"
        assert before <= at <= after
        await services[2].heartbeat()  # a later beat moves the one row on
        async with services[0].sessions() as db:
            assert await db.scalar(select(Heartbeat.at).where(Heartbeat.name == "server")) >= after
        # so a worker starting now sees that a server was up a moment ago: no downtime to credit
        assert await services[1].credit_downtime() == 0.0
        for s in services:
            await s.close()
            await s.engine.dispose()

    asyncio.run(main())


def test_a_bot_turn_that_loses_a_race_is_retried_without_an_error_in_the_log(
    client: TestClient, alice: Player, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    real_apply = service._apply
    lost: list[str] = []

    async def racing(rt: Any, seat: int, text: str, version: int) -> Any:
        if rt.bot_of(seat) and not lost:
            lost.append(text)
            raise Behind()  # as when another process wrote first
        return await real_apply(rt, seat, text, version)

    monkeypatch.setattr(service, "_apply", racing)
    caplog.set_level(logging.INFO, logger="lordsofwar.web")
    r = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "2"}})
    game = r.json()["game"]
    for _ in range(100):
        if alice.state(game)["game"]["version"] >= 1:
            break
        threading.Event().wait(0.05)
    assert lost, "the bot's first try lost its race"
    assert alice.state(game)["game"]["version"] >= 1  # and it played on the second
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]


@pytest.mark.parametrize("name", ["a\x00b", "nul\x00", "\x00" * 5, "bob\n", "b" * 90])
def test_a_name_no_player_can_have_is_nobody_on_every_database(client: TestClient, alice: Player, name: str) -> None:
    r = alice.post("/api/signin", {"name": name, "password": "whatever-1"})
    assert r.status_code == 401 and r.json()["detail"] == "wrong name or password"
    r = alice.post("/api/invitations", {"opponent": name})
    assert r.status_code in (404, 422), r.text
    r = alice.get("/players/" + name.replace("\x00", "%00").replace("\n", "%0A"))
    assert r.status_code == 404
