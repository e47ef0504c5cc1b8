"""WebSocket play, hidden information on the wire, clocks, deadlines and restarts
(SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from lordsofwar.rules import notation
from lordsofwar.rules.state import Result, Termination
from lordsofwar.web.app import create_app
from lordsofwar.web.models import utcnow
from tests.web.conftest import Player, new_game, settings_for, until


def test_both_players_and_a_spectator_see_each_action_at_once(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    carol = Player(client, "carol").signup()
    with alice.socket(game) as wa, bob.socket(game) as wb, carol.socket(game) as wc:
        sa, sb, sc = until(wa, "state"), until(wb, "state"), until(wc, "state")
        assert sa["game"]["you"] == 1 and sb["game"]["you"] == 2 and sc["game"]["you"] is None
        assert sc["legal"] == [] and sb["legal"] == []
        action = sa["legal"][0]
        wa.send_text(json.dumps({"type": "action", "action": action, "version": 0}))
        for ws in (wa, wb, wc):
            up = until(ws, "update")
            assert up["game"]["version"] == 1
            assert [e["action"] for e in up["log"]] == [action]
        # spectators may not act
        wc.send_text(json.dumps({"type": "action", "action": "draw", "version": 1}))
        err = until(wc, "error")
        assert "spectators cannot act" in err["message"]
        # bob may not act out of turn; nothing changes
        wb.send_text(json.dumps({"type": "action", "action": "draw", "version": 1}))
        assert "not your turn" in until(wb, "error")["message"]
        assert alice.state(game)["game"]["version"] == 1


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("not json", "not JSON"),
        (json.dumps({"type": "teleport"}), "unknown message type"),
        (json.dumps([1, 2]), "unknown message type"),
        (json.dumps({"type": "action", "action": "x" * 5000, "version": 0}), "too long"),
        (json.dumps({"type": "action", "action": "deploy", "version": 0}), "missing token"),
        (json.dumps({"type": "action", "action": "deploy orcs:01 c3"}), "version"),
        (json.dumps({"type": "action", "action": 12, "version": 0}), "expected a string"),
        (json.dumps({"type": "draw", "op": "maybe"}), "expected 'offer'"),
    ],
)
def test_bad_socket_messages_are_refused(alice: Player, bob: Player, message: str, error: str) -> None:
    game = new_game(alice, bob)
    with alice.socket(game) as ws:
        until(ws, "state")
        ws.send_text(message)
        assert error in until(ws, "error")["message"]
        ws.send_text(json.dumps({"type": "ping"}))
        assert until(ws, "pong") == {"type": "pong"}
    assert alice.state(game)["game"]["version"] == 0


def test_cross_site_socket_is_refused(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    with pytest.raises(Exception), alice.socket(game, headers={"origin": "http://evil.example"}) as ws:  # noqa: B017
        ws.receive_text()


def test_two_tabs_sending_at_once_apply_one_action(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    with alice.socket(game) as t1, alice.socket(game) as t2:
        legal = until(t1, "state")["legal"]
        until(t2, "state")
        t1.send_text(json.dumps({"type": "action", "action": legal[0], "version": 0}))
        t2.send_text(json.dumps({"type": "action", "action": legal[1], "version": 0}))
        kinds = []
        for _ in range(2):
            kinds.append(json.loads(t2.receive_text())["type"])
        assert "update" in kinds and "error" in kinds
    s = alice.state(game)
    assert s["game"]["version"] == 1 and len(s["log"]) == 1


def test_reconnect_resumes_with_the_current_state(alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    with alice.socket(game) as ws:
        legal = until(ws, "state")["legal"]
        ws.send_text(json.dumps({"type": "action", "action": legal[0], "version": 0}))
        until(ws, "update")
    with alice.socket(game) as ws:
        state = until(ws, "state")
        assert state["game"]["version"] == 1 and state["log"][0]["action"] == legal[0]
        ws.send_text(json.dumps({"type": "sync"}))
        assert until(ws, "state")["game"]["version"] == 1


def _hidden_cards(client: TestClient, game: int, player: int) -> list[str]:
    rt = client.app.state.service.runtimes[game]  # type: ignore[attr-defined]
    return list(rt.pos.hands[player])


def _assert_nothing_hidden(received: list[str], client: TestClient, game: int, me: int) -> None:
    rt = client.app.state.service.runtimes[game]  # type: ignore[attr-defined]
    seed = str(rt.game.seed)
    for text_ in received:
        assert seed not in text_, "the seed of a running game reached a client"
        try:
            doc = json.loads(text_)
        except ValueError:  # an HTML page
            continue
        if "view" not in doc:
            continue
        players = doc["view"]["players"]
        for p in ("1", "2"):
            assert isinstance(players[p]["deck"], int), "a deck's cards reached a client"
        if me in (1, 2):
            assert all(c is None for c in players[str(3 - me)]["hand"]), "the opponent's hidden hand reached a client"
        else:
            assert all(c is None for p in ("1", "2") for c in players[p]["hand"])
        for entry in doc.get("log", []):
            for event in entry["events"]:
                if event["type"] == "draw":
                    assert set(event) == {"type", "player"}


def test_hidden_information_stays_hidden_on_the_wire(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob)
    carol = Player(client, "carol").signup()
    received: dict[int, list[str]] = {1: [], 2: [], 0: []}
    rng = random.Random(11)
    with alice.socket(game) as wa, bob.socket(game) as wb, carol.socket(game) as wc:
        socks = {1: wa, 2: wb, 0: wc}
        last: dict[int, dict[str, Any]] = {}
        for k, ws in socks.items():
            t = ws.receive_text()
            received[k].append(t)
            last[k] = json.loads(t)
        for _ in range(40):
            mover = 1 if last[1]["legal"] else 2
            action = rng.choice(last[mover]["legal"])
            socks[mover].send_text(
                json.dumps({"type": "action", "action": action, "version": last[mover]["game"]["version"]})
            )
            for k, ws in socks.items():
                t = ws.receive_text()
                received[k].append(t)
                last[k] = json.loads(t)
            if last[1]["game"]["status"] != "running":
                break
        # HTTP too
        received[1].append(alice.get(f"/api/games/{game}").text)
        received[2].append(bob.get(f"/api/games/{game}").text)
        received[0].append(carol.get(f"/api/games/{game}").text)
        received[0].append(carol.get(f"/games/{game}").text)
        for k in (1, 2, 0):
            _assert_nothing_hidden(received[k], client, game, k)
        # the opponent's actual hand cards are not in any message as hand cards
        for me in (1, 2):
            opponent_hand = _hidden_cards(client, game, 3 - me)
            assert all(c is not None for c in opponent_hand)
            assert json.loads(received[me][-1])["view"]["players"][str(3 - me)]["hand"] == [None] * len(opponent_hand)
    assert carol.get(f"/api/games/{game}/record").status_code == 409
    assert carol.get(f"/api/games/{game}/replay").status_code == 409


def _age(url: str, game: int, column: str, seconds: float) -> None:
    engine = create_engine(settings_for(url).sync_url())
    with engine.begin() as conn:
        when = utcnow() - timedelta(seconds=seconds)
        conn.execute(text(f"UPDATE games SET {column} = :t WHERE id = :id"), {"t": when, "id": game})
    engine.dispose()


@pytest.mark.parametrize("mode", ["live", "turn"])
def test_an_empty_clock_or_missed_deadline_loses(db_url: str, mode: str) -> None:
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
        game = new_game(alice, bob, mode=mode, minutes=1, days=1)
        play_openings(alice, bob, game)  # turns 1 and 2; alice plays turn 3
        s = alice.state(game)
        alice.act(game, next(a for a in s["legal"] if a.startswith("deploy")), s["game"]["version"])
        alice.act(game, "draw", s["game"]["version"] + 1)
        assert bob.state(game)["game"]["clock_running"] == 2
        # bob's time runs out while the server is down: the sweep after the restart ends the game
    _age(db_url, game, "deadline_at", 1)
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        ended = client.portal.call(app.state.service.sweep)  # type: ignore[union-attr]
        assert ended == 1
        bob = Player(client, "bob")
        bob.refresh()
        assert bob.post("/api/signin", {"name": "bob", "password": "correct horse"}).status_code == 200
        bob.refresh()
        s = bob.state(game)
        reason = "player 2 ran out of time" if mode == "live" else "player 2 missed the turn deadline"
        result = Result(1, Termination.TIMEOUT if mode == "live" else Termination.DEADLINE, player=2)
        assert s["game"]["result"] == result.to_json() and result.reason == reason
        assert s["log"][-1]["events"][0] == {"type": "timeout", "player": 2}
        r = bob.act(game, s["legal"][0] if s["legal"] else "draw", s["game"]["version"])
        assert r.status_code == 409 and "over" in r.json()["detail"]
        record = notation.parse_record(bob.get(f"/api/games/{game}/record").json())
        assert notation.replay(record)[-1].result == result


def play_openings(alice: Player, bob: Player, game: int) -> None:
    for p in (alice, bob):
        s = p.state(game)
        p.act(game, s["legal"][0], s["game"]["version"])
        p.act(game, "draw", s["game"]["version"] + 1)


def test_acting_after_the_clock_ran_out_loses_instead(db_url: str) -> None:
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
        game = new_game(alice, bob, minutes=1)
        play_openings(alice, bob, game)
        s = alice.state(game)
        legal, version = s["legal"], s["game"]["version"]
        # the clock ran out 2 s ago but no sweep has run yet
        rt = client.portal.call(app.state.service.runtime, game)  # type: ignore[union-attr]
        rt.game.since = utcnow() - timedelta(seconds=62)
        rt.game.deadline_at = utcnow() - timedelta(seconds=2)
        r = alice.act(game, legal[0], version)
        assert r.status_code == 409 and "ran out of time" in r.json()["detail"]
        s = alice.state(game)
        assert s["game"]["result"]["winner"] == 2
        assert s["game"]["clocks"]["1"] == 0  # the loser's clock shows empty


def test_the_openings_use_no_clock_time_but_have_a_deadline(db_url: str) -> None:
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
        game = new_game(alice, bob, minutes=1, increment=0)
        s = alice.state(game)
        assert s["game"]["clock_running"] is None and s["game"]["clocks"] == {"1": 60_000, "2": 60_000}
        rt = client.portal.call(app.state.service.runtime, game)  # type: ignore[union-attr]
        rt.game.since = utcnow() - timedelta(seconds=200)  # 200 s on turn 1: more than the clock
        alice.act(game, s["legal"][0], 0)
        alice.act(game, "draw", 1)
        s = alice.state(game)
        assert s["game"]["clocks"]["1"] == 60_000 and s["game"]["status"] == "running"
        # but bob, who accepted and left, ends the game once the opening deadline (5 minutes)
        # passes: before both players made their first turn, it is aborted (no result counts)
        rt.game.deadline_at = utcnow() - timedelta(seconds=1)
        _age(db_url, game, "deadline_at", 1)
        assert client.portal.call(app.state.service.sweep) == 1  # type: ignore[union-attr]
        g = alice.state(game)["game"]
        assert g["result"] == {
            "winner": None,
            "reason": "aborted: player 2 missed the turn deadline",
            "termination": "aborted",
            "player": 2,
            "ending": "deadline",
        }
        assert g["aborted"]


def test_server_downtime_is_not_charged_to_the_players(db_url: str) -> None:
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
        game = new_game(alice, bob, minutes=1)
        play_openings(alice, bob, game)
        before = alice.state(game)["game"]
        cookies = dict(alice.cookies)
    # the server was down for ten minutes, ten times alice's clock
    _age(db_url, game, "since", 600)
    _age(db_url, game, "deadline_at", 540)
    engine = create_engine(settings_for(db_url).sync_url())
    with engine.begin() as conn:
        conn.execute(text("UPDATE heartbeats SET at = :t"), {"t": utcnow() - timedelta(seconds=600)})
    engine.dispose()
    app = create_app(settings_for(db_url, sweep_interval=0.05))
    with TestClient(app) as client:
        import time

        time.sleep(0.3)  # several sweeps
        alice = Player(client, "alice")
        alice.cookies = cookies
        after = alice.state(game)["game"]
        assert after["status"] == "running"
        assert after["clock_running"] == 1
        # Only the seconds the test itself took may be charged (2.4 s on a loaded machine), never
        # the ten minutes of downtime.
        assert before["clocks"]["1"] - 10_000 <= after["clocks"]["1"] <= before["clocks"]["1"]


def test_live_clock_counts_down_and_adds_the_increment(client: TestClient, alice: Player, bob: Player) -> None:
    game = new_game(alice, bob, minutes=10, increment=5)
    play_openings(alice, bob, game)
    s = alice.state(game)
    assert 604_000 <= s["game"]["clocks"]["1"] <= 605_000 and s["game"]["clocks"]["2"] == 605_000  # no time used
    app = client.app
    assert isinstance(app, FastAPI) and client.portal is not None  # the portal is open while the client runs
    rt = client.portal.call(app.state.service.runtime, game)
    rt.game.since = utcnow() - timedelta(seconds=30)  # alice thinks for 30 s
    s = alice.state(game)
    assert s["game"]["clock_running"] == 1
    assert 574_000 <= s["game"]["clocks"]["1"] <= 575_500 and s["game"]["clocks"]["2"] == 605_000
    v = s["game"]["version"]
    alice.act(game, next(a for a in s["legal"] if a.startswith("deploy")), v)
    alice.act(game, "draw", v + 1)
    s = alice.state(game)
    assert s["game"]["clock_running"] == 2
    assert 577_000 <= s["game"]["clocks"]["1"] <= 580_500  # 605 - 30 + 5, less up to 3 s of a busy machine (575_000 without the increment)
    assert 603_000 <= s["game"]["clocks"]["2"] <= 605_000  # bob's clock runs now


def test_restart_in_the_middle_of_a_game_loses_nothing(db_url: str) -> None:
    rng = random.Random(2)
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        alice, bob = Player(client, "alice").signup(), Player(client, "bob").signup()
        game = new_game(alice, bob)
        for _ in range(30):
            for p in (alice, bob):
                s = p.state(game)
                if s["legal"]:
                    p.act(game, rng.choice(s["legal"]), s["game"]["version"])
        before = {p.name: p.state(game) for p in (alice, bob)}
        cookies = {p.name: dict(p.cookies) for p in (alice, bob)}
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        players = []
        for name in ("alice", "bob"):
            p = Player(client, name)
            p.cookies = cookies[name]  # the same sessions survive the restart
            after = p.state(game)
            assert after["view"] == before[name]["view"]
            assert after["log"] == before[name]["log"]
            assert after["legal"] == before[name]["legal"]
            assert after["game"]["version"] == before[name]["game"]["version"]
            players.append((p, after))
        for p, after in players:
            if after["legal"]:
                p.refresh()
                assert p.act(game, after["legal"][0], after["game"]["version"]).status_code == 200


def test_bot_resumes_after_a_restart(db_url: str) -> None:
    app = create_app(settings_for(db_url, bot_delay=3600.0))  # the bot does not get to move
    with TestClient(app) as client:
        alice = Player(client, "alice").signup()
        game = alice.post(
            "/api/invitations", {"bot": "greedy" if "greedy" in _bots() else "random", "options": {"creator_side": "2"}}
        ).json()["game"]
        cookies = dict(alice.cookies)
        assert alice.state(game)["game"]["version"] == 0
    app = create_app(settings_for(db_url))
    with TestClient(app) as client:
        alice = Player(client, "alice")
        alice.cookies = cookies
        import time

        for _ in range(200):
            if alice.state(game)["legal"]:
                break
            time.sleep(0.02)
        s = alice.state(game)
        assert s["game"]["version"] >= 2 and s["legal"], "the bot did not play its turn after the restart"


def _bots() -> list[str]:
    from lordsofwar.bots import BOTS

    return list(BOTS)
