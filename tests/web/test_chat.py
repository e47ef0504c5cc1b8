"""Game chat over HTTP and the game's socket: the players' and the spectators' rooms kept apart,
quick phrases, the chat setting, games against bots, and every abuse limit refusing with a clear
answer and keeping nothing (docs/community.md, "Chat")."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from starlette.testclient import WebSocketTestSession

from lordsofwar.web.app import create_app
from lordsofwar.web.chat import service as chat_service
from lordsofwar.web.chat.schemas import PhraseKey
from lordsofwar.web.chat.service import MAX_LENGTH, VISIBLE, ChatService, clean
from lordsofwar.web.models import ChatMessage, Moderator, User
from lordsofwar.web.problem import Problem
from tests.web.conftest import Player, database, new_game, settings_for

SQLITE_ONLY = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
POSTGRESQL_ONLY = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
_names = itertools.count()


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One server for the module (SQLite): each test signs up players of its own."""
    url = f"sqlite:///{tmp_path_factory.mktemp('chat') / 'low.sqlite3'}"
    with TestClient(create_app(settings_for(url)), base_url="http://testserver") as c:
        yield c


def player(client: TestClient, name: str) -> Player:
    return Player(client, f"{name}{next(_names)}").signup()


@pytest.fixture
def alice(client: TestClient) -> Player:
    return player(client, "alice")


@pytest.fixture
def bob(client: TestClient) -> Player:
    return player(client, "bob")


@pytest.fixture
def carol(client: TestClient) -> Player:
    return player(client, "carol")


def chat(p: Player, game: int) -> dict[str, Any]:
    r = p.get(f"/api/games/{game}/chat")
    assert r.status_code == 200, r.text
    return dict(r.json())


def say(p: Player, game: int, text: str | None = None, phrase: str | None = None) -> Any:
    body = {"text": text} if phrase is None else {"phrase": phrase}
    return p.post(f"/api/games/{game}/chat", body)


def next_chat(ws: WebSocketTestSession, limit: int = 10) -> dict[str, Any]:
    """The next chat message on a socket (skipping game messages); the game's own ``pong`` ends
    the wait with an error, so ping after what must not come to prove it did not."""
    for _ in range(limit):
        msg = json.loads(ws.receive_text())
        if msg["type"] == "chat":
            return dict(msg["message"])
        assert msg["type"] != "pong", "no chat message came"
    raise AssertionError("no chat message")


def no_chat(ws: WebSocketTestSession) -> None:
    """Nothing of the chat is queued for this socket (a ping's pong comes first)."""
    ws.send_json({"type": "ping"})
    for _ in range(10):
        msg = json.loads(ws.receive_text())
        assert msg["type"] != "chat", msg
        if msg["type"] == "pong":
            return
    raise AssertionError("no pong")


def stored(client: TestClient, game: int) -> int:
    async def count() -> int:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            return int(
                await db.scalar(select(func.count()).select_from(ChatMessage).where(ChatMessage.game_id == game)) or 0
            )

    return int(client.portal.call(count))  # type: ignore[union-attr]


def user_id(client: TestClient, name: str) -> int:
    async def find() -> int:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            return int(await db.scalar(select(User.id).where(User.name == name)) or 0)

    return int(client.portal.call(find))  # type: ignore[union-attr]


def grant_moderator(client: TestClient, name: str) -> None:
    uid = user_id(client, name)

    async def grant() -> None:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            db.add(Moderator(user_id=uid))
            await db.commit()

    client.portal.call(grant)  # type: ignore[union-attr]


def test_players_and_spectators_rooms_are_kept_apart(
    client: TestClient, alice: Player, bob: Player, carol: Player
) -> None:
    game = new_game(alice, bob)
    with alice.socket(game) as wa, bob.socket(game) as wb, carol.socket(game) as wc:
        for ws in (wa, wb, wc):
            assert json.loads(ws.receive_text())["type"] == "state"
        r = say(alice, game, "hi bob")
        assert r.status_code == 201, r.text
        sent = r.json()
        assert (
            sent["room"] == "players"
            and sent["user"] == alice.name
            and sent["text"] == "hi bob"
            and sent["phrase"] is None
        )
        assert next_chat(wb) == sent and next_chat(wa) == sent
        no_chat(wc)  # the spectator does not read the players
        r = say(carol, game, "go alice")
        assert r.status_code == 201 and r.json()["room"] == "spectators"
        assert next_chat(wc)["text"] == "go alice"
        no_chat(wa)
        no_chat(wb)  # nor do the players read the spectators while the game runs
    assert chat(alice, game)["rooms"] == {"players": [sent], "spectators": None}
    seen = chat(carol, game)
    assert seen["room"] == "spectators" and seen["rooms"]["players"] is None
    assert [m["text"] for m in seen["rooms"]["spectators"]] == ["go alice"]
    anonymous = Player(client, "nobody")
    anonymous.refresh()
    assert chat(anonymous, game)["room"] is None  # reads the spectators, cannot write
    assert say(anonymous, game, "hello").status_code == 401
    assert alice.post(f"/api/games/{game}/resign").status_code == 200
    after = chat(bob, game)["rooms"]  # over: the players read the spectators too
    assert [m["text"] for m in after["players"]] == ["hi bob"]
    assert [m["text"] for m in after["spectators"]] == ["go alice"]
    assert chat(carol, game)["rooms"]["players"] is None  # the players' room stays theirs
    assert say(bob, game, "gg").json()["room"] == "players"


def test_quick_phrases_are_keys(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    r = say(alice, game, phrase="good_luck")
    assert r.status_code == 201
    assert r.json()["phrase"] == "good_luck" and r.json()["text"] == "Good luck"
    assert chat(bob, game)["phrases"] == ["hello", "good_luck", "good_game", "thanks", "well_played"]
    assert set(get_args(PhraseKey)) == set(chat_service.PHRASES)
    r = say(alice, game, phrase="insult")
    assert r.status_code == 422 and "phrase" in r.json()["detail"]
    r = alice.post(f"/api/games/{game}/chat", {"text": "x", "phrase": "hello"})
    assert r.status_code == 422
    r = alice.post(f"/api/games/{game}/chat", {"text": "x", "colour": "red"})
    assert r.status_code == 422


def test_texts_are_cleaned_and_limited(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    for text in ("", "   ", "\u202e\u2066", "\x00\u200f", "x" * (MAX_LENGTH + 1)):
        r = say(alice, game, text)
        assert r.status_code == 422 and "text" in r.json()["detail"], text
    assert stored(client, game) == 0
    assert say(alice, game, "z" * MAX_LENGTH).status_code == 201
    r = say(bob, game, "abc\u202edef\u2067ghi\u200f")
    assert r.json()["text"] == "abcdefghi"
    r = say(bob, game, "<script>alert(1)</script> see https://example.com")
    assert r.json()["text"] == "<script>alert(1)</script> see https://example.com"  # kept as typed: pages show text
    assert clean("a\n\tb\x00c\u2028d") == "a bc d"
    assert all(not re.search(VISIBLE, t) for t in ("", " \t", "\u202e\u2066\u061c\ufeff")) and re.search(
        VISIBLE, "\u202ex"
    )


def test_the_same_message_again_is_refused(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    assert say(alice, game, "ready?").status_code == 201
    r = say(alice, game, "  READY?  ")
    assert r.status_code == 409 and r.json()["code"] == "repeat"
    assert say(alice, game, phrase="hello").status_code == 201
    assert say(alice, game, phrase="hello").status_code == 409
    assert say(bob, game, "ready?").status_code == 201  # another writer may say it
    assert stored(client, game) == 3


def test_ten_thousand_messages_are_cut_by_the_rate_limit(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    app: Any = client.app
    chat_svc: ChatService = app.state.chat

    async def flood() -> tuple[int, dict[int, int]]:
        rt = await app.state.services.games.runtime(game)
        refused: dict[int, int] = {}
        kept = 0
        async with app.state.services.sessions() as db:
            user = await db.scalar(select(User).where(User.name == alice.name))
            assert user is not None
            for i in range(10_000):
                try:
                    await chat_svc.post(db, rt, user, f"message {i}", None)
                    kept += 1
                except Problem as exc:
                    refused[exc.status] = refused.get(exc.status, 0) + 1
        return kept, refused

    start = time.monotonic()
    kept, refused = client.portal.call(flood)  # type: ignore[union-attr]
    assert kept == chat_service.PER_PLAYER[0].amount and refused == {429: 10_000 - kept}
    assert stored(client, game) == kept
    assert time.monotonic() - start < 20
    r = say(alice, game, "one more")
    assert r.status_code == 429 and r.json()["code"] == "rate"
    assert say(bob, game, "my turn to talk").status_code == 201  # the limit is the writer's


def test_chat_off_hides_and_sends_nothing(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    assert bob.get("/api/chat/settings").json() == {"enabled": True}
    assert bob.send("PUT", "/api/chat/settings", {"enabled": False}).json() == {"enabled": False}
    assert bob.send("PUT", "/api/chat/settings", {"enabled": False}, csrf="forged").status_code == 403
    with bob.socket(game) as wb:
        assert json.loads(wb.receive_text())["type"] == "state"
        assert say(alice, game, "are you there?").status_code == 201
        no_chat(wb)
    seen = chat(bob, game)
    assert seen["enabled"] is False and seen["room"] is None and seen["rooms"] == {"players": None, "spectators": None}
    r = say(bob, game, "hello")
    assert r.status_code == 409 and r.json()["code"] == "off"
    assert bob.send("PUT", "/api/chat/settings", {"enabled": True}).json() == {"enabled": True}
    with bob.socket(game) as wb:
        assert json.loads(wb.receive_text())["type"] == "state"
        assert say(alice, game, "now?").status_code == 201
        assert next_chat(wb)["text"] == "now?"
    assert [m["text"] for m in chat(bob, game)["rooms"]["players"]] == ["are you there?", "now?"]


def test_the_settings_page_switches_the_same_chat_setting(client: TestClient, alice: Player) -> None:
    """One setting in two places: the settings page shows and changes what the chat panel's
    switch (PUT /api/chat/settings) does."""

    def settings_button() -> str:
        page = alice.get("/settings", headers={"accept": "text/html"}).text
        found = re.search(r'id="settings-chat-submit">([^<]+)<', page)
        assert found is not None
        return found.group(1)

    def switch(value: str, csrf: str | None = None) -> Any:
        r = alice.use().post(
            "/settings/chat", data={"csrf": csrf or alice.csrf, "enabled": value}, follow_redirects=False
        )
        alice._keep()
        return r

    assert settings_button() == "Turn chat off"
    r = switch("no")
    assert r.status_code == 303 and r.headers["location"] == "/settings#chat-settings"
    assert alice.get("/api/chat/settings").json() == {"enabled": False}
    assert settings_button() == "Turn chat on"
    assert switch("maybe").status_code == 400 and switch("yes", csrf="forged").status_code == 403
    assert alice.get("/api/chat/settings").json() == {"enabled": False}  # refused: nothing changed
    assert alice.send("PUT", "/api/chat/settings", {"enabled": True}).status_code == 200  # the panel's switch
    assert settings_button() == "Turn chat off"
    anonymous = Player(client, "nobody")
    anonymous.refresh()
    r = anonymous.use().post("/settings/chat", data={"csrf": anonymous.csrf, "enabled": "no"}, follow_redirects=False)
    assert r.status_code == 401


def test_games_against_bots_have_no_chat(client: TestClient, alice: Player) -> None:
    r = alice.post("/api/invitations", {"bot": "random", "options": {"creator_side": "1"}})
    game = r.json()["game"]
    assert chat(alice, game)["available"] is False
    r = say(alice, game, "hello bot")
    assert r.status_code == 409 and r.json()["code"] == "bot"
    assert stored(client, game) == 0


def test_refusals_change_nothing(client: TestClient, alice: Player, bob: Player, carol: Player) -> None:
    private = new_game(alice, bob, public=False)
    assert carol.get(f"/api/games/{private}/chat").status_code == 403
    assert say(carol, private, "let me in").status_code == 403
    assert alice.post(f"/api/games/{private}/chat", {"text": "hi"}, csrf="forged").status_code == 403
    assert alice.get("/api/games/999999/chat").status_code == 404
    assert say(alice, 999999, "hi").status_code == 404
    assert stored(client, private) == 0


def test_muted_and_blocked_players_are_refused(client: TestClient, alice: Player, bob: Player, carol: Player) -> None:
    game = new_game(alice, bob)
    mod = player(client, "mod")
    grant_moderator(client, mod.name)
    r = mod.post("/api/moderation/actions", {"action": "mute", "player": carol.name, "reason": "insults", "hours": 2})
    assert r.status_code == 201, r.text
    r = say(carol, game, "hi all")
    assert r.status_code == 403 and r.json()["code"] == "muted" and "UTC" in r.json()["detail"]
    assert bob.post(f"/api/players/{alice.name}/block").status_code in (200, 201)
    r = say(alice, game, "hi bob")
    assert r.status_code == 403 and r.json()["code"] == "blocked"
    r = say(bob, game, "hi alice")  # whichever way round
    assert r.status_code == 403 and r.json()["code"] == "blocked"
    assert stored(client, game) == 0
    assert (
        mod.post(
            "/api/moderation/actions", {"action": "lift", "player": carol.name, "reason": "said sorry"}
        ).status_code
        == 201
    )
    assert say(carol, game, "sorry").status_code == 201  # the spectators' room has no pair to block
    assert bob.send("DELETE", f"/api/players/{alice.name}/block").status_code == 200
    assert say(alice, game, "hi bob").status_code == 201


def test_a_post_waits_while_another_connection_writes(client: TestClient, alice: Player, bob: Player) -> None:
    """On SQLite a post's checks and insert run in the event loop's thread and never wait inside
    SQLite: while another connection holds the write lock the loop serves others, and the post
    is kept once the lock is free."""
    game = new_game(alice, bob)
    app: Any = client.app
    path = app.state.settings.database_url.removeprefix("sqlite:///")

    async def scenario() -> tuple[str, bool]:
        rt = await app.state.services.games.runtime(game)
        async with app.state.services.sessions() as db:
            user = await db.scalar(select(User).where(User.name == alice.name))
            lock = sqlite3.connect(path, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")
            try:
                task = asyncio.create_task(app.state.chat.post(db, rt, user, "after the lock", None))
                await asyncio.sleep(0.1)  # the loop runs on while the post waits
                waiting = not task.done()
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            return (await task)["text"], waiting

    assert client.portal.call(scenario) == ("after the lock", True)  # type: ignore[union-attr]
    assert [m["text"] for m in chat(bob, game)["rooms"]["players"]] == ["after the lock"]


@POSTGRESQL_ONLY
def test_posting_on_postgresql(db_url: str) -> None:
    """The same rules on PostgreSQL, where a post asks its checks and keeps the message through
    the request's session: kept, the same again refused, a block and a mute refused."""
    with TestClient(create_app(settings_for(db_url))) as c:
        alice, bob, mod = (Player(c, name).signup() for name in ("alice", "bob", "mod"))
        game = new_game(alice, bob)
        sent = say(alice, game, "hello bob")
        assert sent.status_code == 201, sent.text
        assert say(bob, game, phrase="hello").status_code == 201
        assert say(alice, game, " HELLO  bob").json()["code"] == "repeat"
        assert bob.post(f"/api/players/{alice.name}/block").status_code in (200, 201)
        assert say(alice, game, "why?").json()["code"] == "blocked"
        assert bob.send("DELETE", f"/api/players/{alice.name}/block").status_code == 200
        grant_moderator(c, "mod")
        r = mod.post("/api/moderation/actions", {"action": "mute", "player": "alice", "reason": "spam", "hours": 1})
        assert r.status_code == 201, r.text
        assert say(alice, game, "still here").json()["code"] == "muted"
        rooms = chat(bob, game)["rooms"]
        assert [m["text"] for m in rooms["players"]] == ["hello bob", "Hello"] and rooms["players"][0] == sent.json()


def test_messages_for_report(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    ids = [say(alice if i % 2 else bob, game, f"line {i}").json()["id"] for i in range(7)]

    async def report() -> Any:
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            return await chat_service.messages_for_report(
                db, ids[3], context=2
            ), await chat_service.messages_for_report(db, 10**6)

    found, missing = client.portal.call(report)  # type: ignore[union-attr]
    assert missing is None
    assert found["message"]["text"] == "line 3" and found["message"]["user"] == alice.name
    assert [m["text"] for m in found["before"]] == ["line 1", "line 2"]
    assert [m["text"] for m in found["after"]] == ["line 4", "line 5"]
    assert found["game_id"] == game


@SQLITE_ONLY
def test_across_processes_spectators_never_reach_players(db_url: str, redis_url: str) -> None:
    """Two servers on one database and one Redis: the players on one, a spectator on the other;
    messages cross over to the readers of their room only, and the chat setting crosses too."""
    app_a = create_app(settings_for(db_url, redis_url=redis_url))
    app_b = create_app(settings_for(db_url, redis_url=redis_url), run_migrations=False)
    with TestClient(app_a) as ca, TestClient(app_b) as cb:
        alice, bob, carol = Player(ca, "alice").signup(), Player(ca, "bob").signup(), Player(cb, "carol").signup()
        game = new_game(alice, bob)
        bob_b = Player(cb, "bob")
        bob_b.cookies = dict(bob.cookies)
        bob_b.refresh()
        with bob_b.socket(game) as wb, carol.socket(game) as wc, alice.socket(game) as wa:
            for ws in (wa, wb, wc):
                assert json.loads(ws.receive_text())["type"] == "state"
            for i in range(3):
                assert say(carol, game, f"spectating {i}").status_code == 201  # on B
            assert say(bob_b, game, "from server B").status_code == 201
            # B publishes in order: had the spectators' messages crossed to A, they would come first
            assert next_chat(wa)["text"] == "from server B"
            assert next_chat(wb)["text"] == "from server B"
            assert say(alice, game, "from server A").status_code == 201
            assert next_chat(wa)["text"] == "from server A"
            assert next_chat(wb)["text"] == "from server A"  # crossed to B, to the player there
            assert [next_chat(wc)["text"] for _ in range(3)] == ["spectating 0", "spectating 1", "spectating 2"]
            no_chat(wc)  # the players' messages, delivered on B with bob's, did not come to carol
            no_chat(wa)
            no_chat(wb)
            assert alice.send("PUT", "/api/chat/settings", {"enabled": False}).status_code == 200  # on A
            deadline = time.monotonic() + 5
            while app_b.state.chat.enabled.get(user_id(ca, "alice")) is not False:
                assert time.monotonic() < deadline, "the setting did not reach server B"
                time.sleep(0.02)
        # a block or a mute given on A refuses the very next post on B
        assert alice.post("/api/players/bob/block").status_code in (200, 201)
        assert say(bob_b, game, "hello?").json()["code"] == "blocked"
        assert alice.send("DELETE", "/api/players/bob/block").status_code == 200
        assert say(bob_b, game, "hello?").status_code == 201
        mod = Player(ca, "moderator").signup()
        grant_moderator(ca, "moderator")
        r = mod.post("/api/moderation/actions", {"action": "mute", "player": "bob", "reason": "spam", "hours": 1})
        assert r.status_code == 201, r.text
        assert say(bob_b, game, "hello again?").json()["code"] == "muted"


def test_two_server_processes_keep_the_spectators_apart(tmp_path: Any, redis_url: str) -> None:
    """The same with two real server processes (`lordsofwar serve`) on one database and one
    Redis: the players' sockets on either process, the spectator's on the second."""
    from websockets.sync.client import connect

    from tests.web.server import running_servers
    from tests.web.test_two_processes import Client

    def socket(stack: ExitStack, base: str, who: Client, game: int) -> Any:
        ws = stack.enter_context(
            connect(
                base.replace("http://", "ws://") + f"/api/games/{game}/ws",
                additional_headers={"Cookie": f"low_session={who.http.cookies['low_session']}"},
            )
        )
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        return ws

    def chats(ws: Any, until_pong: bool = False) -> Iterator[str]:
        """The texts of the chat messages that come (until a pong, after a ping)."""
        if until_pong:
            ws.send('{"type":"ping"}')
        while True:
            msg = json.loads(ws.recv(timeout=10))
            if msg["type"] == "pong" and until_pong:
                return
            if msg["type"] == "chat":
                yield msg["message"]["text"]

    def say_on(who: Client, game: int, text: str) -> None:
        r = who.post(f"/api/games/{game}/chat", {"text": text})
        assert r.status_code == 201, r.text

    with (
        database("sqlite", tmp_path) as url,
        running_servers(tmp_path, LOW_DATABASE_URL=url, LOW_REDIS_URL=redis_url) as bases,
    ):
        a, b = bases
        alice, bob = Client(a).signup("alice"), Client(a).signup("bob")
        carol = Client(b).signup("carol")
        r = alice.post("/api/invitations", {"opponent": "bob", "options": {"creator_side": "1"}})
        game = int(bob.post(f"/api/invitations/{r.json()['invitation']}/accept").json()["game"])
        bob_b = bob.elsewhere(b)
        with ExitStack() as stack:
            wa, wb, wc = socket(stack, a, alice, game), socket(stack, b, bob_b, game), socket(stack, b, carol, game)
            for i in range(3):
                say_on(carol, game, f"spectating {i}")  # on B
            say_on(bob_b, game, "from B")  # after them, on B: what reaches A comes in this order
            assert next(chats(wa)) == "from B"
            say_on(alice, game, "from A")
            assert next(chats(wb)) == "from B" and next(chats(wb)) == "from A"
            got = chats(wc)
            assert [next(got) for _ in range(3)] == ["spectating 0", "spectating 1", "spectating 2"]
            for ws in (wa, wb, wc):
                assert list(chats(ws, until_pong=True)) == ([] if ws is not wa else ["from A"])
