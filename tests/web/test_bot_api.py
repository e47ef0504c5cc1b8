"""The bot API (docs/bot-api.md): tokens (shown once, hashed at rest, revocable, scoped), bot
accounts, the rate limit, the ndjson streams (with nothing hidden in them), and whole games of
examples/bot_client.py against a real server process."""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from lordsofwar.web.app import create_app
from lordsofwar.web.settings import Settings
from tests.web.conftest import Player, database, settings_for
from tests.web.server import running_server

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "examples" / "bot_client.py"


def make_token(p: Player, scopes: list[str], description: str = "my bot") -> str:
    r = p.post("/api/tokens", {"description": description, "scopes": scopes})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def bearer(client: TestClient, method: str, path: str, token: str, body: Any = None) -> Any:
    client.cookies.clear()  # a bot sends no cookies: the token alone
    return client.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})


# --- tokens, scopes, bot accounts (in process, both databases) ----------------------------------------------


def test_a_token_is_shown_once_kept_hashed_and_refused_once_revoked(
    client: TestClient, alice: Player, db_url: str
) -> None:
    assert alice.post("/api/tokens", {"description": "x", "scopes": ["bot:play"]}, csrf="wrong").status_code == 403
    r = alice.post("/api/tokens", {"description": "my bot", "scopes": ["bot:play", "challenge:write"]})
    assert r.status_code == 201, r.text
    made = r.json()
    token = made["token"]
    assert token.startswith("low_") and len(token) > 40
    listed = alice.get("/api/tokens").json()
    assert [t["id"] for t in listed] == [made["id"]]
    assert "token" not in listed[0] and token not in json.dumps(listed)
    assert listed[0]["scopes"] == ["bot:play", "challenge:write"]
    # at rest: only the SHA-256
    engine = sa.create_engine(Settings(database_url=db_url).sync_url())
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(sa.text("SELECT * FROM api_tokens"))]
    engine.dispose()
    assert rows[0]["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    assert token not in json.dumps(rows, default=str)
    # a bearer request needs no cookie and no CSRF token; only on /api/bot/...
    r = bearer(client, "GET", "/api/bot/account", token)
    assert r.status_code == 200 and r.json() == {
        "name": "alice",
        "bot_account": False,
        "scopes": ["bot:play", "challenge:write"],
    }
    assert bearer(client, "GET", "/api/your-turn", token).status_code == 401
    assert bearer(client, "GET", "/api/bot/account", token + "x").status_code == 401
    assert bearer(client, "GET", "/api/bot/account", "low_made-up").status_code == 401
    r = bearer(client, "GET", "/api/bot/account", "")
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    # revoked: refused from now on; another's token cannot be revoked
    assert alice.send("DELETE", f"/api/tokens/{made['id']}", csrf="wrong").status_code == 403
    bob = Player(client, "bob").signup()
    assert bob.send("DELETE", f"/api/tokens/{made['id']}").status_code == 404
    assert alice.send("DELETE", f"/api/tokens/{made['id']}").status_code == 200
    assert alice.get("/api/tokens").json() == []
    assert bearer(client, "GET", "/api/bot/account", token).status_code == 401


def test_a_token_does_only_what_its_scopes_allow(client: TestClient, alice: Player, bob: Player) -> None:
    challenger = make_token(alice, ["challenge:write"])
    player = make_token(alice, ["bot:play"])
    r = bearer(client, "GET", "/api/bot/account", challenger)
    assert r.status_code == 403 and "bot:play" in r.json()["detail"]
    assert bearer(client, "POST", "/api/bot/account/upgrade", challenger).status_code == 403
    assert bearer(client, "POST", "/api/bot/challenge/bob", player).status_code == 403
    r = bearer(client, "POST", "/api/bot/challenge/bob", challenger, {"options": {"creator_side": "1"}})
    assert r.status_code == 201, r.text
    incoming = bob.get("/api/lobby").json()["incoming"]
    assert [i["id"] for i in incoming] == [r.json()["invitation"]] and incoming[0]["creator"] == "alice"
    assert bearer(client, "POST", "/api/bot/challenge/nobody", challenger).status_code == 404
    assert bearer(client, "POST", "/api/bot/challenge/alice", challenger).status_code == 403
    assert alice.post("/api/tokens", {"description": "x", "scopes": ["admin"]}).status_code == 422
    assert alice.post("/api/tokens", {"description": "x", "scopes": []}).status_code == 422


def test_only_an_account_without_games_becomes_a_bot_account(client: TestClient, alice: Player, bob: Player) -> None:
    assert alice.post("/api/invitations", {"bot": "random"}).status_code == 201  # alice has a game
    r = bearer(client, "POST", "/api/bot/account/upgrade", make_token(alice, ["bot:play"]))
    assert r.status_code == 409 and "played games" in r.json()["detail"]
    token = make_token(bob, ["bot:play"])
    # not a bot account yet: the game endpoints and the streams refuse it
    r = bearer(client, "POST", "/api/bot/game/1/move", token, {"action": "pass", "version": 0})
    assert r.status_code == 403 and "not a bot account" in r.json()["detail"]
    assert bearer(client, "GET", "/api/bot/stream/event", token).status_code == 403
    r = bearer(client, "POST", "/api/bot/account/upgrade", token)
    assert r.status_code == 200 and r.json()["bot_account"] is True
    assert bearer(client, "GET", "/api/bot/account", token).json()["bot_account"] is True


def test_a_bot_declines_and_accepts_challenges_and_acts(client: TestClient, alice: Player, bob: Player) -> None:
    token = make_token(bob, ["bot:play"])
    assert bearer(client, "POST", "/api/bot/account/upgrade", token).status_code == 200
    first = alice.post("/api/invitations", {"opponent": "bob", "options": {"creator_side": "2"}}).json()["invitation"]
    assert bearer(client, "POST", f"/api/bot/challenge/{first}/decline", token).json() == {"game": None}
    assert alice.get("/api/lobby").json()["outgoing"] == []
    second = alice.post("/api/invitations", {"opponent": "bob", "options": {"creator_side": "2"}}).json()["invitation"]
    r = bearer(client, "POST", f"/api/bot/challenge/{second}/accept", token)
    assert r.status_code == 200, r.text
    game = r.json()["game"]
    state = alice.state(game)
    assert state["game"]["players"]["1"]["name"] == "bob" and state["legal"] == []
    bob_view = alice.state(game)  # bob (player 1) acts first: his legal actions from his own state
    r = bearer(
        client,
        "POST",
        f"/api/bot/game/{game}/move",
        token,
        {"action": "resign", "version": bob_view["game"]["version"]},
    )
    assert r.status_code == 409  # not an action of the game
    r = bearer(client, "POST", f"/api/bot/game/{game}/draw", token, {"op": "offer"})
    assert r.status_code == 200 and r.json()["game"]["draw_offer"] == 1
    r = bearer(client, "POST", f"/api/bot/game/{game}/resign", token)
    # resigned before both players made their first turn: the game is aborted (no winner)
    assert r.status_code == 200 and r.json()["game"]["result"] == {
        "winner": None,
        "reason": "aborted: player 1 resigned",
        "termination": "aborted",
        "player": 1,
        "ending": "resignation",
    }
    assert r.json()["game"]["aborted"] is True
    # a finished game's stream: its last state, and it ends
    r = bearer(client, "GET", f"/api/bot/game/stream/{game}", token)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in r.text.splitlines() if line]
    assert len(lines) == 1 and lines[0]["type"] == "state" and lines[0]["game"]["status"] == "over"
    assert lines[0]["game"]["you"] == 1


def test_the_tokens_page_shows_a_new_token_once(client: TestClient, alice: Player) -> None:
    page = alice.get("/tokens")
    assert page.status_code == 200 and "No tokens." in page.text
    form = {"csrf": alice.csrf, "description": "page bot", "scopes": ["bot:play", "challenge:write"]}
    assert alice.use().post("/tokens", data={**form, "csrf": "wrong"}).status_code == 403
    made = alice.use().post("/tokens", data=form)
    assert made.status_code == 200 and made.headers["cache-control"] == "no-store"
    token = re.search(r'id="new-token-value">(low_[^<]+)<', made.text)
    assert token is not None
    assert bearer(client, "GET", "/api/bot/account", token.group(1)).status_code == 200
    again = alice.get("/tokens")
    assert "page bot" in again.text and token.group(1) not in again.text  # shown once
    [listed] = alice.get("/api/tokens").json()
    bad = alice.use().post("/tokens", data={"csrf": alice.csrf, "description": "x"})  # no scope
    assert bad.status_code == 422 and "at least one scope" in bad.text
    revoked = alice.use().post(f"/tokens/{listed['id']}/revoke", data={"csrf": alice.csrf}, follow_redirects=False)
    assert revoked.status_code == 303
    assert bearer(client, "GET", "/api/bot/account", token.group(1)).status_code == 401


def test_each_token_is_rate_limited(db_url: str) -> None:
    app = create_app(settings_for(db_url, bot_api_rate=3))
    with TestClient(app, base_url="http://testserver") as client:
        token = make_token(Player(client, "alice").signup(), ["bot:play"])
        answers = [bearer(client, "GET", "/api/bot/account", token).status_code for _ in range(5)]
        assert answers == [200, 200, 200, 429, 429]
        r = bearer(client, "GET", "/api/bot/account", token)
        assert "too many requests" in r.json()["detail"] and r.headers["retry-after"]
        other = make_token(Player(client, "bob").signup(), ["bot:play"])  # another token has its own count
        assert bearer(client, "GET", "/api/bot/account", other).status_code == 200


# --- against a real server: the streams and whole games -----------------------------------------------------


class Human:
    """A signed-in player over HTTP (cookies and the CSRF token)."""

    def __init__(self, base: str, name: str):
        self.http = httpx.Client(base_url=base, timeout=20)
        csrf = self.http.get("/api/session").json()["csrf"]
        r = self.http.post(
            "/api/signup", json={"name": name, "password": "password123"}, headers={"X-CSRF-Token": csrf}
        )
        assert r.status_code == 201, r.text
        self.csrf = r.json()["csrf"]

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.http.post(path, json=body or {}, headers={"X-CSRF-Token": self.csrf})

    def token(self, scopes: list[str]) -> str:
        r = self.post("/api/tokens", {"description": "bot", "scopes": scopes})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    def random_move(self, game: int, rng: random.Random) -> tuple[int, str] | None:
        """Play one of the legal actions at random: the version it was played on and the action
        (None: nothing to play)."""
        state = self.http.get(f"/api/games/{game}").json()
        if not state["legal"]:
            return None
        action = rng.choice(state["legal"])
        r = self.post(f"/api/games/{game}/actions", {"action": action, "version": state["game"]["version"]})
        assert r.status_code == 200, r.text
        return int(state["game"]["version"]), action

    def challenge(self, opponent: str, **options: Any) -> int:
        r = self.post("/api/invitations", {"opponent": opponent, "options": {"creator_side": "1", **options}})
        assert r.status_code == 201, r.text
        return int(r.json()["invitation"])


def bot_account(base: str, name: str, upgrade: bool = True) -> tuple[Human, str]:
    owner = Human(base, name)
    token = owner.token(["bot:play", "challenge:write"])
    if upgrade:
        r = httpx.post(base + "/api/bot/account/upgrade", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
    return owner, token


class Stream:
    """An ndjson stream read line by line (keep-alives as empty strings)."""

    def __init__(self, base: str, path: str, token: str):
        self.client = httpx.Client(base_url=base, timeout=httpx.Timeout(10.0))
        self.ctx = self.client.stream("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.ctx.__enter__()
        assert self.response.status_code == 200
        self.lines = self.response.iter_lines()

    def next(self) -> str:
        return next(self.lines)

    def until(self, kind: str, limit: int = 200) -> dict[str, Any]:
        for _ in range(limit):
            line = self.next()
            if line.strip():
                doc = json.loads(line)
                if doc["type"] == kind:
                    return dict(doc)
        raise AssertionError(f"no {kind} line")

    def close(self) -> None:
        self.ctx.__exit__(None, None, None)
        self.client.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = {"LOW_BOT_KEEPALIVE": "0.3", "LOW_BOT_STREAM_POLL": "0.1", "LOW_BOT_API_RATE": "100000"}
    with running_server(tmp_path_factory.mktemp("botapi"), port=None, **env) as base:
        yield base


def hidden_everywhere(doc: Any, path: str = "") -> None:
    """No seed and no deck list anywhere in a document sent to a player."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            assert key not in ("seed", "decks"), f"{path}.{key} sent"
            hidden_everywhere(value, f"{path}.{key}")
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            hidden_everywhere(value, f"{path}[{i}]")


def check_hidden(msg: dict[str, Any], seat: int) -> None:
    hidden_everywhere(msg)
    view = msg["view"]
    other = view["players"][str(3 - seat)]
    assert other["hand"] and all(card is None for card in other["hand"]), other["hand"]
    assert all(card is not None for card in view["players"][str(seat)]["hand"])
    for p in ("1", "2"):
        assert isinstance(view["players"][p]["deck"], int)  # a count: no order, no contents


def test_the_event_stream_tells_challenges_and_games_starting_and_ending(server: str) -> None:
    _owner, token = bot_account(server, "eventbot")
    human = Human(server, "eventhuman")
    events = Stream(server, "/api/bot/stream/event", token)
    try:
        assert events.next() == ""  # nothing yet: a keep-alive line
        inv = human.challenge("eventbot")
        challenge = events.until("challenge")["challenge"]
        assert challenge["id"] == inv and challenge["creator"] == "eventhuman" and challenge["opponent"] == "eventbot"
        assert challenge["options"]["hands"] == "hidden"
        cancelled = human.challenge("eventbot")
        assert events.until("challenge")["challenge"]["id"] == cancelled
        assert human.post(f"/api/invitations/{cancelled}/cancel").status_code == 200
        assert events.until("challengeCanceled")["challenge"] == {"id": cancelled, "status": "cancelled"}
        auth = {"Authorization": f"Bearer {token}"}
        game = httpx.post(f"{server}/api/bot/challenge/{inv}/accept", headers=auth).json()["game"]
        start = events.until("gameStart")["game"]
        assert start["id"] == game and start["status"] == "running" and start["you"] == 2
        assert human.post(f"/api/games/{game}/resign").status_code == 200
        finish = events.until("gameFinish")["game"]
        assert finish["id"] == game and finish["result"]["winner"] is None and finish["aborted"]  # resigned unplayed
    finally:
        events.close()


def test_the_game_stream_is_the_players_own_view_and_hides_what_the_player_may_not_see(server: str) -> None:
    owner, token = bot_account(server, "viewbot")
    human = Human(server, "viewhuman")
    inv = human.challenge("viewbot", hands="hidden")
    auth = {"Authorization": f"Bearer {token}"}
    game = httpx.post(f"{server}/api/bot/challenge/{inv}/accept", headers=auth).json()["game"]
    stream = Stream(server, f"/api/bot/game/stream/{game}", token)
    try:
        first = json.loads(stream.next())
        assert first["type"] == "state" and first["game"]["you"] == 2
        # exactly what the same player gets from GET /api/games/{id} (the bot's owner signed in)
        seen = owner.http.get(f"/api/games/{game}").json()
        for doc in (first, seen):
            doc["game"].pop("server_time")
            doc["game"].pop("clocks")
        assert {k: v for k, v in first.items() if k != "type"} == seen
        check_hidden(first, 2)
        # the human plays the opening; every update the bot gets hides the same
        rng = random.Random(7)
        updates = 0
        for _ in range(6):
            if (played := human.random_move(game, rng)) is None:
                break
            before, action = played
            msg = stream.until("update")
            assert msg["game"]["version"] == before + 1
            assert [e["action"] for e in msg["log"]] == [action]
            check_hidden(msg, 2)
            updates += 1
        assert updates >= 1
        # someone else's game stream: refused
        other_owner, other = bot_account(server, "otherbot")
        r = httpx.get(f"{server}/api/bot/game/stream/{game}", headers={"Authorization": f"Bearer {other}"})
        assert r.status_code == 403
    finally:
        stream.close()


def play_randomly(human: Human, game: int, seed: int, limit_s: float = 240) -> dict[str, Any]:
    """Random legal actions whenever the game waits for the human, until it is over."""
    rng = random.Random(seed)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        state = human.http.get(f"/api/games/{game}").json()
        if state["game"]["status"] == "over":
            return dict(state)
        if not state["legal"]:
            time.sleep(0.02)
            continue
        busy = [a for a in state["legal"] if not a.startswith(("pass", "draw"))]
        action = rng.choice(busy or state["legal"])
        r = human.post(f"/api/games/{game}/actions", {"action": action, "version": state["game"]["version"]})
        assert r.status_code in (200, 409), r.text
    raise AssertionError(f"game {game} did not end within {limit_s} s")


def test_the_example_bot_plays_whole_games_against_a_player(server: str, tmp_path: Path) -> None:
    owner = Human(server, "examplebot")
    token = owner.token(["bot:play"])
    human = Human(server, "examplehuman")
    log = open(tmp_path / "bot.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, str(CLIENT), "--server", server, "--token", token, "--games", "2", "--seed", "3", "--upgrade"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        auth = {"Authorization": f"Bearer {token}"}
        deadline = time.monotonic() + 30
        while not httpx.get(f"{server}/api/bot/account", headers=auth).json()["bot_account"]:
            assert time.monotonic() < deadline and proc.poll() is None, (tmp_path / "bot.log").read_text()
            time.sleep(0.1)
        finals = []
        for seed, side in ((1, "1"), (2, "2")):  # the human moves first, then the bot
            inv = human.challenge("examplebot", creator_side=side)
            deadline = time.monotonic() + 30
            game = None
            while game is None:
                assert time.monotonic() < deadline, (tmp_path / "bot.log").read_text()
                accepted = [a for a in human.http.get("/api/lobby").json()["accepted"] if a["invitation"] == inv]
                game = accepted[0]["game"] if accepted else None
                time.sleep(0.05)
            final = play_randomly(human, game, seed)
            finals.append(final)
            reason = final["game"]["result"]["reason"]
            assert final["game"]["status"] == "over" and reason, final["game"]
            ending = final["game"]["result"]["termination"]
            assert ending not in ("timeout", "deadline", "resignation"), reason  # played to the end
            print(f"game {game}: {reason}")
            assert final["game"]["players"][str(3 - int(side))]["name"] == "examplebot"
            bot_actions = [e for e in final["log"] if e["player"] == 3 - int(side) and e["action"]]
            assert bot_actions, "the bot played"
        assert proc.wait(60) == 0, (tmp_path / "bot.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


def test_streams_end_at_once_when_the_server_stops(tmp_path: Path) -> None:
    with running_server(tmp_path, LOW_BOT_KEEPALIVE="30") as base:
        _owner, token = bot_account(base, "stopbot")
        human = Human(base, "stophuman")
        inv = human.challenge("stopbot")
        game = httpx.post(
            f"{base}/api/bot/challenge/{inv}/accept", headers={"Authorization": f"Bearer {token}"}
        ).json()["game"]
        events = Stream(base, "/api/bot/stream/event", token)
        moves = Stream(base, f"/api/bot/game/stream/{game}", token)
        assert events.until("gameStart")["game"]["id"] == game
        assert json.loads(moves.next())["type"] == "state"
        started = time.monotonic()
    stopped = time.monotonic() - started  # the server's process has exited
    assert stopped < 2.5, f"the server took {stopped:.1f} s to stop (Uvicorn's grace period is 5 s)"
    for stream in (events, moves):  # each ended cleanly: no more lines, no error
        assert list(stream.lines) == []
        stream.close()


def test_a_game_stream_follows_changes_made_on_another_server_process(tmp_path: Path) -> None:
    """Two processes on one PostgreSQL database with Redis: the bot's streams are on one, the
    player acts on the other; the hub's Redis channel brings every change to the bot."""
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_connect_timeout=2).ping()
    except Exception as exc:
        pytest.skip(f"Redis not reachable at 127.0.0.1:6379: {exc}")
    env = {"LOW_REDIS_URL": "redis://127.0.0.1:6379/0", "LOW_BOT_KEEPALIVE": "0.3", "LOW_BOT_STREAM_POLL": "0.1"}
    with database("postgresql", tmp_path) as url, ExitStack() as stack:
        bases = []
        for name in ("a", "b"):
            data = tmp_path / name
            data.mkdir()
            bases.append(stack.enter_context(running_server(data, port=None, LOW_DATABASE_URL=url, **env)))
        here, there = bases
        _owner, token = bot_account(here, "farbot")
        human = Human(there, "farhuman")  # on the other process
        events = Stream(here, "/api/bot/stream/event", token)
        stack.callback(events.close)
        inv = human.challenge("farbot", hands="hidden")
        assert events.until("challenge")["challenge"]["id"] == inv
        auth = {"Authorization": f"Bearer {token}"}
        game = httpx.post(f"{here}/api/bot/challenge/{inv}/accept", headers=auth).json()["game"]
        assert events.until("gameStart")["game"]["id"] == game
        stream = Stream(here, f"/api/bot/game/stream/{game}", token)
        stack.callback(stream.close)
        first = json.loads(stream.next())
        check_hidden(first, 2)
        version = first["game"]["version"]
        rng = random.Random(5)
        for _ in range(4):
            if (played := human.random_move(game, rng)) is None:
                break
            before, action = played
            while True:  # an update, or a fresh state when the other process reloaded the game
                line = stream.next()
                if not line:
                    continue
                msg = json.loads(line)
                if msg["type"] in ("update", "state") and msg["game"]["version"] > version:
                    break
            version = msg["game"]["version"]
            assert version == before + 1
            assert msg["log"][-1]["action"] == action
            check_hidden(msg, 2)
        assert human.post(f"/api/games/{game}/resign").status_code == 200
        assert events.until("gameFinish")["game"]["id"] == game
        rest = [json.loads(line) for line in stream.lines if line]  # the stream ends with the game
        assert rest and rest[-1]["game"]["status"] == "over"
        assert rest[-1]["game"]["result"]["winner"] == (None if rest[-1]["game"]["aborted"] else 2)
