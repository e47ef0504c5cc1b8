"""Fixtures for the web platform: the same app on SQLite and on the local PostgreSQL.

PostgreSQL tests run against the real server at 127.0.0.1:5432 (trust auth); each test gets a
fresh database that is dropped afterwards. Where the server is absent they are skipped with the
reason shown in the summary (``-ra``).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Error as PlaywrightError

from lordsofwar.web.app import create_app
from lordsofwar.web.settings import Settings

PG_ADMIN = os.environ.get("LOW_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


def _pg_admin() -> Any:
    import psycopg

    return psycopg.connect(PG_ADMIN.replace("postgresql+psycopg://", "postgresql://"), autocommit=True, connect_timeout=3)


@contextmanager
def database(kind: str, tmp_path: Any) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'low.sqlite3'}"
        return
    try:
        admin = _pg_admin()
    except Exception as exc:  # the service is absent on this machine
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN}: {str(exc).splitlines()[0][:120]}")
    name = f"low_test_{uuid.uuid4().hex[:12]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with _pg_admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


REDIS = os.environ.get("LOW_TEST_REDIS", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_url() -> str:
    """The local Redis for tests of several server processes; skipped where it is absent."""
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at {REDIS}: {exc}")
    return REDIS


def settings_for(url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": url,
        "redis_url": None,
        "bot_delay": 0.0,
        "argon2_time_cost": 1,
        "argon2_memory_kib": 8192,
        "sweep_interval": 3600.0,
        "signups_per_hour": 10_000,  # the tests sign many players up from one address
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    app = create_app(settings_for(db_url))
    with TestClient(app, base_url="http://testserver") as c:
        yield c


class Player:
    """One signed-in user of a shared TestClient (its cookies are swapped in for each call)."""

    def __init__(self, client: TestClient, name: str, password: str = "correct horse"):
        self.client = client
        self.name = name
        self.password = password
        self.cookies: dict[str, str] = {}
        self.csrf = ""

    def use(self) -> TestClient:
        self.client.cookies.clear()
        for k, v in self.cookies.items():
            self.client.cookies.set(k, v)
        return self.client

    def _keep(self) -> None:
        self.cookies = {c.name: c.value for c in self.client.cookies.jar}

    def refresh(self) -> None:
        r = self.use().get("/api/session")
        self._keep()
        self.csrf = r.json()["csrf"]

    def signup(self) -> Player:
        self.refresh()
        r = self.post("/api/signup", {"name": self.name, "password": self.password})
        assert r.status_code == 201, r.text
        self.refresh()
        return self

    def get(self, path: str, **kw: Any) -> Any:
        r = self.use().get(path, **kw)
        self._keep()
        return r

    def post(self, path: str, body: Any = None, csrf: str | None = None, **kw: Any) -> Any:
        headers = {"X-CSRF-Token": self.csrf if csrf is None else csrf}
        r = self.use().post(path, json=body if body is not None else {}, headers=headers, **kw)
        self._keep()
        return r

    def send(self, method: str, path: str, body: Any = None, csrf: str | None = None) -> Any:
        """PUT, DELETE or any other method, with the CSRF header."""
        headers = {"X-CSRF-Token": self.csrf if csrf is None else csrf}
        r = self.use().request(method, path, json=body, headers=headers)
        self._keep()
        return r

    @contextmanager
    def socket(self, game_id: int, **kw: Any) -> Iterator[Any]:
        with self.use().websocket_connect(f"/api/games/{game_id}/ws", **kw) as ws:
            yield ws

    def state(self, game_id: int) -> dict[str, Any]:
        r = self.get(f"/api/games/{game_id}")
        assert r.status_code == 200, r.text
        return dict(r.json())

    def act(self, game_id: int, action: str, version: int | None = None) -> Any:
        if version is None:
            version = self.state(game_id)["game"]["version"]
        return self.post(f"/api/games/{game_id}/actions", {"action": action, "version": version})


def until(ws: Any, kind: str, limit: int = 20) -> dict[str, Any]:
    """The next WebSocket message of this type (skipping up to ``limit`` others)."""
    for _ in range(limit):
        msg = json.loads(ws.receive_text())
        if msg["type"] == kind:
            return dict(msg)
    raise AssertionError(f"no {kind} message")


def new_game(a: Player, b: Player, **options: Any) -> int:
    """A game between a (player 1) and b (player 2) by a direct challenge."""
    opts = {"creator_side": "1", "creator_army": "orcs", "opponent_army": "dwarves", **options}
    r = a.post("/api/invitations", {"opponent": b.name, "options": opts})
    assert r.status_code == 201, r.text
    r = b.post(f"/api/invitations/{r.json()['invitation']}/accept")
    assert r.status_code == 200, r.text
    return int(r.json()["game"])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (executable_path: Playwright's own download is not
    used), one per test module."""
    from playwright.sync_api import sync_playwright

    from tests.web.server import CHROMIUM_ARGS, chromium_path

    path = chromium_path()
    if path is None:
        pytest.skip("Debian's chromium is not installed (scripts/install-browser)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def alice(client: TestClient) -> Player:
    return Player(client, "alice").signup()


@pytest.fixture
def bob(client: TestClient) -> Player:
    return Player(client, "bob").signup()



def play_opening(game: int, *players: Player) -> None:
    """Play both players' first turns (a deployment and a draw each) with the first legal
    actions, so that the game can no longer be aborted: an ending after this has a result.
    ``players``: the game's players who are people (a bot plays its own turns)."""
    deadline = time.monotonic() + 60  # a bot's workers may take a while to start
    while time.monotonic() < deadline:
        moved = False
        for p in players:
            state = p.state(game)
            if state["game"]["status"] != "running" or not state["game"]["abortable"]:
                return
            if state["legal"]:
                r = p.act(game, state["legal"][0], state["game"]["version"])
                assert r.status_code == 200, r.text
                moved = True
        if not moved:
            time.sleep(0.02)
    raise AssertionError(f"game {game}: the opening was not played")


OPENING_JS = """async (game) => {
  const csrf = document.querySelector('meta[name=csrf-token]').content;
  const s = await (await fetch(`/api/games/${game}`)).json();
  if (s.game.status !== 'running' || !s.game.abortable) return 'done';
  if (!s.legal.length) return 'wait';
  const r = await fetch(`/api/games/${game}/actions`, {method: 'POST', headers: {'Content-Type': 'application/json',
    'X-CSRF-Token': csrf}, body: JSON.stringify({action: s.legal[0], version: s.game.version})});
  return r.ok ? 'moved' : 'refused ' + r.status;
}"""


def _evaluate_opening(page: Any, game: int) -> str:
    """One step of the opening from ``page``; 'wait' when the page was navigating (a tournament
    page reloads itself when the tournament moves on)."""
    try:
        return str(page.evaluate(OPENING_JS, game))
    except PlaywrightError as exc:
        if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
            raise
        page.wait_for_load_state()
        return "wait"


def play_opening_in_pages(game: int, *pages: Any) -> None:
    """:func:`play_opening` from the players' open pages (their own sessions)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        said = [_evaluate_opening(page, game) for page in pages]
        assert not any(s.startswith("refused") for s in said), said
        if "done" in said:
            return
        if "moved" not in said:
            time.sleep(0.05)
    raise AssertionError(f"game {game}: the opening was not played")
