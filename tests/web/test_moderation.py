"""Reports and moderation (lordsofwar.web.moderation), on SQLite and PostgreSQL: a report reaches
the moderators' queue with its context, and each action has its effect (a warning is shown once,
a mute makes the chat refuse with its end, a ban ends every session and socket and refuses sign-in,
closing reuses the account's closing); everyone else is refused and bad input changes nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, func, insert, select
from starlette.websockets import WebSocketDisconnect

from lordsofwar.cli import cli
from lordsofwar.web.models import ApiToken, ModerationAction, Report, User, utcnow
from lordsofwar.web.moderation import service as moderation
from tests.web.conftest import Player, new_game, until


def _engine(client: TestClient) -> Engine:
    return create_engine(client.app.state.settings.sync_url())  # type: ignore[attr-defined]


def _scalar(client: TestClient, query: Any) -> Any:
    engine = _engine(client)
    try:
        with engine.connect() as conn:
            return conn.execute(query).scalar()
    finally:
        engine.dispose()


def _grant(client: TestClient, monkeypatch: pytest.MonkeyPatch, name: str, verb: str = "grant") -> str:
    monkeypatch.setenv("LOW_DATABASE_URL", client.app.state.settings.database_url)  # type: ignore[attr-defined]
    result = CliRunner().invoke(cli, ["admin", f"{verb}-moderator", name])
    assert result.exit_code == 0, result.output
    return result.output


def _queue(p: Player) -> dict[str, Any]:
    r = p.get("/api/moderation/reports")
    assert r.status_code == 200, r.text
    return dict(r.json())


def _act(p: Player, csrf: str | None = None, **body: Any) -> Any:
    return p.post("/api/moderation/actions", body, csrf=csrf)


def _log(client: TestClient) -> list[str]:
    engine = _engine(client)
    try:
        with engine.connect() as conn:
            return [row[0] for row in conn.execute(select(ModerationAction.action).order_by(ModerationAction.id))]
    finally:
        engine.dispose()


def test_a_reported_message_is_handled_by_each_action(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    mod, dave = Player(client, "Carol").signup(), Player(client, "dave").signup()
    game = new_game(alice, bob)
    said = []
    for p, text in ((alice, "good luck"), (bob, "you are a fool"), (alice, "please stop")):
        r = p.post(f"/api/games/{game}/chat", {"text": text})
        assert r.status_code == 201, r.text
        said.append(r.json()["id"])

    # reports: the reader of a message reports it, once; nobody else and nothing else
    assert dave.post("/api/reports", {"reason": "abuse", "message": said[1]}).status_code == 403  # not his room
    assert bob.post("/api/reports", {"reason": "abuse", "message": said[1]}).status_code == 403  # himself
    assert alice.post("/api/reports", {"reason": "rude", "message": said[1]}).status_code == 422
    assert alice.post("/api/reports", {"reason": "abuse", "message": said[1], "player": "bob"}).status_code == 422
    assert alice.post("/api/reports", {"reason": "abuse", "message": 10**6}).status_code == 404
    assert alice.post("/api/reports", {"reason": "abuse", "text": "x" * 501, "player": "bob"}).status_code == 422
    assert alice.post("/api/reports", {"reason": "abuse", "player": "nobody"}).status_code == 404
    assert alice.post("/api/reports", {"reason": "abuse", "message": said[1]}, csrf="forged").status_code == 403
    r = alice.post("/api/reports", {"reason": "abuse", "text": "  he  insults me ", "message": said[1]})
    assert r.status_code == 201, r.text
    first = r.json()["id"]
    again = alice.post("/api/reports", {"reason": "spam", "player": "BOB"})
    assert again.status_code == 409 and again.json()["code"] == "open"
    assert dave.post("/api/reports", {"reason": "name", "player": "bob"}).status_code == 201
    assert _scalar(client, select(func.count()).select_from(Report)) == 2

    # only moderators reach the queue, the page and the actions
    for p in (mod, alice):
        assert p.get("/api/moderation/reports").status_code == 403
        assert p.get("/moderation", headers={"accept": "text/html"}).status_code == 403
        assert _act(p, action="warn", player="bob", reason="x").status_code == 403
    assert Player(client, "anon").get("/api/moderation/reports").status_code == 401
    assert "Carol is a moderator" in _grant(client, monkeypatch, "carol")
    queue = _queue(mod)
    assert queue["open"] == 2
    item = queue["reports"][0]
    assert (item["id"], item["reporter"], item["player"], item["reason"]) == (first, "alice", "bob", "abuse")
    assert item["text"] == "he insults me" and item["game"] == game
    assert item["context"]["message"]["text"] == "you are a fool"
    assert [m["text"] for m in item["context"]["before"]] == ["good luck"]
    assert [m["text"] for m in item["context"]["after"]] == ["please stop"]
    assert [r["reporter"] for r in item["reports"]] == ["dave"]  # the other report about bob
    page = mod.get("/moderation", headers={"accept": "text/html"})
    assert page.status_code == 200 and "you are a fool" in page.text and f"/games/{game}" in page.text
    assert mod.get("/api/moderation/notices").json()["open_reports"] == 2  # beside the top bar's link
    assert alice.get("/api/moderation/notices").json()["open_reports"] is None

    # the queue pages, oldest or newest first
    monkeypatch.setattr(moderation, "QUEUE_PAGE", 1)
    queue = _queue(mod)
    assert (queue["page"], queue["pages"], queue["order"]) == (1, 2, "oldest")
    assert [r["reporter"] for r in queue["reports"]] == ["alice"]
    newest = mod.get("/api/moderation/reports?order=newest").json()
    assert [r["reporter"] for r in newest["reports"]] == ["dave"] and newest["pages"] == 2
    second = mod.get("/api/moderation/reports?page=2").json()
    assert [r["reporter"] for r in second["reports"]] == ["dave"] and second["page"] == 2
    assert mod.get("/api/moderation/reports?page=3").json()["reports"] == []
    assert mod.get("/api/moderation/reports?order=random").status_code == 422
    assert mod.get("/api/moderation/reports?page=0").status_code == 422
    page = mod.get("/moderation?order=newest&page=1", headers={"accept": "text/html"}).text
    assert 'href="/moderation?order=newest&page=2"' in page and "good luck" not in page  # dave's report only
    monkeypatch.setattr(moderation, "QUEUE_PAGE", 50)

    # bad actions change nothing
    assert _act(mod, action="warn", player="carol", reason="me").json()["code"] == "self"
    assert _act(mod, action="explode", player="bob", reason="x").status_code == 422
    assert _act(mod, action="warn", player="bob", reason="   ").status_code == 422
    assert _act(mod, action="warn", player="bob", reason="y" * 501).status_code == 422
    assert _act(mod, action="mute", player="bob", reason="x").status_code == 422  # for how long?
    assert _act(mod, action="mute", player="bob", reason="x", hours=24 * 91).status_code == 422
    assert _act(mod, action="ban", player="bob", reason="x", days=0).status_code == 422
    assert _act(mod, action="warn", player="bob", reason="x", hours=2).status_code == 422
    assert _act(mod, action="dismiss", player="bob", reason="x").status_code == 422  # which report?
    assert _act(mod, action="dismiss", player="alice", reason="x", report=first).status_code == 404
    assert _act(mod, action="lift", player="bob", reason="x").json()["code"] == "nothing"
    assert _act(mod, action="warn", player="bob", reason="x", report=first, csrf="forged").status_code == 403
    assert _log(client) == [] and _queue(mod)["open"] == 2

    # a warning settles the reports about bob; he reads it once
    r = _act(mod, action="warn", player="bob", reason="Be civil in the chat.", report=first)
    assert r.status_code == 201, r.text
    assert _queue(mod)["open"] == 0
    assert _act(mod, action="dismiss", player="bob", reason="x", report=first).json()["code"] == "handled"
    notices = bob.get("/api/moderation/notices").json()["notices"]
    assert [n["reason"] for n in notices] == ["Be civil in the chat."]
    assert alice.get("/api/moderation/notices").json()["notices"] == []
    assert alice.post(f"/api/moderation/notices/{notices[0]['id']}/seen").status_code == 404  # not hers
    assert bob.post(f"/api/moderation/notices/{notices[0]['id']}/seen").json()["notices"] == []
    assert bob.post(f"/api/moderation/notices/{notices[0]['id']}/seen").status_code == 404

    # a mute: the chat refuses bob until its end, which it names; lifting ends it
    r = _act(mod, action="mute", player="bob", reason="insults", hours=24)
    assert r.status_code == 201, r.text
    muted = bob.post(f"/api/games/{game}/chat", {"text": "hello"})
    assert muted.status_code == 403 and muted.json()["code"] == "muted"
    assert "UTC" in muted.json()["detail"]
    assert alice.post(f"/api/games/{game}/chat", {"text": "quiet now"}).status_code == 201
    assert _act(mod, action="lift", player="bob", reason="served").status_code == 201
    assert bob.post(f"/api/games/{game}/chat", {"text": "sorry"}).status_code == 201

    # a ban ends every session and socket of bob's, and sign-in refuses naming it
    second = Player(client, "bob")
    second.refresh()
    assert second.post("/api/signin", {"name": "bob", "password": bob.password}).status_code == 200
    assert bob.post("/api/tokens", {"description": "bob's bot", "scopes": ["bot:play"]}).status_code == 201
    with bob.socket(game) as ws:
        until(ws, "state")
        r = _act(mod, action="ban", player="bob", reason="repeated insults", days=7)
        assert r.status_code == 201, r.text
        assert r.json()["until"] is not None
        with pytest.raises(WebSocketDisconnect) as dropped:
            for _ in range(20):
                ws.receive_text()
        assert dropped.value.code == 4401
    bob_id = _scalar(client, select(User.id).where(User.name_key == "bob"))
    assert _scalar(client, select(func.count()).select_from(ApiToken).where(ApiToken.user_id == bob_id)) == 0
    for p in (bob, second):
        assert p.get("/api/session").json()["user"] is None
        assert p.get("/api/moderation/notices").status_code == 401
    bob.refresh()
    refused = bob.post("/api/signin", {"name": "bob", "password": bob.password})
    assert refused.status_code == 403
    assert "banned" in refused.json()["detail"] and "repeated insults" in refused.json()["detail"]
    assert bob.post("/api/signin", {"name": "bob", "password": "wrong guess"}).status_code == 401  # no word of the ban
    form = bob.use().post("/signin", data={"name": "bob", "password": bob.password, "csrf": bob.csrf})
    assert form.status_code == 403 and "repeated insults" in form.text
    assert _act(mod, action="lift", player="bob", reason="appeal granted").status_code == 201
    assert bob.post("/api/signin", {"name": "bob", "password": bob.password}).status_code == 200

    # closing the account as a moderator: the account's own closing, without its password
    eve = Player(client, "eve").signup()
    eve_id = _scalar(client, select(User.id).where(User.name_key == "eve"))
    assert alice.post("/api/reports", {"reason": "name", "player": "eve"}).status_code == 201
    eve_report = _queue(mod)["reports"][0]["id"]
    r = _act(mod, action="close", player="eve", reason="an account for spam", report=eve_report)
    assert r.status_code == 201, r.text
    assert r.json()["player"] == f"closed-{eve_id}"
    assert eve.get("/api/session").json()["user"] is None
    assert alice.get("/players/eve").status_code == 404 or "closed" in alice.get("/players/eve").text
    assert _act(mod, action="warn", player="eve", reason="x").status_code == 404

    # the log: who did what to whom, and why; the target's history shows it
    assert _log(client) == ["warn", "mute", "lift", "ban", "lift", "close"]
    assert dave.post("/api/reports", {"reason": "abuse", "player": "bob"}).status_code == 201  # his first was settled
    history = [(h["action"], h["moderator"], h["reason"]) for h in _queue(mod)["reports"][0]["history"]]
    assert history[-1] == ("warn", "Carol", "Be civil in the chat.")
    assert history[0] == ("lift", "Carol", "appeal granted")

    # at most REPORTS_PER_HOUR reports an hour, settled ones too
    alice_id = _scalar(client, select(User.id).where(User.name_key == "alice"))
    engine = _engine(client)
    with engine.begin() as conn:
        conn.execute(insert(Report), [
            {"reporter_id": alice_id, "target_id": bob_id, "reason": "spam", "text": "", "status": "dismissed",
             "created_at": utcnow() - timedelta(minutes=i)} for i in range(moderation.REPORTS_PER_HOUR)
        ])
    engine.dispose()
    assert alice.post("/api/reports", {"reason": "spam", "player": "dave"}).status_code == 429

    # a moderator no more; the command names a player it does not know
    result = CliRunner().invoke(cli, ["admin", "grant-moderator", "nobody"])
    assert result.exit_code == 2 and "no player called 'nobody'" in result.output
    assert "carol is not a moderator" in _grant(client, monkeypatch, "carol", "revoke").lower()
    assert mod.get("/api/moderation/reports").status_code == 403
