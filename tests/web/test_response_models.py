"""Every JSON answer is declared, and declared exactly: the OpenAPI description gives each route a
response model (no untyped object, no empty schema), and the documents the services really return
fit those models with nothing dropped and nothing missing. A response model silently drops what it
does not declare, so the raw document each route returns is compared with its model's reading of
it, for real answers of every route, and so are the game socket's messages."""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from fastapi import routing
from fastapi.encoders import jsonable_encoder
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy import create_engine, insert, select

from lordsofwar import core
from lordsofwar.learn import puzzles
from lordsofwar.web.app import create_app
from lordsofwar.web.games.schemas import SOCKET_MESSAGES, CardFacts, SocketMessage
from lordsofwar.web.models import Rating, User, utcnow
from tests.web.conftest import Player, new_game, settings_for, until

UNTYPED_ANSWERS = {  # answers that are not JSON documents of a model, and why
    "GET /api/games/{game_id}/record": "a file download (the game record, notation.md section 5)",
    "GET /api/decks/{deck_id}/export": "a file download (plain text or JSON deck file)",
    "GET /api/account/data": "a file download (everything kept about the player, docs/web-api.md)",
    "GET /api/bot/stream/event": "an ndjson stream (docs/bot-api.md)",
    "GET /api/bot/game/stream/{game_id}": "an ndjson stream (docs/bot-api.md)",
}
LOOSE: set[str] = set()  # schemas that may take any further field (none: the log's events are typed by kind)


# --- the description ----------------------------------------------------------------------------


def _description(tmp_path: Any) -> dict[str, Any]:
    app = create_app(settings_for(f"sqlite:///{tmp_path / 'low.sqlite3'}"), run_migrations=False)
    return app.openapi()


def _untyped(schema: Any, components: dict[str, Any], where: str, seen: set[str]) -> list[str]:
    """Where ``schema`` (followed through its references) leaves a document's shape open: an empty
    schema, or an object with no properties or taking any field (the LOOSE components apart)."""
    if not isinstance(schema, dict):
        return []
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return []
        seen.add(name)
        if name in LOOSE:
            return []
        return _untyped(components[name], components, name, seen)
    if not schema or set(schema) <= {"title", "description", "default"}:
        return [f"{where}: an empty schema"]
    found = []
    if schema.get("type") == "object":
        if not schema.get("properties") and not isinstance(schema.get("additionalProperties"), dict):
            found.append(f"{where}: an object without properties")
        if schema.get("additionalProperties") is True:
            found.append(f"{where}: an object taking any field")
    for key in ("properties",):
        for name, sub in schema.get(key, {}).items():
            found += _untyped(sub, components, f"{where}.{name}", seen)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found += _untyped(schema[key], components, f"{where}[]", seen)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            found += _untyped(sub, components, where, seen)
    return found


def test_every_json_route_declares_the_shape_of_its_answer_sqlite(tmp_path: Any) -> None:
    doc = _description(tmp_path)
    components = doc["components"]["schemas"]
    found: list[str] = []
    seen = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            where = f"{method.upper()} {path}"
            answers = {code: a for code, a in op["responses"].items() if code.startswith("2")}
            assert answers, f"{where} declares no successful answer"
            if where in UNTYPED_ANSWERS:
                continue
            for code, answer in answers.items():
                content = answer.get("content", {})
                assert set(content) == {"application/json"}, f"{where} {code}: {sorted(content)}"
                seen += 1
                found += _untyped(content["application/json"].get("schema", {}), components, f"{where} {code}", set())
    assert seen >= 45
    assert not found, "answers without a declared shape:\n" + "\n".join(found)


def test_the_socket_messages_are_in_the_description_sqlite(tmp_path: Any) -> None:
    components = _description(tmp_path)["components"]["schemas"]
    for model in SOCKET_MESSAGES:
        assert model.__name__ in components, model.__name__
        assert not _untyped({"$ref": f"#/components/schemas/{model.__name__}"}, components, model.__name__, set())
    message = components["SocketMessage"]
    assert {ref["$ref"].rsplit("/", 1)[-1] for ref in message["oneOf"]} == {
        m.__name__ for m in SOCKET_MESSAGES if m.__name__ != "SocketMessage"
    }


# --- the answers, as the services return them ----------------------------------------------------


def _plain(value: Any) -> Any:
    """Tuples as lists, for comparing documents."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _same_json(a: Any, b: Any) -> bool:
    """Equal JSON documents, a time written with ``Z`` or ``+00:00`` being the same time."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str) and a != b:
        try:
            return datetime.fromisoformat(a) == datetime.fromisoformat(b)
        except ValueError:
            return False
    return bool(a == b) and type(a) is type(b) or (type(a) in (int, float) and type(b) in (int, float) and a == b)


def _built(doc: Any) -> bool:
    """Whether a route built its answer as its model already (nothing of it can be dropped)."""
    return isinstance(doc, BaseModel) or (isinstance(doc, list) and any(isinstance(d, BaseModel) for d in doc))


def exactly(kind: Any, doc: Any, where: str) -> None:
    """``doc`` is a document of ``kind`` with nothing left over and nothing added: it validates,
    and what the model reads back is the document itself."""
    adapter = TypeAdapter(kind)
    try:
        value = adapter.validate_python(doc)
    except ValidationError as exc:
        shown = json.dumps(jsonable_encoder(doc))[:2000]
        raise AssertionError(f"{where}: the document does not fit {kind}:\n{exc}\n{shown}") from None
    if _built(doc):
        return
    read = _plain(adapter.dump_python(value, exclude_unset=True))
    assert read == _plain(doc), f"{where}: the model drops or changes fields:\n{read}\n!=\n{_plain(doc)}"


@dataclass
class Answer:
    op: str
    kind: Any
    raw: Any
    sent: Any


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> list[Answer]:
    """Every answer a route returns from now on: the raw document and what went on the wire."""
    seen: list[Answer] = []
    original = routing.serialize_response

    async def recording(**kw: Any) -> Any:
        out = await original(**kw)
        ctx = kw.get("endpoint_ctx") or {}
        field = kw.get("field")
        sent = json.loads(out) if isinstance(out, (bytes, str)) else out
        op = re.sub(r":\w+}", "}", ctx.get("path", "?"))
        raw = copy.deepcopy(kw["response_content"])  # as it was sent (a game's log grows later)
        seen.append(Answer(op, None if field is None else field.field_info.annotation, raw, sent))
        return out

    monkeypatch.setattr(routing, "serialize_response", recording)
    return seen


@pytest.fixture
def app_client(db_url: str) -> Iterator[TestClient]:
    app = create_app(settings_for(db_url, analysis_iterations=30))
    with TestClient(app, base_url="http://testserver") as c:
        yield c


def bearer(client: TestClient, method: str, path: str, token: str, body: Any = None) -> Any:
    client.cookies.clear()
    r = client.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code in (200, 201), f"{method} {path}: {r.status_code} {r.text}"
    return r.json()


def ok(r: Any) -> Any:
    assert r.status_code in (200, 201), f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
    return r.json()


def socket_messages(ws: Any, count: int) -> list[dict[str, Any]]:
    return [json.loads(ws.receive_text()) for _ in range(count)]


def my_turn(p: Player, game: int, limit: float = 30) -> dict[str, Any]:
    """The game's state once ``p`` must act (or it is over): a bot answers meanwhile."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        s = p.state(game)
        if s["legal"] or s["game"]["status"] != "running":
            return s
        time.sleep(0.05)
    raise AssertionError("the bot did not answer")


def _rated_player(client: TestClient, name: str) -> None:
    """A settled, active player of the turn-based pool (as after many rated games), so that the
    leaderboard has a line."""
    engine = create_engine(client.app.state.settings.sync_url())  # type: ignore[attr-defined]
    with engine.begin() as conn:
        users = User.__table__
        user_id = conn.execute(select(users.c.id).where(users.c.name == name)).scalar_one()
        conn.execute(
            insert(Rating).values(
                user_id=user_id, pool="turn", mu=27.5, sigma=3.1, games=14, wins=8, draws=1, losses=5,
                updated_at=utcnow(),
            )
        )  # fmt: skip
    engine.dispose()


@pytest.mark.skipif(core.IMPLEMENTATION != "native", reason="hints and analyses need the compiled core")
def test_every_answer_is_exactly_its_model(app_client: TestClient, answers: list[Answer]) -> None:
    client = app_client
    visitor = Player(client, "visitor")
    visitor.refresh()
    ok(visitor.post("/api/language", {"language": "de"}))
    ok(visitor.post("/api/language", {"language": "en"}))
    alice = Player(client, "alice").signup()
    bob = Player(client, "bob").signup()
    carol = Player(client, "carol").signup()
    ok(carol.post("/api/signout"))
    ok(carol.post("/api/signin", {"name": "carol", "password": carol.password}))
    carol.refresh()

    # the lobby: challenges of every kind, answered
    ok(visitor.get("/api/lobby"))
    open_inv = ok(bob.post("/api/invitations", {"options": {"custom_decks": True}}))["invitation"]
    direct = ok(bob.post("/api/invitations", {"opponent": "alice"}))["invitation"]
    declined = ok(carol.post("/api/invitations", {"opponent": "alice"}))["invitation"]
    cancelled = ok(carol.post("/api/invitations", {}))["invitation"]
    ok(alice.post("/api/decks", {"name": "Horde", "army": "orcs"}))
    ok(alice.get("/api/lobby"))
    ok(alice.post(f"/api/invitations/{declined}/decline"))
    ok(carol.post(f"/api/invitations/{cancelled}/cancel"))
    accepted = ok(alice.post(f"/api/invitations/{direct}/accept"))["game"]
    ok(carol.post(f"/api/invitations/{open_inv}/accept"))
    ok(bob.get("/api/lobby"))  # his challenges accepted, games running and waiting
    ok(visitor.get("/api/lobby"))  # games to watch

    # a game between players: the REST answers and the socket's messages, players and spectator
    game = new_game(alice, bob, public=True, rated=True, mode="turn", days=3)
    sockets: list[dict[str, Any]] = []
    with alice.socket(game) as a_ws, visitor.socket(game) as v_ws:
        sockets.append(until(a_ws, "state"))
        sockets.append(until(v_ws, "state"))
        for _ in range(6):
            mine = alice.state(game)
            mover, s = (alice, mine) if mine["legal"] else (bob, bob.state(game))
            ok(mover.act(game, s["legal"][0], s["game"]["version"]))
            sockets.append(until(a_ws, "update"))
            sockets.append(until(v_ws, "update"))
        a_ws.send_text(json.dumps({"type": "ping"}))
        sockets.append(until(a_ws, "pong"))
        a_ws.send_text(json.dumps({"type": "action", "action": "pass", "version": 0}))
        sockets.append(until(a_ws, "error"))
        sockets.append(until(a_ws, "state"))  # the stale request's fresh state
        a_ws.send_text(json.dumps({"type": "sync"}))
        sockets.append(until(a_ws, "state"))
        ok(alice.get("/api/your-turn"))
        ok(bob.get("/api/your-turn", params={"exclude": game}))
        ok(visitor.get(f"/api/games/{game}"))
        ok(alice.post(f"/api/games/{game}/draw", {"op": "offer"}))
        ok(bob.post(f"/api/games/{game}/draw", {"op": "decline"}))
        ok(bob.post(f"/api/games/{game}/resign"))
        for _ in range(3):
            sockets.append(until(v_ws, "update"))
    ok(alice.get(f"/api/games/{game}"))
    ok(alice.get(f"/api/games/{game}/replay"))
    ok(alice.post(f"/api/games/{game}/rematch"))
    ok(bob.post(f"/api/games/{accepted}/resign"))
    ok(alice.post(f"/api/games/{new_game(alice, bob)}/abort"))

    # against a bot: hints, the analysis, a rematch that starts at once
    hinted = ok(alice.post("/api/invitations", {"bot": "greedy", "options": {"creator_side": "1", "hints": True}}))[
        "game"
    ]
    for _ in range(8):  # past the first turns: a game that ends then is not aborted
        s = my_turn(alice, hinted)
        if s["game"]["status"] != "running":
            break
        hint = ok(alice.post(f"/api/games/{hinted}/hint"))
        ok(alice.act(hinted, hint["action"], s["game"]["version"]))
    ok(alice.post(f"/api/games/{hinted}/resign"))
    ok(alice.post(f"/api/games/{hinted}/rematch"))
    ok(alice.post(f"/api/games/{hinted}/analysis"))
    deadline = time.monotonic() + 120
    while ok(alice.get(f"/api/games/{hinted}/analysis"))["status"] == "running":
        assert time.monotonic() < deadline, "the analysis did not finish"
        time.sleep(0.1)

    # decks
    deck = ok(alice.post("/api/decks", {"name": "Elves", "army": "elves"}))
    ok(alice.get("/api/decks"))
    ok(alice.get(f"/api/decks/{deck['id']}"))
    ok(
        alice.send(
            "PUT",
            f"/api/decks/{deck['id']}",
            {"name": "Elves 2", "cards": deck["cards"][:20], "version": deck["version"]},
        )
    )
    copy = ok(alice.post(f"/api/decks/{deck['id']}/copy", {}))
    ok(alice.send("DELETE", f"/api/decks/{copy['id']}"))
    exported = alice.get(f"/api/decks/{deck['id']}/export").text
    ok(alice.post("/api/decks/import", {"text": exported}))
    ok(alice.post("/api/decks/analyse", {"cards": deck["cards"], "allowed_armies": ["elves"]}))
    ok(alice.post("/api/decks/analyse", {"cards": ["orcs:01", "elves:01"]}))

    # ratings: a new player, players with history, a leaderboard with a row
    _rated_player(client, "carol")
    for pool in ("live", "turn"):
        ok(visitor.get("/api/leaderboard", params={"pool": pool}))
    for name in ("alice", "bob", "carol"):
        ok(visitor.get(f"/api/players/{name}/ratings"))

    # tournaments: made, joined, bots in and out, started, withdrawn from
    tid = ok(alice.post("/api/tournaments", {"name": "Cup", "kind": "swiss", "rounds": 2}))["tournament"]
    ok(bob.post(f"/api/tournaments/{tid}/join", {"army": "orcs"}))
    ok(carol.post(f"/api/tournaments/{tid}/join", {}))
    ok(alice.post(f"/api/tournaments/{tid}/bots", {"level": "random"}))
    ok(alice.post(f"/api/tournaments/{tid}/bots", {"level": "greedy", "army": "elves"}))
    ok(alice.send("DELETE", f"/api/tournaments/{tid}/bots/greedy"))
    ok(alice.post(f"/api/tournaments/{tid}/start"))
    ok(carol.post(f"/api/tournaments/{tid}/withdraw"))
    ok(visitor.get(f"/api/tournaments/{tid}"))
    arena = ok(alice.post("/api/tournaments", {"name": "Arena", "kind": "arena", "minutes": 30}))["tournament"]
    ok(bob.post(f"/api/tournaments/{arena}/join", {}))
    ok(carol.post(f"/api/tournaments/{arena}/join", {}))
    ok(alice.post(f"/api/tournaments/{arena}/start"))
    ok(visitor.get(f"/api/tournaments/{arena}"))
    ok(alice.post("/api/tournaments", {"name": "Later", "kind": "round_robin"}))
    ok(visitor.get("/api/tournaments"))

    # mail settings
    ok(alice.get("/api/settings"))
    ok(alice.post("/api/settings", {"notifications": "digest"}))

    # tokens and the bot API
    dave = Player(client, "dave").signup()
    ok(dave.get("/api/tokens"))
    token = ok(dave.post("/api/tokens", {"description": "my bot", "scopes": ["bot:play", "challenge:write"]}))
    spare = ok(dave.post("/api/tokens", {"description": "spare", "scopes": ["bot:play"]}))
    ok(dave.get("/api/tokens"))
    ok(dave.send("DELETE", f"/api/tokens/{spare['id']}"))
    bearer(client, "GET", "/api/bot/account", token["token"])
    bearer(client, "POST", "/api/bot/account/upgrade", token["token"])
    bearer(client, "POST", "/api/bot/challenge/bob", token["token"], {"options": {"creator_side": "2"}})
    first = ok(alice.post("/api/invitations", {"opponent": "dave", "options": {"creator_side": "2"}}))["invitation"]
    bearer(client, "POST", f"/api/bot/challenge/{first}/decline", token["token"])
    second = ok(alice.post("/api/invitations", {"opponent": "dave", "options": {"creator_side": "2"}}))["invitation"]
    bot_game = bearer(client, "POST", f"/api/bot/challenge/{second}/accept", token["token"])["game"]
    s = bearer(client, "POST", f"/api/bot/game/{bot_game}/draw", token["token"], {"op": "offer"})
    bearer(
        client,
        "POST",
        f"/api/bot/game/{bot_game}/move",
        token["token"],
        {"action": s["legal"][0], "version": s["game"]["version"]},
    )
    bearer(client, "POST", f"/api/bot/game/{bot_game}/resign", token["token"])
    client.cookies.clear()
    for line in client.get(
        f"/api/bot/game/stream/{bot_game}", headers={"Authorization": f"Bearer {token['token']}"}
    ).text.splitlines():
        if line:
            sockets.append(json.loads(line))

    # the puzzles: a guest's and an account's answers, the daily puzzle, streak mode
    first, second = puzzles.load()[0], puzzles.load()[1]
    ok(visitor.get("/api/learn/puzzles"))
    ok(alice.get("/api/learn/puzzles", params={"theme": first.themes[0]}))
    ok(visitor.get(f"/api/learn/puzzles/{first.id}"))
    ok(visitor.get("/api/learn/puzzles/next", params={"skip": first.id}))
    ok(alice.get("/api/learn/puzzles/next"))
    ok(visitor.get("/api/learn/puzzles/daily"))
    ok(visitor.post(f"/api/learn/puzzles/{first.id}/answer", {"action": first.solution}))
    ok(alice.post(f"/api/learn/puzzles/{first.id}/answer", {"action": first.solution}))
    ok(visitor.get("/api/learn/puzzles/streak", params={"seed": 5, "step": 0}))
    run = ok(alice.get("/api/learn/puzzles/streak"))["puzzle"]
    ok(alice.post(f"/api/learn/puzzles/{run['id']}/answer", {"action": run["legal"][0], "streak": True}))
    ok(alice.post("/api/learn/puzzles/streak/restart"))
    ok(alice.post(f"/api/learn/puzzles/{second.id}/answer", {"action": second.solution}))

    # the lessons: a guest's and an account's plays, a wrong try, an explained attempt, progress
    ok(visitor.get("/api/learn/lessons"))
    ok(visitor.get("/api/learn/lessons/combat"))
    ok(visitor.get("/api/learn/lessons/combat/exercises/together/answer"))
    ok(visitor.post("/api/learn/lessons/combat/exercises/together/play", {"actions": ["deploy orcs:30 d3"]}))
    ok(visitor.post("/api/learn/lessons/combat/exercises/together/play", {"attempt": "deploy orcs:06 a1"}))
    ok(alice.post("/api/learn/lessons/combat/exercises/together/play", {"actions": ["deploy orcs:06 d5"]}))
    ok(alice.post("/api/learn/progress", {"lessons": {"ranged": ["fire"]}}))
    ok(alice.get("/api/learn/progress"))

    # the card gallery's figures, and an exercise from a mistake: one of alice's decisions in the
    # analysis above marked as one (her hinted actions were the bot's own)
    ok(visitor.get("/api/learn/cards"))

    async def mark_mistake() -> None:
        from lordsofwar.web.models import GameAnalysis

        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            row = await db.get(GameAnalysis, hinted)
            assert row is not None and row.result is not None
            result = json.loads(json.dumps(row.result))
            first = next(d for d in result["decisions"] if d["player"] == 1 and not d["forced"])
            first["verdict"] = "mistake"
            row.result = result
            await db.commit()

    client.portal.call(mark_mistake)  # type: ignore[union-attr]
    exercise = ok(alice.get(f"/api/learn/mistakes/{hinted}"))["exercises"][0]
    ok(alice.post(f"/api/learn/mistakes/{hinted}/{exercise['n']}", {"action": exercise["played"]}))

    # friends, presence and blocking
    ok(alice.post("/api/players/bob/follow"))
    ok(alice.get("/api/players/bob/relation"))
    ok(alice.get("/api/friends"))
    ok(visitor.get("/api/online"))
    ok(alice.send("DELETE", "/api/players/bob/follow"))
    ok(alice.post("/api/players/bob/block"))
    ok(alice.send("DELETE", "/api/players/bob/block"))

    # reports and moderation: a chat message reported (the queue shows it with its neighbours),
    # a warning read, a report dismissed
    said = ok(bob.post(f"/api/games/{game}/chat", {"text": "a rude word"}))["id"]
    # the chat: a phrase, the history of a player and of a visitor, the setting
    ok(alice.post(f"/api/games/{game}/chat", {"phrase": "good_game"}))
    assert ok(alice.get(f"/api/games/{game}/chat"))["rooms"]["players"]
    ok(visitor.get(f"/api/games/{game}/chat"))
    ok(alice.send("PUT", "/api/chat/settings", {"enabled": False}))
    assert ok(alice.get("/api/chat/settings")) == {"enabled": False}
    ok(alice.send("PUT", "/api/chat/settings", {"enabled": True}))
    ok(alice.post("/api/reports", {"reason": "abuse", "text": "rude", "message": said}))
    dismissed = ok(bob.post("/api/reports", {"reason": "other", "player": "alice"}))["id"]

    async def make_moderator() -> None:
        from lordsofwar.web.models import Moderator, User

        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            user = await db.scalar(select(User).where(User.name_key == "carol"))
            assert user is not None
            db.add(Moderator(user_id=user.id))
            await db.commit()

    client.portal.call(make_moderator)  # type: ignore[union-attr]
    queue = ok(carol.get("/api/moderation/reports"))
    assert any(r["context"] for r in queue["reports"])
    ok(carol.post("/api/moderation/actions", {"action": "dismiss", "player": "alice", "reason": "nothing", "report": dismissed}))
    ok(carol.post("/api/moderation/actions", {"action": "warn", "player": "bob", "reason": "be kind"}))
    notice = ok(bob.get("/api/moderation/notices"))["notices"][0]["id"]
    ok(bob.post(f"/api/moderation/notices/{notice}/seen"))

    # closing an account
    erin = Player(client, "erin").signup()
    ok(erin.post("/api/account/close", {"password": erin.password, "confirm": "erin"}))

    # the password, a reset link and the sessions
    fern = Player(client, "fern").signup()
    elsewhere = Player(client, "fern")
    elsewhere.refresh()
    ok(elsewhere.post("/api/signin", {"name": "fern", "password": fern.password}))
    elsewhere.refresh()
    listed = ok(fern.get("/api/account/sessions"))["sessions"]
    ok(fern.send("DELETE", f"/api/account/sessions/{next(s['id'] for s in listed if not s['current'])}"))
    ok(fern.post("/api/account/sessions/others"))
    ok(fern.post("/api/account/password", {"current": fern.password, "password": "fern's new horse"}))
    assert visitor.post("/api/account/forgot", {"who": "fern"}).status_code == 202  # accepted: the mail goes later

    async def reset_link() -> str:
        from datetime import timedelta

        from lordsofwar.web.accounts import service as accounts
        from lordsofwar.web.models import PasswordReset

        token = accounts.new_token()
        async with client.app.state.services.sessions() as db:  # type: ignore[attr-defined]
            fern_id = await db.scalar(select(User.id).where(User.name_key == "fern"))
            assert fern_id is not None
            now = utcnow()
            db.add(PasswordReset(user_id=fern_id, token_hash=accounts.token_hash(token), created_at=now, expires_at=now + timedelta(hours=1)))
            await db.commit()
        return token

    token = client.portal.call(reset_link)  # type: ignore[union-attr]
    stranger = Player(client, "stranger")
    stranger.refresh()
    ok(stranger.post("/api/account/reset", {"token": token, "password": "fern's third horse"}))

    # what the routes returned
    assert answers, "no answer was recorded"
    for answer in answers:
        assert answer.kind is not None, f"{answer.op} has no response model"
        exactly(answer.kind, answer.raw, answer.op)
        if not _built(answer.raw):
            wire = jsonable_encoder(answer.raw)
            assert _same_json(answer.sent, wire), (
                f"{answer.op}: sent differs from the document:\n{answer.sent}\n!=\n{wire}"
            )
    ops = {a.op for a in answers}

    def raw(op: str) -> list[Any]:
        return [jsonable_encoder(a.raw) for a in answers if a.op == op]

    # the documents' less common parts were among them
    assert any("turn_state" in d["view"] for d in raw("POST /api/games/{game_id}/actions"))
    assert any(d["game"]["ratings"] for d in raw("GET /api/games/{game_id}"))
    assert any(d["result"] and d["result"]["decisions"] for d in raw("GET /api/games/{game_id}/analysis"))
    assert any(d["players"] for d in raw("GET /api/leaderboard"))
    assert any(d["standings"] and "points" in d["standings"][0] for d in raw("GET /api/tournaments/{tid}"))
    assert any(d["standings"] and "buchholz" in d["standings"][0] for d in raw("GET /api/tournaments/{tid}"))
    lobbies = raw("GET /api/lobby")
    assert any(d["running"] and d["accepted"] for d in lobbies) and any(d.get("decks") for d in lobbies)
    assert any(i.get("deck_choices") for d in lobbies for i in d["open"])
    description = client.app.openapi()  # type: ignore[attr-defined]
    declared = {
        f"{method.upper()} {path}"
        for path, item in description["paths"].items()
        for method in item
        if f"{method.upper()} {path}" not in UNTYPED_ANSWERS
    }
    assert declared - {"GET /api/cards"} <= ops, f"routes not exercised: {sorted(declared - ops)}"

    # the cards (one prepared document) and the socket's messages
    exactly(list[CardFacts], ok(client.get("/api/cards")), "GET /api/cards")
    assert {m["type"] for m in sockets} >= {"state", "update", "pong", "error"}
    for message in sockets:
        exactly(SocketMessage, message, f"socket {message['type']}")
