"""Closing an account (lordsofwar.web.accounts.closing), on SQLite and PostgreSQL: the games stay
whole for the opponents under a placeholder, what was under way ends as the player would end it,
the player's data goes, the name is held for a while, and a refusal changes nothing."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, insert, select, update
from starlette.websockets import WebSocketDisconnect

from lordsofwar.web.accounts import closing, export
from lordsofwar.web.models import (
    ApiToken,
    AuthSession,
    Deck,
    HeldName,
    Invitation,
    MailSettings,
    Rating,
    TournamentEntry,
    User,
    utcnow,
)
from tests.web.conftest import Player, new_game, play_opening, until


def _engine(client: TestClient) -> Engine:
    return create_engine(client.app.state.settings.sync_url())  # type: ignore[attr-defined]


def _count(engine: Engine, query: Any) -> int:
    with engine.connect() as conn:
        return len(conn.execute(query).all())


def _settled(engine: Engine, user_id: int) -> None:
    """A settled, active rating in the turn-based pool, so that the leaderboard shows the player."""
    with engine.begin() as conn:
        conn.execute(
            insert(Rating).values(
                user_id=user_id, pool="turn", mu=28.0, sigma=3.0, games=12, wins=7, draws=1, losses=4, updated_at=utcnow()
            )
        )


def _leaders(p: Player) -> list[str]:
    r = p.get("/api/leaderboard", params={"pool": "turn"})
    assert r.status_code == 200, r.text
    return [row["name"] for row in r.json()["players"]]


def test_the_tables_naming_a_player_are_each_deleted_or_kept_on_closing_sqlite() -> None:
    """A new table that names players must say what closing does to its rows."""
    tables = set(export.user_tables())
    assert not set(closing.DELETED) & set(closing.KEPT)
    assert tables <= set(closing.DELETED) | set(closing.KEPT), sorted(tables - set(closing.DELETED) - set(closing.KEPT))


def test_closing_ends_what_was_under_way_and_keeps_the_games_for_the_opponents(client: TestClient) -> None:
    alice, bob, carol = (Player(client, name).signup() for name in ("alice", "bob", "carol"))
    engine = _engine(client)
    with engine.connect() as conn:
        alice_id = conn.execute(select(User.id).where(User.name_key == "alice")).scalar_one()
    # a finished game, a running one (both first turns played), challenges both ways, a deck, a
    # token, a rating on the leaderboard, a running tournament with a game and an upcoming one
    finished = new_game(alice, bob)
    play_opening(finished, alice, bob)
    assert bob.post(f"/api/games/{finished}/resign").status_code == 200
    running = new_game(bob, alice)
    play_opening(running, alice, bob)
    mine = alice.post("/api/invitations", {"options": {}}).json()["invitation"]
    to_me = carol.post("/api/invitations", {"opponent": "alice"}).json()["invitation"]
    assert alice.post("/api/decks", {"name": "Horde", "army": "orcs"}).status_code == 201
    token = alice.post("/api/tokens", {"description": "bot", "scopes": ["bot:play"]}).json()["token"]
    _settled(engine, alice_id)
    assert "alice" in _leaders(carol)
    cup = carol.post("/api/tournaments", {"name": "Cup", "kind": "swiss", "rounds": 2}).json()["tournament"]
    later = carol.post("/api/tournaments", {"name": "Later", "kind": "swiss", "rounds": 2}).json()["tournament"]
    for p in (alice, carol):
        assert p.post(f"/api/tournaments/{cup}/join", {}).status_code == 200
    assert alice.post(f"/api/tournaments/{later}/join", {}).status_code == 200
    assert carol.post(f"/api/tournaments/{cup}/start").status_code == 200
    cup_game = _first_board(carol, cup)["game"]
    assert alice.state(cup_game)["game"]["status"] == "running"
    other_browser = Player(client, "alice")  # a second session of alice's
    other_browser.refresh()
    assert other_browser.post("/api/signin", {"name": "alice", "password": alice.password}).status_code == 200

    with alice.socket(running) as ws:
        until(ws, "state")
        r = alice.post("/api/account/close", {"password": alice.password, "confirm": " Alice "})
        assert r.status_code == 200, r.text
        with pytest.raises(WebSocketDisconnect) as dropped:
            for _ in range(20):
                ws.receive_text()
        assert dropped.value.code == 4401
    placeholder = r.json()["name"]
    assert placeholder == f"closed-{alice_id}"
    assert 'low_session=""' in r.headers["set-cookie"]  # this browser's cookie goes too

    # signed out everywhere; the old name and the placeholder never sign in again
    for p in (alice, other_browser):
        assert p.get("/api/session").json()["user"] is None
    probe = Player(client, "probe")
    probe.refresh()
    for name in ("alice", placeholder):
        assert probe.post("/api/signin", {"name": name, "password": alice.password}).status_code == 401
    client.cookies.clear()
    assert client.get("/api/bot/account", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert _count(engine, select(AuthSession).where(AuthSession.user_id == alice_id)) == 0
    assert _count(engine, select(ApiToken).where(ApiToken.user_id == alice_id)) == 0
    assert _count(engine, select(Deck).where(Deck.owner_id == alice_id)) == 0
    assert _count(engine, select(MailSettings).where(MailSettings.user_id == alice_id)) == 0
    assert _count(engine, select(Rating).where(Rating.user_id == alice_id)) == 0

    # the opponents' games: whole, with the placeholder where the name was
    replay = bob.get(f"/api/games/{finished}/replay")
    assert replay.status_code == 200
    assert replay.json()["names"]["1"] == placeholder
    assert replay.json()["record"]["players"]["1"]["name"] == placeholder
    assert bob.get(f"/api/games/{finished}/record").json()["players"]["1"]["name"] == placeholder
    state = bob.state(running)
    assert state["game"]["players"]["2"]["name"] == placeholder
    assert state["game"]["status"] == "over" and state["game"]["result"]["winner"] == 1  # alice resigned
    assert state["game"]["result"]["termination"] == "resignation"
    assert bob.get(f"/players/{placeholder}").status_code == 404
    assert "alice" not in _leaders(carol) and placeholder not in _leaders(carol)
    assert bob.get("/api/players/alice/ratings").status_code == 404
    assert bob.get(f"/api/players/{placeholder}/ratings").status_code == 404  # no history under the placeholder
    assert bob.post("/api/invitations", {"opponent": placeholder}).status_code == 404  # nobody to challenge

    # challenges withdrawn, tournaments left as a withdrawal leaves them
    with engine.connect() as conn:
        statuses = dict(conn.execute(select(Invitation.id, Invitation.status).where(Invitation.id.in_([mine, to_me]))).all())
        assert statuses == {mine: "cancelled", to_me: "declined"}
        query = select(TournamentEntry.tournament_id, TournamentEntry.withdrawn).where(TournamentEntry.user_id == alice_id)
        entries = {int(row[0]): bool(row[1]) for row in conn.execute(query).all()}
    assert entries == {cup: True}  # the upcoming one's entry went; the running one's is withdrawn
    cup_state = carol.state(cup_game)
    assert cup_state["game"]["status"] == "over" and cup_state["game"]["players"]["1"]["name"] in (placeholder, "carol")
    standings = carol.get(f"/api/tournaments/{cup}").json()
    assert placeholder in str(standings) and "alice" not in str(standings)

    # the name is held: refused at sign-up for the hold, free once it is over
    newcomer = Player(client, "ALICE")
    newcomer.refresh()
    refused = newcomer.post("/api/signup", {"name": "ALICE", "password": "another password"})
    assert refused.status_code == 409 and "closed" in refused.json()["detail"]
    for name in (placeholder, "Closed-99999"):  # nobody signs up as a placeholder
        assert newcomer.post("/api/signup", {"name": name, "password": "another password"}).status_code == 400
    with engine.begin() as conn:
        until_ = conn.execute(select(HeldName.held_until).where(HeldName.name_key == "alice")).scalar_one()
        assert timedelta(days=29) < until_.replace(tzinfo=None) - utcnow().replace(tzinfo=None) <= timedelta(days=30)
        conn.execute(update(HeldName).where(HeldName.name_key == "alice").values(held_until=utcnow() - timedelta(seconds=1)))
    assert newcomer.post("/api/signup", {"name": "ALICE", "password": "another password"}).status_code == 201
    newcomer.refresh()
    assert newcomer.get("/api/session").json()["user"]["name"] == "ALICE"
    assert bob.get(f"/api/games/{finished}/replay").json()["names"]["1"] == placeholder  # the new alice is not her
    engine.dispose()


def test_a_refused_closing_changes_nothing(client: TestClient) -> None:
    alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
    game = new_game(alice, bob)
    invitation = alice.post("/api/invitations", {"options": {}}).json()["invitation"]
    bad = [
        ({"password": "wrong password", "confirm": "alice"}, 403, None),
        ({"password": alice.password, "confirm": "bob"}, 403, None),
        ({"password": alice.password, "confirm": "alice"}, 403, "x" * 64),  # a forged CSRF token
        ({"password": alice.password}, 422, None),
        ({"password": alice.password, "confirm": "alice", "extra": 1}, 422, None),
        ({"password": "p" * 1001, "confirm": "alice"}, 422, None),
    ]
    for body, status, csrf in bad:
        r = alice.post("/api/account/close", body, csrf=csrf)
        assert r.status_code == status, (body, r.text)
        assert r.json()["detail"]
    assert alice.get("/api/session").json()["user"] == {"name": "alice"}
    assert alice.state(game)["game"]["status"] == "running"
    assert str(invitation) in str(bob.get("/api/lobby").json())
    assert bob.get("/players/alice").status_code == 200
    visitor = Player(client, "visitor")
    visitor.refresh()
    assert visitor.post("/api/account/close", {"password": "x", "confirm": "x"}).status_code == 401
    # the page's form: a wrong password shows the page again with the reason, nothing closed
    page = alice.get("/settings/close")
    assert page.status_code == 200 and 'id="close-form"' in page.text
    form = {"csrf": _page_csrf(page.text), "confirm": "alice", "password": "wrong password"}
    again = alice.use().post("/settings/close", data=form)
    assert again.status_code == 403 and "wrong password" in again.text
    assert alice.get("/api/session").json()["user"] == {"name": "alice"}
    form["password"] = alice.password
    done = alice.use().post("/settings/close", data=form, follow_redirects=False)
    alice._keep()
    assert done.status_code == 303 and done.headers["location"] == "/?flash=closed"
    assert alice.get("/api/session").json()["user"] is None
    assert bob.state(game)["game"]["status"] == "over"  # before both first turns: aborted


def _first_board(p: Player, tid: int) -> dict[str, Any]:
    """Round 1's first board, once it is paired (in the background)."""
    deadline = time.monotonic() + 20
    while True:
        t = p.get(f"/api/tournaments/{tid}").json()
        if t["rounds_played"]:
            return dict(t["rounds_played"][0]["boards"][0])
        assert time.monotonic() < deadline, f"round 1 was not paired: {t}"
        time.sleep(0.05)


def _page_csrf(html: str) -> str:
    start = html.index('name="csrf" value="') + len('name="csrf" value="')
    return html[start : html.index('"', start)]
