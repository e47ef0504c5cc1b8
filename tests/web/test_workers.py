"""Real server processes over loopback: several workers starting together on a fresh database,
and socket refusals as a browser sees them (a close code after the handshake)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.web.conftest import database
from tests.web.server import free_port, running_server

REDIS = os.environ.get("LOW_TEST_REDIS", "redis://127.0.0.1:6379/0")


def _signed_up(base: str, name: str) -> httpx.Client:
    http = httpx.Client(base_url=base, timeout=30)
    csrf = http.get("/api/session").json()["csrf"]
    r = http.post("/api/signup", json={"name": name, "password": "password-123"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    http.headers["X-CSRF-Token"] = r.json()["csrf"]
    return http


async def _close_code(url: str, **headers: str) -> tuple[int | None, str]:
    async with connect(url, additional_headers=headers, open_timeout=10) as ws:
        try:
            await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as closed:
            return (closed.rcvd.code if closed.rcvd else None), (closed.rcvd.reason if closed.rcvd else "")
    raise AssertionError("the socket was not closed")


def test_socket_refusals_at_connect_are_close_codes_a_browser_can_read(tmp_path: Path) -> None:
    with running_server(tmp_path) as base:
        alice, bob = _signed_up(base, "alice"), _signed_up(base, "bob")
        r = alice.post("/api/invitations", json={"opponent": "bob", "options": {"public": False}})
        game = bob.post(f"/api/invitations/{r.json()['invitation']}/accept", json={}).json()["game"]
        ws = base.replace("http://", "ws://")
        code, reason = asyncio.run(_close_code(f"{ws}/api/games/999999/ws"))
        assert code == 4404 and "no game" in reason
        code, reason = asyncio.run(_close_code(f"{ws}/api/games/{game}/ws"))  # a visitor, a private game
        assert code == 4403 and "private" in reason
        cookie = f"low_session={alice.cookies['low_session']}"
        code, reason = asyncio.run(
            _close_code(f"{ws}/api/games/{game}/ws", Cookie=cookie, Origin="http://evil.example")
        )
        assert code == 4403 and "cross-site" in reason

        async def player_socket() -> str:
            async with connect(f"{ws}/api/games/{game}/ws", additional_headers={"Cookie": cookie, "Origin": base}) as s:
                return str(await asyncio.wait_for(s.recv(), 10))

        assert '"type":"state"' in asyncio.run(player_socket())


def test_six_fresh_starts_with_four_workers(tmp_path: Path) -> None:
    """Four workers starting at once on a fresh database, six times over: none fails its start-up
    (the schema, the server key and the heartbeat are made once, whoever comes first)."""
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")
    for start in range(6):
        with database("postgresql", tmp_path) as url:
            port = free_port()
            env = {**os.environ, "LOW_DATABASE_URL": url, "LOW_REDIS_URL": REDIS}
            log = tmp_path / f"start-{start}.log"
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "lordsofwar", "serve", "--port", str(port), "--workers", "4"],
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                try:
                    deadline = time.monotonic() + 60
                    answers = 0
                    while answers < 8:  # several answers: more than one worker has taken requests
                        assert proc.poll() is None, log.read_text()[-3000:]
                        assert time.monotonic() < deadline, "no answer within 60 s"
                        try:
                            answers += httpx.get(f"http://127.0.0.1:{port}/api/session", timeout=2).status_code == 200
                        except httpx.HTTPError:
                            time.sleep(0.1)
                    time.sleep(1.5)  # every worker has run its start-up (heartbeat, key) by now
                finally:
                    os.killpg(proc.pid, 15)
                    try:
                        proc.wait(20)
                    except subprocess.TimeoutExpired:
                        os.killpg(proc.pid, 9)
                        proc.wait()
            text = log.read_text()
            assert "Traceback" not in text and "UniqueViolation" not in text, f"start {start}:\n{text[-3000:]}"


@pytest.mark.parametrize("trusted", [False, True])
def test_forwarded_for_counts_only_when_the_proxy_is_trusted(tmp_path: Path, trusted: bool) -> None:
    env = {"LOW_TRUST_PROXY_HEADERS": "1"} if trusted else {}
    with running_server(tmp_path, port=None, **env) as base:
        _signed_up(base, "owner")
        guesser = httpx.Client(base_url=base, timeout=30)
        csrf = guesser.get("/api/session").json()["csrf"]
        statuses = []
        for i in range(7):  # each guess claims another address
            r = guesser.post(
                "/api/signin",
                json={"name": "owner", "password": "wrong-password"},
                headers={"X-CSRF-Token": csrf, "X-Forwarded-For": f"203.0.113.{i}"},
            )
            statuses.append(r.status_code)
    if trusted:  # behind a proxy: each claimed address has its own count
        assert statuses == [401] * 7
    else:  # by default the header is ignored: one address, stopped after 5 guesses
        assert statuses == [401] * 5 + [429] * 2
